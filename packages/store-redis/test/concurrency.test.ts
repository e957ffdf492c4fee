/**
 * Several stores on one prefix, each with connections of its own, stand in for processes sharing one Redis: the
 * scripts must keep every guarantee of the port when their calls interleave.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JobStoreShape, Task } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { newJob, tasks } from "../../core/test/jobs/conformance.js"
import { cleanUp, openStore, uniquePrefix } from "./support/redis.js"

const T0 = 1_700_000_000_000

const openStores = (prefix: string, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => openStore(prefix))

describe("Redis store shared by several processes", () => {
  it.scopedLive(
    "four lease loops drain a 2 000-task job: each task once, finished once, maxConcurrency never exceeded",
    () =>
      Effect.gen(function* () {
        const prefix = uniquePrefix()
        yield* cleanUp(prefix)
        const stores = yield* openStores(prefix, 4)
        const maxConcurrency = 12
        const job = yield* stores[0]!.createJob(newJob({ maxConcurrency }), tasks(2_000))
        // Leases handed out and not yet given back, as the loops see them: a lower bound of the store's live leases
        // (a loop counts a task given back just before it sends it), so a peak above the bound is a real breach.
        let held = 0
        let peak = 0
        const loop = (store: JobStoreShape, worker: string) =>
          Effect.gen(function* () {
            const mine: Array<Task> = []
            let finished = 0
            for (;;) {
              const leased = yield* store.leaseTasks({ worker, now: T0, leaseMs: 600_000, max: 5 })
              held += leased.length
              peak = Math.max(peak, held)
              if (leased.length === 0) {
                const status = Option.getOrThrow(yield* store.getJob(job.id)).status
                if (status !== "scraping") return { mine, finished }
                yield* Effect.sleep("1 millis")
              }
              mine.push(...leased)
              for (const task of leased) {
                held -= 1
                const result = yield* store.completeTask(task, {
                  now: T0 + 1,
                  document: { url: task.url },
                  discovered: [],
                  robotsBlocked: [],
                })
                expect(result.recorded).toBe(true)
                if (result.finished) finished += 1
              }
            }
          })
        const results = yield* Effect.all(
          stores.map((store, i) => loop(store, `worker-${i}`)),
          { concurrency: "unbounded" },
        )
        const ids = results.flatMap((result) => result.mine.map((task) => task.id))
        expect(ids).toHaveLength(2_000)
        expect(new Set(ids).size).toBe(2_000)
        expect(results.every((result) => result.mine.length > 0)).toBe(true)
        expect(results.reduce((sum, result) => sum + result.finished, 0)).toBe(1)
        expect(peak).toBeGreaterThan(5)
        expect(peak).toBeLessThanOrEqual(maxConcurrency)
        expect(Option.getOrThrow(yield* stores[1]!.getJob(job.id))).toMatchObject({
          status: "completed",
          total: 2_000,
          completed: 2_000,
        })
        const documents = yield* stores[2]!.documents(job.id, { skip: 0, limit: 5_000 })
        expect(documents.map((document) => document.seq)).toEqual(Array.from({ length: 2_000 }, (_, i) => i))
      }),
    60_000,
  )

  it.scopedLive("200 adds to one counter from four processes answer each value once", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const stores = yield* openStores(prefix, 4)
      const answers = yield* Effect.all(
        Array.from({ length: 200 }, (_, i) => stores[i % 4]!.addToCounter("rate:hot", 1, T0 + 1000)),
        { concurrency: "unbounded" },
      )
      expect([...answers].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
      expect(yield* stores[3]!.readCounters(["rate:hot"])).toEqual([200])
    }),
  )

  it.scopedLive("of concurrent passes of one spaced gate from eight processes, exactly one gets through", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const stores = yield* openStores(prefix, 8)
      const passes = yield* Effect.all(
        stores.map((store) => store.passGates([{ key: "host example.test", spacingMs: 1000 }], T0)),
        { concurrency: "unbounded" },
      )
      expect(passes.filter(Option.isNone)).toHaveLength(1)
      expect(passes.filter(Option.isSome).map((closed) => closed.value)).toEqual(Array(7).fill(T0 + 1000))
    }),
  )
})
