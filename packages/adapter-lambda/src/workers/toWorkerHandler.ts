/**
 * The worker function: an SQS-triggered handler whose messages only wake it. Each invocation runs the store's due work
 * (`Drain`) until none is left or its time is up, gives back the leases of what it could not finish, and queues the
 * next invocation itself: at once when work is still due, delayed when work is due later (a crawl's `delay`, a retry's
 * backoff); it logs why it ended and what it did. When every slot is busy and more is due, it wakes more workers.
 *
 * Partial batch failures: a message that is not the engine's is reported failed (SQS moves it to the dead-letter queue
 * after its retries); when the store cannot be reached, or the next invocation cannot be queued while work remains,
 * every message is reported failed, so that SQS delivers them again after their visibility timeout.
 */

import type { EngineServices } from "@webdata/core"
import { Drain } from "@webdata/core"
import { Effect, type Layer, Option } from "effect"
import * as EngineRuntime from "./EngineRuntime.js"
import type { LambdaContext, SqsBatchResponse, SqsEvent } from "./events.js"
import { type SqsQueue, secondsUntil } from "./SqsQueue.js"
import * as WorkMessage from "./WorkMessage.js"

export interface WorkerHandlerOptions {
  /** The workers' queue: where an invocation queues the next ones. */
  readonly queue: SqsQueue
  /** Time kept free at the end of an invocation for giving leases back and answering. Default 10 s. */
  readonly marginMs?: number
  /** Most workers one invocation wakes when it has more due work than it can run. Default 10. */
  readonly maxFanOut?: number
  /** Work due within this long is waited for rather than left to a delayed message. Default 5 s. */
  readonly waitMs?: number
}

export type WorkerHandler = ((event: SqsEvent, context: LambdaContext) => Promise<SqsBatchResponse>) & {
  readonly dispose: () => Promise<void>
}

export const toWorkerHandler = (engine: Layer.Layer<EngineServices>, options: WorkerHandlerOptions): WorkerHandler => {
  const runtime = EngineRuntime.make(engine)
  const marginMs = options.marginMs ?? 10_000
  const maxFanOut = options.maxFanOut ?? 10

  const invoke = Effect.fn("LambdaWorker.invoke")(function* (jobId: string | undefined, remainingMs: number) {
    const drain = yield* Drain.Drain
    const report = yield* drain.run({
      deadline: Date.now() + remainingMs - marginMs,
      ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}),
      onSaturated: (runs) =>
        WorkMessage.wakeUpTo(options.queue, Math.min(runs, maxFanOut), "more", jobId).pipe(
          Effect.catchAll((error) => Effect.logWarning(`No more workers woken: ${error.message}`)),
        ),
    })
    const { due, nextDue } = report.pending
    // A run goes on while work is due and there is time to start it: work left, or leases given back, mean time was up.
    const timeUp = report.released > 0 || due > 0
    yield* Effect.logInfo(`Worker run ended: ${timeUp ? "time up" : "no due work left"}`).pipe(
      Effect.annotateLogs({
        started: report.started,
        released: report.released,
        due,
        deliveriesSent: report.deliveriesSent,
        ...(Option.isSome(nextDue) ? { nextDueAt: new Date(nextDue.value).toISOString() } : {}),
      }),
    )
    // The next invocations: as many as the due work keeps busy, or one when the next work is due.
    if (due > 0) yield* WorkMessage.wakeUpTo(options.queue, Math.min(drain.runsFor(due), maxFanOut), "continue", jobId)
    else if (Option.isSome(nextDue))
      yield* options.queue.send(WorkMessage.wakes(1, "continue", { jobId, delaySeconds: secondsUntil(nextDue.value) }))
    return report
  })

  const handler = async (event: SqsEvent, context: LambdaContext): Promise<SqsBatchResponse> => {
    const records = event.Records ?? []
    const foreign = records.filter((record) => WorkMessage.decode(record.body) === undefined)
    for (const record of foreign)
      console.error(`webdata worker: message ${record.messageId} is not a work message; left for the dead-letter queue`)
    const ours = records.filter((record) => !foreign.includes(record))
    if (ours.length === 0) return { batchItemFailures: foreign.map((record) => ({ itemIdentifier: record.messageId })) }
    const jobId = ours.map((record) => WorkMessage.decode(record.body)?.jobId).find((id) => id !== undefined)
    const failed = await runtime.run(invoke(jobId, context.getRemainingTimeInMillis())).then(
      () => foreign,
      (error: unknown) => {
        console.error("webdata worker: the run failed; its messages come back after their visibility timeout", error)
        return records
      },
    )
    return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) }
  }
  return Object.assign(handler, { dispose: runtime.dispose })
}
