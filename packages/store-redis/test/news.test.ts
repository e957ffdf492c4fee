/** `news` over Redis pub/sub: what one process writes, the others on the same prefix hear. */
import { describe, expect, it } from "@effect/vitest"
import type { JobStoreShape } from "@webdata/core/jobs"
import { Effect, Queue, Stream } from "effect"
import { newJob, tasks } from "../../core/test/jobs/conformance.js"
import { cleanUp, openStore, uniquePrefix } from "./support/redis.js"

const T0 = 1_700_000_000_000

type WorkEvent = Stream.Stream.Success<JobStoreShape["news"]>

/** The events `store` hears from now on, in a queue. */
const listen = (store: JobStoreShape) =>
  Effect.gen(function* () {
    const heard = yield* Queue.unbounded<WorkEvent>()
    yield* Effect.forkScoped(Stream.runForEach(store.news, (event) => Queue.offer(heard, event)))
    return heard
  })

const next = (heard: Queue.Queue<WorkEvent>) => Queue.take(heard).pipe(Effect.timeout("5 seconds"))

describe("Redis store news", () => {
  it.scopedLive(
    "a store on the same prefix hears new work and cancellations; one on another prefix hears nothing",
    () =>
      Effect.gen(function* () {
        const prefix = uniquePrefix()
        const otherPrefix = uniquePrefix()
        yield* cleanUp(prefix, otherPrefix)
        const writer = yield* openStore(prefix)
        const sameHeard = yield* listen(yield* openStore(prefix))
        const otherHeard = yield* listen(yield* openStore(otherPrefix))
        // The listening fibers attach to their connections' messages.
        yield* Effect.sleep("100 millis")

        const job = yield* writer.createJob(newJob(), tasks(2))
        expect(yield* next(sameHeard)).toEqual({ _tag: "WorkAdded" })
        yield* writer.cancelJob(job.id, T0 + 1)
        expect(yield* next(sameHeard)).toEqual({ _tag: "JobCancelled", jobId: job.id })

        // A job created without work and a cancellation of a stopped job are no news.
        yield* writer.createJob(newJob(), [])
        yield* writer.cancelJob(job.id, T0 + 2)
        yield* Effect.sleep("200 millis")
        expect(yield* Queue.size(sameHeard)).toBe(0)
        expect(yield* Queue.size(otherHeard)).toBe(0)
      }),
  )
})
