/**
 * Several stores on one schema, each with a pool of its own: stand-ins for API and worker processes on several
 * machines. The port's promises must hold between them, not only between fibers of one process.
 */
import { it } from "@effect/vitest"
import type { JobStoreShape, Task } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { newJob, task, tasks } from "../../core/test/jobs/conformance.js"
import { raw, scopedSchema, storeIn } from "./support.js"

const T0 = 1_700_000_000_000

/** `count` stores on a fresh schema, opened at once (so their migrations race too). */
const processes = (count: number) =>
  Effect.flatMap(scopedSchema, (schema) =>
    Effect.map(
      Effect.all(
        Array.from({ length: count }, () => storeIn(schema, { poolSize: 3 })),
        { concurrency: "unbounded" },
      ),
      (stores) => ({ schema, stores }),
    ),
  )

describe("PostgreSQL store across processes", () => {
  it.scopedLive(
    "4 processes drain a 2 000-task job and a bounded job: each task once, finished once, maxConcurrency kept",
    () =>
      Effect.gen(function* () {
        const { stores } = yield* processes(4)
        const [first] = stores
        const big = yield* first!.createJob(newJob(), tasks(2_000))
        const bounded = yield* first!.createJob(newJob({ maxConcurrency: 3, createdAt: T0 + 1 }), tasks(200, "/b"))
        const leased: Array<string> = []
        const finished: Array<string> = []
        // Tasks of the bounded job held right now: each is under a live lease, so never more than its bound.
        let held = 0
        let mostHeld = 0
        const loop = (store: JobStoreShape, worker: string) =>
          Effect.gen(function* () {
            for (;;) {
              const batch = yield* store.leaseTasks({ worker, now: T0, leaseMs: 600_000, max: 4 })
              if (batch.length === 0) return
              const ofBounded = batch.filter((one) => one.jobId === bounded.id).length
              held += ofBounded
              mostHeld = Math.max(mostHeld, held)
              leased.push(...batch.map((one) => one.id))
              if (ofBounded > 0) yield* Effect.sleep("2 millis")
              for (const one of batch) {
                if (one.jobId === bounded.id) held -= 1
                const result = yield* store.completeTask(one, {
                  now: T0 + 1,
                  document: { url: one.url },
                  discovered: [],
                  robotsBlocked: [],
                })
                expect(result.recorded).toBe(true)
                if (result.finished) finished.push(one.jobId)
              }
            }
          })
        yield* Effect.all(
          stores.map((store, i) => loop(store, `w${i}`)),
          { concurrency: "unbounded" },
        )
        expect(leased).toHaveLength(2_200)
        expect(new Set(leased).size).toBe(2_200)
        expect(finished.sort()).toEqual([big.id, bounded.id].sort())
        expect(mostHeld).toBeLessThanOrEqual(3)
        for (const job of [big, bounded]) {
          const done = Option.getOrThrow(yield* first!.getJob(job.id))
          expect(done).toMatchObject({ status: "completed", completed: job.total, total: job.total })
          const docs = yield* first!.documents(job.id, { skip: 0, limit: 5_000 })
          expect(docs.map((doc) => doc.seq)).toEqual(Array.from({ length: job.total }, (_, i) => i))
        }
      }),
    120_000,
  )

  it.scopedLive("when two processes complete a job's last two tasks at once, exactly one finishes it", () =>
    Effect.gen(function* () {
      const {
        stores: [a, b],
      } = yield* processes(2)
      for (let round = 0; round < 25; round++) {
        const job = yield* a!.createJob(newJob({ url: `https://example.test/${round}` }), tasks(2))
        const [x] = yield* a!.leaseTasks({ worker: "a", now: T0, leaseMs: 60_000, max: 1 })
        const [y] = yield* b!.leaseTasks({ worker: "b", now: T0, leaseMs: 60_000, max: 1 })
        const done = (one: Task | undefined) => ({
          now: T0 + 1,
          document: { id: one!.id },
          discovered: [],
          robotsBlocked: [],
        })
        const results = yield* Effect.all([a!.completeTask(x!, done(x)), b!.completeTask(y!, done(y))], {
          concurrency: "unbounded",
        })
        expect(results.map((result) => result.recorded)).toEqual([true, true])
        expect(results.filter((result) => result.finished)).toHaveLength(1)
        expect(Option.getOrThrow(yield* a!.getJob(job.id))).toMatchObject({ status: "completed", completed: 2 })
      }
    }),
  )

  it.scopedLive("of concurrent passes of one spaced gate from 4 processes, exactly one gets through", () =>
    Effect.gen(function* () {
      const { stores } = yield* processes(4)
      for (let round = 0; round < 10; round++) {
        const now = T0 + round * 10_000
        const passes = yield* Effect.all(
          Array.from({ length: 16 }, (_, i) =>
            stores[i % 4]!.passGates(
              // Overlapping gate sets in either order: locked in key order, they queue and never deadlock.
              i % 2 === 0
                ? [
                    { key: "host example.test", spacingMs: 1000 },
                    { key: `job ${i}`, spacingMs: 500 },
                  ]
                : [
                    { key: `job ${i}`, spacingMs: 500 },
                    { key: "host example.test", spacingMs: 1000 },
                  ],
              now,
            ),
          ),
          { concurrency: "unbounded" },
        )
        expect(passes.filter(Option.isNone)).toHaveLength(1)
        expect(passes.filter(Option.isSome).map((closed) => closed.value)).toEqual(Array(15).fill(now + 1000))
      }
    }),
  )

  it.scopedLive("200 adds to one counter from 4 processes, while purges run, answer each value once", () =>
    Effect.gen(function* () {
      const { stores } = yield* processes(4)
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => `old ${i}`),
        (name) => stores[0]!.addToCounter(name, 1, T0 + 100),
      )
      const [answers, purges] = yield* Effect.all(
        [
          Effect.all(
            Array.from({ length: 200 }, (_, i) => stores[i % 4]!.addToCounter("rate:hot", 1, T0 + 1000)),
            { concurrency: "unbounded" },
          ),
          Effect.all([stores[1]!.purgeExpired(T0 + 100), stores[2]!.purgeExpired(T0 + 100)], {
            concurrency: "unbounded",
          }),
        ],
        { concurrency: "unbounded" },
      )
      expect([...answers].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
      expect(purges[0].counters + purges[1].counters).toBe(20)
      expect(yield* stores[3]!.readCounters(["rate:hot", "old 0", "old 19"])).toEqual([200, 0, 0])
    }),
  )

  it.scopedLive("concurrent outbox leases from 4 processes hand out each head once, one per job", () =>
    Effect.gen(function* () {
      const { stores } = yield* processes(4)
      for (let job = 0; job < 40; job++)
        for (const n of [1, 2])
          yield* stores[0]!.enqueueDelivery({ jobId: `job-${job}`, payload: { n }, createdAt: T0 })
      const leased = yield* Effect.all(
        stores.map((store, i) => store.leaseDeliveries({ worker: `w${i}`, now: T0, leaseMs: 60_000, max: 15 })),
        { concurrency: "unbounded" },
      )
      const all = leased.flat()
      expect(all).toHaveLength(40)
      expect(new Set(all.map((delivery) => delivery.jobId)).size).toBe(40)
      expect(all.every((delivery) => (delivery.payload as { n: number }).n === 1)).toBe(true)
    }),
  )

  it.scopedLive("a purge running while processes lease, complete and cancel leaves no trace of the purged jobs", () =>
    Effect.gen(function* () {
      const { schema, stores } = yield* processes(4)
      const [first] = stores
      const expiring = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) =>
          first!.createJob(newJob({ expiresAt: T0 + 100, url: `https://example.test/e${i}` }), tasks(40, `/e${i}-`)),
        ),
      )
      const work = (store: JobStoreShape, worker: string) =>
        Effect.gen(function* () {
          for (let i = 0; i < 20; i++) {
            for (const one of yield* store.leaseTasks({ worker, now: T0, leaseMs: 60_000, max: 4 })) {
              yield* store.completeTask(one, {
                now: T0 + 1,
                document: { url: one.url },
                discovered: [task(`${new URL(one.url).pathname}/more`)],
                robotsBlocked: [`${one.url}/private`],
              })
            }
          }
        })
      const purges = yield* Effect.all(
        [
          work(stores[0]!, "w0"),
          work(stores[1]!, "w1"),
          Effect.forEach(expiring, (job) => stores[2]!.cancelJob(job.id, T0 + 2), { discard: true }),
          Effect.map(
            Effect.all(
              [stores[3]!.purgeExpired(T0 + 100), stores[2]!.purgeExpired(T0 + 100), stores[3]!.purgeExpired(T0 + 100)],
              { concurrency: "unbounded" },
            ),
            (counts) => counts.reduce((sum, count) => sum + count.jobs, 0),
          ),
        ],
        { concurrency: "unbounded" },
      )
      expect(purges[3]).toBe(6)
      const left = yield* raw(
        (sql) =>
          sql<{ readonly n: string }>`
          SELECT (SELECT count(*) FROM ${sql(schema)}.tasks) + (SELECT count(*) FROM ${sql(schema)}.documents)
            + (SELECT count(*) FROM ${sql(schema)}.job_errors) + (SELECT count(*) FROM ${sql(schema)}.robots_blocked)
            + (SELECT count(*) FROM ${sql(schema)}.jobs) AS n`,
      )
      expect(Number(left[0]!.n)).toBe(0)
    }),
  )
})
