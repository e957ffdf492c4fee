/**
 * The store's `news`: the scripts that add due work publish `work` on the channel `<prefix>news`, those that stop a
 * running job `cancel:<jobId>`; every process reads them on its subscriber connection. Pub/sub keeps nothing for a
 * process that was not listening, which is fine: news only shortens a worker's wait between polls.
 */
import type { WorkEvent } from "@webdata/core/jobs"
import { Effect, Stream } from "effect"
import type { Redis } from "ioredis"
import { layout } from "./Keys.js"

export const channel = (prefix: string): string => prefix + layout.news

const CANCEL = "cancel:"

const toEvent = (message: string): WorkEvent | undefined =>
  message === "work"
    ? { _tag: "WorkAdded" }
    : message.startsWith(CANCEL)
      ? { _tag: "JobCancelled", jobId: message.slice(CANCEL.length) }
      : undefined

/**
 * The events on `subscriber` (already subscribed to `channel(prefix)`) for as long as the stream runs. A consumer
 * that falls behind loses the oldest events rather than holding the connection's others up.
 */
export const stream = (subscriber: Redis, prefix: string): Stream.Stream<WorkEvent> => {
  const name = channel(prefix)
  return Stream.asyncPush<WorkEvent>(
    (emit) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const listener = (from: string, message: string) => {
            const event = from === name ? toEvent(message) : undefined
            if (event !== undefined) emit.single(event)
          }
          subscriber.on("message", listener)
          return listener
        }),
        (listener) => Effect.sync(() => subscriber.off("message", listener)),
      ),
    { bufferSize: 256, strategy: "sliding" },
  )
}
