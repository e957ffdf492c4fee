/**
 * The messages of the workers' queue. A message only wakes a worker: the work itself is in the store and a worker runs
 * whatever is due, so a lost or repeated message is harmless; what it says is for the logs.
 */

import { Effect } from "effect"
import type { OutgoingMessage, SqsError, SqsQueue } from "./SqsQueue.js"

/** Why a worker was woken. */
export type WakeReason =
  /** A request started or extended a job. */
  | "job"
  /** A run had every slot busy and more was due. */
  | "more"
  /** A run ended (out of time, or work due later). */
  | "continue"
  /** The schedule found due work, or leases of runs that died. */
  | "sweep"

/** `{ "webdata": "work", "reason": …, "jobId"?: … }`. */
export interface WorkMessage {
  readonly webdata: "work"
  readonly reason: WakeReason
  readonly jobId?: string
}

const REASONS: ReadonlySet<string> = new Set<WakeReason>(["job", "more", "continue", "sweep"])

export const encode = (reason: WakeReason, jobId?: string): string =>
  JSON.stringify({ webdata: "work", reason, ...(jobId !== undefined ? { jobId } : {}) } satisfies WorkMessage)

/** The message in `body`; undefined when it is not one (another producer's message on the queue). */
export const decode = (body: string): WorkMessage | undefined => {
  try {
    const value = JSON.parse(body) as Partial<WorkMessage> | null
    if (value?.webdata !== "work" || typeof value.reason !== "string" || !REASONS.has(value.reason)) return undefined
    if (value.jobId !== undefined && typeof value.jobId !== "string") return undefined
    return { webdata: "work", reason: value.reason, ...(value.jobId !== undefined ? { jobId: value.jobId } : {}) }
  } catch {
    return undefined
  }
}

/** `count` messages that wake workers, sent after `delaySeconds` when given. */
export const wakes = (
  count: number,
  reason: WakeReason,
  options: { readonly jobId?: string | undefined; readonly delaySeconds?: number | undefined } = {},
): ReadonlyArray<OutgoingMessage> =>
  Array.from({ length: count }, () => ({
    body: encode(reason, options.jobId),
    ...(options.delaySeconds !== undefined ? { delaySeconds: options.delaySeconds } : {}),
  }))

/**
 * Wakes `wanted` workers at once, less as many as messages already wait in the queue (invocations that end together
 * would otherwise each queue the same successors); all of them when the queue's depth cannot be read. Answers how
 * many were sent.
 */
export const wakeUpTo = (
  queue: SqsQueue,
  wanted: number,
  reason: WakeReason,
  jobId?: string,
): Effect.Effect<number, SqsError> =>
  queue.waiting.pipe(
    Effect.orElseSucceed(() => 0),
    Effect.map((waiting) => Math.max(0, wanted - waiting)),
    Effect.flatMap((count) =>
      count === 0 ? Effect.succeed(0) : Effect.as(queue.send(wakes(count, reason, { jobId })), count),
    ),
  )
