/**
 * The JobStore conformance suite: every store layer (memory, SQLite, later Postgres and Redis) runs it and must pass
 * all of it. `makeLayer` is called once per test and must give an empty store.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ScrapeCache } from "../../src/Cache/ScrapeCache.js"
import {
  type IndexedPage,
  type IndexSearch,
  type Job,
  JobStore,
  type JobStoreShape,
  type NewJob,
  type NewTask,
  type RecordQuery,
  type RecordWrite,
  type StoredRecord,
  StoreScrapeCache,
  type Task,
} from "../../src/Jobs/index.js"

const T0 = 1_700_000_000_000
const DAY = 24 * 60 * 60 * 1000

export const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  kind: "crawl",
  owner: "key-a",
  url: "https://example.test/",
  options: { includePaths: ["^/blog"], scrapeOptions: { formats: ["markdown"] } },
  limit: 10_000,
  zeroDataRetention: false,
  createdAt: T0,
  expiresAt: T0 + DAY,
  ...overrides,
})

export const task = (path: string, overrides: Partial<NewTask> = {}): NewTask => ({
  url: `https://example.test${path}`,
  key: `example.test${path}`,
  depth: 0,
  host: "example.test",
  ...overrides,
})

export const tasks = (count: number, prefix = "/p"): Array<NewTask> =>
  Array.from({ length: count }, (_, i) => task(`${prefix}${i}`))

const lease = (store: JobStoreShape, worker: string, now: number, max: number, leaseMs = 30_000) =>
  store.leaseTasks({ worker, now, leaseMs, max })

const done = (document: unknown = { markdown: "# page" }, now = T0 + 1) => ({
  now,
  document,
  discovered: [],
  robotsBlocked: [],
})

const failure = (now = T0 + 1) => ({
  now,
  error: { code: "SCRAPE_TIMEOUT", message: "timed out" },
  discovered: [],
  robotsBlocked: [],
})

const getJob = (store: JobStoreShape, id: string) => Effect.map(store.getJob(id), Option.getOrThrow)
const getTask = (store: JobStoreShape, id: string) => Effect.map(store.getTask(id), Option.getOrThrow)

export const runJobStoreConformance = (name: string, makeLayer: () => Layer.Layer<JobStore, unknown>): void => {
  /** Runs a test body against a fresh, empty store. */
  const withStore = <A, E>(body: (store: JobStoreShape) => Effect.Effect<A, E>) =>
    Effect.flatMap(JobStore, body).pipe(Effect.provide(makeLayer()))

  describe(`JobStore conformance: ${name}`, () => {
    describe("jobs", () => {
      it.effect("creates, reads and lists jobs", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const crawl = yield* store.createJob(
              newJob({ maxConcurrency: 3, delayMs: 500, webhook: { url: "https://hook.test/", events: ["page"] } }),
              [task("/")],
            )
            expect(crawl).toMatchObject({
              kind: "crawl",
              owner: "key-a",
              status: "scraping",
              url: "https://example.test/",
              limit: 10_000,
              maxConcurrency: 3,
              delayMs: 500,
              webhook: { url: "https://hook.test/", events: ["page"] },
              zeroDataRetention: false,
              total: 1,
              completed: 0,
              failed: 0,
              createdAt: T0,
              updatedAt: T0,
              expiresAt: T0 + DAY,
            })
            expect(crawl.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
            expect(crawl.completedAt).toBeUndefined()
            expect(yield* store.getJob(crawl.id)).toEqual(Option.some(crawl))
            expect(yield* store.getJob("0190f3a0-0000-7000-8000-000000000000")).toEqual(Option.none())

            const batch = yield* store.createJob(
              newJob({ kind: "batch", owner: null, createdAt: T0 + 1, zeroDataRetention: true }),
              [task("/a"), task("/b")],
            )
            const other = yield* store.createJob(newJob({ owner: "key-b", createdAt: T0 + 2 }), [task("/")])
            yield* store.cancelJob(other.id, T0 + 3)

            const ids = (jobs: ReadonlyArray<Job>) => jobs.map((job) => job.id)
            expect(ids(yield* store.listJobs({}))).toEqual([crawl.id, batch.id, other.id])
            expect(ids(yield* store.listJobs({ owner: "key-a" }))).toEqual([crawl.id])
            expect(ids(yield* store.listJobs({ owner: null }))).toEqual([batch.id])
            expect(ids(yield* store.listJobs({ kind: "batch" }))).toEqual([batch.id])
            expect(ids(yield* store.listJobs({ kind: "crawl", status: "scraping" }))).toEqual([crawl.id])
            expect(ids(yield* store.listJobs({ owner: "key-b", status: "cancelled" }))).toEqual([other.id])
            expect(ids(yield* store.listJobs({ owner: "key-c" }))).toEqual([])
          }),
        ),
      )

      it.effect("keeps a job of every kind, and lists each by its kind", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const kinds = ["crawl", "batch", "extract", "agent", "monitor", "llmstxt"] as const
            const made = yield* Effect.forEach(kinds, (kind, index) =>
              store.createJob(newJob({ kind, createdAt: T0 + index }), [task(`/${kind}`)]),
            )
            for (const [index, kind] of kinds.entries()) {
              expect(yield* store.getJob(made[index]!.id)).toEqual(Option.some(made[index]))
              expect((yield* store.listJobs({ kind })).map((job) => job.id)).toEqual([made[index]!.id])
            }
          }),
        ),
      )

      it.effect("stores options and webhook as JSON", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(
              newJob({ options: { a: 1, skip: undefined, nested: [true, null, "x"] }, webhook: "https://hook.test/" }),
              [task("/")],
            )
            const read = yield* getJob(store, job.id)
            expect(read.options).toEqual({ a: 1, nested: [true, null, "x"] })
            expect(Object.keys(read.options as object)).toEqual(["a", "nested"])
            expect(read.webhook).toBe("https://hook.test/")
            expect("maxConcurrency" in read).toBe(false)
            expect("webhook" in (yield* store.createJob(newJob(), [task("/")]))).toBe(false)
          }),
        ),
      )

      it.effect("admits seeds once per key and at most limit of them", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ limit: 3 }), [
              task("/a"),
              task("/a", { url: "https://example.test/a?dup" }),
              task("/b"),
              task("/c"),
              task("/d"),
            ])
            expect(job.total).toBe(3)
            const leased = yield* lease(store, "w1", T0, 10)
            expect(leased.map((t) => t.url)).toEqual([
              "https://example.test/a",
              "https://example.test/b",
              "https://example.test/c",
            ])
          }),
        ),
      )

      it.effect("a job created without any task is completed at once", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ kind: "batch" }), [])
            expect(job).toMatchObject({ status: "completed", total: 0, completedAt: T0 })
            expect(yield* lease(store, "w1", T0, 10)).toEqual([])
          }),
        ),
      )

      it.effect("creates a job under the caller's id, once: a second job with that id fails and writes nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const id = "0190f3a0-0000-7000-8000-00000000c0de"
            const job = yield* store.createJob(newJob({ id }), [task("/")])
            expect(job).toMatchObject({ id, status: "scraping", total: 1 })
            expect(yield* store.getJob(id)).toEqual(Option.some(job))
            const error = yield* Effect.flip(
              store.createJob(newJob({ id, owner: "key-b", createdAt: T0 + 1 }), [task("/other")]),
            )
            expect(error).toMatchObject({ _tag: "StoreError", reason: "InvalidData" })
            expect(yield* store.getJob(id)).toEqual(Option.some(job))
            expect((yield* store.listJobs({})).map((one) => one.id)).toEqual([id])
            expect((yield* lease(store, "w1", T0, 10)).map((one) => one.url)).toEqual(["https://example.test/"])
          }),
        ),
      )

      it.effect("cancel stops leasing and voids the leases in flight", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(4))
            const [inFlight] = yield* lease(store, "w1", T0, 1)
            const cancelled = yield* store.cancelJob(job.id, T0 + 5)
            expect(Option.getOrThrow(cancelled)).toMatchObject({ status: "cancelled", completedAt: T0 + 5 })
            expect(yield* lease(store, "w1", T0 + 10, 10)).toEqual([])
            expect(yield* lease(store, "w2", T0 + 10 * DAY, 10)).toEqual([])

            const late = yield* store.completeTask(inFlight!, done())
            expect(late.recorded).toBe(false)
            expect(late.finished).toBe(false)
            expect(Option.getOrThrow(late.job)).toMatchObject({ status: "cancelled", completed: 0 })
            expect(yield* store.countDocuments(job.id)).toBe(0)
            expect((yield* getTask(store, inFlight!.id)).status).toBe("cancelled")
            expect(yield* store.addTasks(job.id, [task("/new")], T0 + 11)).toBe(0)

            // Cancelling again, or cancelling a finished job, changes nothing.
            expect(Option.getOrThrow(yield* store.cancelJob(job.id, T0 + 20))).toMatchObject({
              status: "cancelled",
              completedAt: T0 + 5,
            })
            const finished = yield* store.createJob(newJob(), [])
            expect(Option.getOrThrow(yield* store.cancelJob(finished.id, T0 + 20)).status).toBe("completed")
            expect(yield* store.cancelJob("0190f3a0-0000-7000-8000-000000000000", T0)).toEqual(Option.none())
          }),
        ),
      )

      it.effect("failJob fails a running job with its error and cancels its tasks", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(3))
            const [leased] = yield* lease(store, "w1", T0, 1)
            const failed = Option.getOrThrow(yield* store.failJob(job.id, "robots.txt unreachable", T0 + 7))
            expect(failed).toMatchObject({ status: "failed", error: "robots.txt unreachable", completedAt: T0 + 7 })
            expect(yield* lease(store, "w1", T0 + 8, 10)).toEqual([])
            expect((yield* store.completeTask(leased!, done())).recorded).toBe(false)
            expect(Option.getOrThrow(yield* store.failJob(job.id, "again", T0 + 9)).error).toBe(
              "robots.txt unreachable",
            )
          }),
        ),
      )
    })

    describe("leases", () => {
      it.effect("leases due tasks in admission order, each once, until the lease expires", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(5))
            const first = yield* lease(store, "w1", T0, 2, 1000)
            expect(first.map((t) => t.url)).toEqual(["https://example.test/p0", "https://example.test/p1"])
            for (const leased of first) {
              expect(leased).toMatchObject({
                jobId: job.id,
                status: "leased",
                leaseOwner: "w1",
                leaseUntil: T0 + 1000,
                attempts: 0,
                depth: 0,
                host: "example.test",
              })
            }
            const second = yield* lease(store, "w2", T0 + 999, 10, 1000)
            expect(second.map((t) => t.url)).toEqual([
              "https://example.test/p2",
              "https://example.test/p3",
              "https://example.test/p4",
            ])
            expect(yield* lease(store, "w2", T0 + 999, 10)).toEqual([])
            // w1 died: its leases run out at T0 + 1000 and come back, counting an attempt.
            const again = yield* lease(store, "w3", T0 + 1000, 10, 1000)
            expect(again.map((t) => [t.id, t.attempts, t.leaseOwner])).toEqual(first.map((t) => [t.id, 1, "w3"]))
            expect(yield* lease(store, "w3", T0 + 1000, 10)).toEqual([])
            expect(yield* lease(store, "w3", T0 + 1000, 0)).toEqual([])
          }),
        ),
      )

      it.effect("does not lease a task before its notBefore, and serves the earliest due first", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.createJob(newJob(), [
              task("/late", { notBefore: T0 + 500 }),
              task("/now"),
              task("/soon", { notBefore: T0 + 100 }),
            ])
            expect((yield* lease(store, "w1", T0, 10)).map((t) => t.url)).toEqual(["https://example.test/now"])
            expect(yield* lease(store, "w1", T0 + 99, 10)).toEqual([])
            expect((yield* lease(store, "w1", T0 + 1000, 10)).map((t) => t.url)).toEqual([
              "https://example.test/soon",
              "https://example.test/late",
            ])
          }),
        ),
      )

      it.effect("never holds more live leases per job than its maxConcurrency", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.createJob(newJob({ maxConcurrency: 2 }), tasks(6))
            const first = yield* lease(store, "w1", T0, 10, 1000)
            expect(first).toHaveLength(2)
            expect(yield* lease(store, "w1", T0 + 1, 10)).toEqual([])
            yield* store.completeTask(first[0]!, done())
            expect(yield* lease(store, "w1", T0 + 2, 10, 1000)).toHaveLength(1)
            expect(yield* lease(store, "w1", T0 + 3, 10)).toEqual([])
            // Expired leases are not live: at T0 + 1000 first[1]'s lease runs out (the other one lives on), which
            // frees one slot; once every lease has run out, two.
            expect(yield* lease(store, "w2", T0 + 1000, 10, 1000)).toHaveLength(1)
            expect(yield* lease(store, "w2", T0 + 1001, 10)).toEqual([])
            expect(yield* lease(store, "w2", T0 + 5000, 10, 1000)).toHaveLength(2)
          }),
        ),
      )

      it.effect("serves jobs fairly: a huge crawl does not starve a small batch", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const big = yield* store.createJob(newJob(), tasks(200))
            const small = yield* store.createJob(newJob({ kind: "batch", createdAt: T0 + 1 }), tasks(3, "/s"))
            const mixed = yield* lease(store, "w1", T0, 4)
            expect(mixed.filter((t) => t.jobId === big.id)).toHaveLength(2)
            expect(mixed.filter((t) => t.jobId === small.id)).toHaveLength(2)
            // One slot at a time: the jobs take turns.
            const turns: Array<string> = []
            for (let i = 0; i < 4; i++) turns.push(...(yield* lease(store, "w1", T0, 1)).map((t) => t.jobId))
            expect(turns).toEqual([big.id, small.id, big.id, big.id])
            // Leftover slots go to the job that has more work.
            expect(yield* lease(store, "w1", T0, 10)).toHaveLength(10)
          }),
        ),
      )

      it.effect("serves owners fairly: a tenant flooding the queue does not starve another", () =>
        withStore((store) =>
          Effect.gen(function* () {
            // Tenant A's thirty crawls first in line, then one of the open server's (no owner is an owner too).
            const flood = yield* Effect.forEach(
              Array.from({ length: 30 }, (_, i) => i),
              (i) => store.createJob(newJob({ owner: "key-a", createdAt: T0 + i }), tasks(10, `/a${i}-`)),
            )
            const other = yield* store.createJob(newJob({ owner: null, createdAt: T0 + 30 }), tasks(10, "/b"))
            // Rounds of leasing 8 and completing them: B's crawl gets half of each, so it finishes in the third
            // round rather than after A's 300 tasks.
            let rounds = 0
            while ((yield* getJob(store, other.id)).status === "scraping") {
              rounds += 1
              expect(rounds).toBeLessThanOrEqual(3)
              const leased = yield* lease(store, "w1", T0 + rounds, 8)
              expect(leased).toHaveLength(8)
              if (rounds < 3) expect(leased.filter((t) => t.jobId === other.id).length).toBeGreaterThanOrEqual(4)
              for (const one of leased) yield* store.completeTask(one, done(undefined, T0 + rounds))
            }
            expect(rounds).toBe(3)
            // A kept all its work but the slots B left: its jobs are all still running.
            const flooded = yield* Effect.forEach(flood, (job) => getJob(store, job.id))
            expect(flooded.filter((job) => job.status === "scraping")).toHaveLength(30)
            expect(flooded.reduce((n, job) => n + job.completed, 0)).toBe(24 - 10)
          }),
        ),
      )

      it.effect("one slot at a time, owners take turns however many jobs each has", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const flood = yield* Effect.forEach(
              Array.from({ length: 5 }, (_, i) => i),
              (i) => store.createJob(newJob({ owner: "key-a", createdAt: T0 + i }), tasks(3, `/a${i}-`)),
            )
            yield* store.createJob(newJob({ owner: "key-b", createdAt: T0 + 5 }), tasks(3, "/b"))
            const floodIds = new Set(flood.map((job) => job.id))
            const owners: Array<string> = []
            for (let i = 0; i < 6; i++)
              owners.push(...(yield* lease(store, "w1", T0, 1)).map((t) => (floodIds.has(t.jobId) ? "a" : "b")))
            expect(owners).toHaveLength(6)
            expect(owners.filter((owner) => owner === "b")).toHaveLength(3)
            for (let i = 1; i < owners.length; i++) expect(owners[i]).not.toBe(owners[i - 1])
          }),
        ),
      )

      it.effect("renewLease extends a lease its holder still has", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.createJob(newJob(), tasks(1))
            const [leased] = yield* lease(store, "w1", T0, 1, 1000)
            const renewed = Option.getOrThrow(yield* store.renewLease(leased!, T0 + 5000))
            expect(renewed).toMatchObject({ id: leased!.id, leaseOwner: "w1", leaseUntil: T0 + 5000 })
            expect(yield* lease(store, "w2", T0 + 4999, 10)).toEqual([])
            // The old lease is gone: only the renewed one completes.
            expect(yield* store.renewLease(leased!, T0 + 9000)).toEqual(Option.none())
            expect((yield* store.completeTask(leased!, done())).recorded).toBe(false)
            expect((yield* store.completeTask(renewed, done())).recorded).toBe(true)
          }),
        ),
      )

      it.effect("lists a host's lease holders and ends the leases of gone ones at once", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.createJob(newJob(), tasks(4))
            const dead = yield* lease(store, "host-a|1|x", T0, 2, 60_000)
            const [alive] = yield* lease(store, "host-a|2|y", T0, 1, 60_000)
            yield* lease(store, "host-b|1|z", T0, 1, 60_000)
            expect([...(yield* store.leaseHolders("host-a|"))].sort()).toEqual(["host-a|1|x", "host-a|2|y"])
            expect(yield* store.leaseHolders("host-c|")).toEqual([])

            expect(yield* store.expireLeases(["host-a|1|x"], T0 + 10)).toBe(2)
            expect(yield* store.expireLeases([], T0 + 10)).toBe(0)
            // Due at once, long before the 60 s lease would have run out; taking them again counts an attempt.
            const retaken = yield* lease(store, "host-a|3|w", T0 + 10, 10)
            expect(retaken.map((task) => task.id).sort()).toEqual(dead.map((task) => task.id).sort())
            expect(retaken.every((task) => task.attempts === 1)).toBe(true)
            // The gone holder can no longer record; the live one and the new one can.
            expect((yield* store.completeTask(dead[0]!, done())).recorded).toBe(false)
            expect((yield* store.completeTask(alive!, done())).recorded).toBe(true)
            expect((yield* store.completeTask(retaken[0]!, done())).recorded).toBe(true)
            expect(yield* store.leaseHolders("host-a|")).toEqual(["host-a|3|w"])
          }),
        ),
      )

      it.effect("concurrent fibers leasing at once never get the same task", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ maxConcurrency: 50 }), tasks(300))
            const worker = (name: string) =>
              Effect.gen(function* () {
                const mine: Array<Task> = []
                let finished = 0
                for (;;) {
                  const leased = yield* lease(store, name, T0, 3)
                  if (leased.length === 0) return { mine, finished }
                  mine.push(...leased)
                  for (const one of leased) {
                    yield* Effect.yieldNow()
                    const result = yield* store.completeTask(one, done({ url: one.url }))
                    expect(result.recorded).toBe(true)
                    if (result.finished) finished += 1
                  }
                }
              })
            const results = yield* Effect.all(
              Array.from({ length: 12 }, (_, i) => worker(`w${i}`)),
              { concurrency: "unbounded" },
            )
            const ids = results.flatMap((r) => r.mine.map((t) => t.id))
            expect(ids).toHaveLength(300)
            expect(new Set(ids).size).toBe(300)
            expect(results.filter((r) => r.mine.length > 0).length).toBeGreaterThan(1)
            expect(results.reduce((n, r) => n + r.finished, 0)).toBe(1)
            expect(yield* getJob(store, job.id)).toMatchObject({ status: "completed", completed: 300, total: 300 })
            const docs = yield* store.documents(job.id, { skip: 0, limit: 1000 })
            expect(docs.map((d) => d.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i))
          }),
        ),
      )
    })

    describe("completing tasks", () => {
      it.effect("records a task exactly once", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(2))
            const [leased] = yield* lease(store, "w1", T0, 1)
            const first = yield* store.completeTask(leased!, done({ markdown: "one" }, T0 + 10))
            expect(first).toMatchObject({ recorded: true, finished: false })
            expect(Option.getOrThrow(first.job)).toMatchObject({
              completed: 1,
              failed: 0,
              total: 2,
              updatedAt: T0 + 10,
            })
            const second = yield* store.completeTask(leased!, done({ markdown: "two" }, T0 + 11))
            expect(second.recorded).toBe(false)
            expect(Option.getOrThrow(second.job)).toMatchObject({ completed: 1, updatedAt: T0 + 10 })
            expect(yield* store.retryTask(leased!, { notBefore: T0 })).toBe(false)
            expect(yield* store.deferTask(leased!, T0)).toBe(false)
            const docs = yield* store.documents(job.id, { skip: 0, limit: 10 })
            // `json` is the stored text, for the stores that keep one (checked below).
            expect(docs.map(({ json: _, ...doc }) => doc)).toEqual([
              { jobId: job.id, seq: 0, url: leased!.url, document: { markdown: "one" }, createdAt: T0 + 10 },
            ])
            expect((yield* getTask(store, leased!.id)).status).toBe("done")
          }),
        ),
      )

      it.effect("a document's stored JSON text, when a store gives one, is the document's", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [leased] = yield* lease(store, "w1", T0, 1, 1000)
            const document = {
              markdown: 'quote " slash \\ </script> é 🌊 \u2028',
              n: [1.5, -0, 1e21],
              nested: { a: null },
            }
            expect((yield* store.completeTask(leased!, done(document))).recorded).toBe(true)
            const [stored] = yield* store.documents(job.id, { skip: 0, limit: 10 })
            expect(stored?.document).toEqual(JSON.parse(JSON.stringify(document)))
            if (stored?.json !== undefined) expect(JSON.parse(stored.json)).toEqual(stored.document)
          }),
        ),
      )

      it.effect("a late finisher whose lease moved to another worker records nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [slow] = yield* lease(store, "w1", T0, 1, 1000)
            const [retaken] = yield* lease(store, "w2", T0 + 1000, 1, 1000)
            expect(retaken!.id).toBe(slow!.id)
            const late = yield* store.completeTask(slow!, done({ by: "w1" }))
            expect(late.recorded).toBe(false)
            expect(yield* store.countDocuments(job.id)).toBe(0)
            const onTime = yield* store.completeTask(retaken!, done({ by: "w2" }, T0 + 1500))
            expect(onTime).toMatchObject({ recorded: true, finished: true })
            expect((yield* store.documents(job.id, { skip: 0, limit: 10 })).map((d) => d.document)).toEqual([
              { by: "w2" },
            ])
            // The same worker re-leasing its own expired task gets a new lease: the old one is void.
            const job2 = yield* store.createJob(newJob(), tasks(1))
            const [old] = yield* lease(store, "w1", T0, 1, 1000)
            const [fresh] = yield* lease(store, "w1", T0 + 2000, 1, 1000)
            expect(fresh!.id).toBe(old!.id)
            expect((yield* store.completeTask(old!, done())).recorded).toBe(false)
            expect((yield* store.completeTask(fresh!, done())).recorded).toBe(true)
            expect(yield* store.countDocuments(job2.id)).toBe(1)
          }),
        ),
      )

      it.effect("a holder whose lease ran out may still complete while nobody took the task", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [leased] = yield* lease(store, "w1", T0, 1, 1000)
            const result = yield* store.completeTask(leased!, done(undefined, T0 + 5000))
            expect(result).toMatchObject({ recorded: true, finished: true })
            expect(yield* store.countDocuments(job.id)).toBe(1)
          }),
        ),
      )

      it.effect("admits discovered tasks once per key, within the job's limit", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ limit: 4 }), [task("/")])
            const [root] = yield* lease(store, "w1", T0, 1)
            const result = yield* store.completeTask(root!, {
              now: T0 + 1,
              document: { markdown: "root" },
              discovered: [
                task("/", { depth: 1 }),
                task("/a", { depth: 1 }),
                task("/a", { depth: 1, url: "https://example.test/a#x" }),
                task("/b", { depth: 1, host: "b.example.test" }),
                task("/c", { depth: 1 }),
                task("/d", { depth: 1 }),
              ],
              robotsBlocked: [],
            })
            expect(result).toMatchObject({ recorded: true, finished: false })
            expect(Option.getOrThrow(result.job)).toMatchObject({ total: 4, completed: 1 })
            const next = yield* lease(store, "w1", T0 + 2, 10)
            expect(next.map((t) => [t.url, t.depth, t.host])).toEqual([
              ["https://example.test/a", 1, "example.test"],
              ["https://example.test/b", 1, "b.example.test"],
              ["https://example.test/c", 1, "example.test"],
            ])
            // The job is full: nothing more gets in, seen or not.
            const more = yield* store.completeTask(next[0]!, {
              ...done(),
              discovered: [task("/e", { depth: 2 }), task("/a", { depth: 2 })],
            })
            expect(Option.getOrThrow(more.job).total).toBe(4)
            expect(yield* store.addTasks(job.id, [task("/f")], T0 + 3)).toBe(0)
            expect(yield* lease(store, "w1", T0 + 3, 10)).toEqual([])
          }),
        ),
      )

      it.effect("the job completes exactly when its last task finishes", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), [task("/")])
            const [root] = yield* lease(store, "w1", T0, 1)
            const first = yield* store.completeTask(root!, { ...done(), discovered: [task("/a"), task("/b")] })
            expect(first.finished).toBe(false)
            const [a, b] = yield* lease(store, "w1", T0 + 2, 10)
            expect(Option.getOrThrow((yield* store.completeTask(a!, done(undefined, T0 + 3))).job).status).toBe(
              "scraping",
            )
            // A leased task keeps the job open even when nothing is pending.
            expect((yield* getJob(store, job.id)).status).toBe("scraping")
            const last = yield* store.completeTask(b!, failure(T0 + 4))
            expect(last.recorded).toBe(true)
            expect(last.finished).toBe(true)
            expect(Option.getOrThrow(last.job)).toMatchObject({
              status: "completed",
              completedAt: T0 + 4,
              total: 3,
              completed: 2,
              failed: 1,
            })
            expect(yield* getJob(store, job.id)).toEqual(Option.getOrThrow(last.job))
          }),
        ),
      )

      it.effect("the job completes when every task fails", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ kind: "batch" }), tasks(3))
            const leased = yield* lease(store, "w1", T0, 10)
            const finished: Array<boolean> = []
            for (const one of leased) finished.push((yield* store.completeTask(one, failure())).finished)
            expect(finished).toEqual([false, false, true])
            expect(yield* getJob(store, job.id)).toMatchObject({ status: "completed", completed: 0, failed: 3 })
            const { errors } = yield* store.errors(job.id)
            expect(errors.map((e) => [e.id, e.url, e.code])).toEqual(leased.map((t) => [t.id, t.url, "SCRAPE_TIMEOUT"]))
            expect((yield* getTask(store, leased[0]!.id)).status).toBe("failed")
          }),
        ),
      )

      it.effect("a task finished without document or error counts in neither", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [leased] = yield* lease(store, "w1", T0, 1)
            const result = yield* store.completeTask(leased!, {
              now: T0 + 1,
              discovered: [],
              robotsBlocked: [leased!.url],
            })
            expect(Option.getOrThrow(result.job)).toMatchObject({
              status: "completed",
              total: 1,
              completed: 0,
              failed: 0,
            })
            expect((yield* store.errors(job.id)).robotsBlocked).toEqual([leased!.url])
          }),
        ),
      )

      it.effect("a document that is not JSON fails the call and writes nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [leased] = yield* lease(store, "w1", T0, 1)
            const error = yield* Effect.flip(
              store.completeTask(leased!, { ...done({ size: 10n }), discovered: [task("/x")] }),
            )
            expect(error).toMatchObject({ _tag: "StoreError", reason: "InvalidData" })
            expect(yield* getJob(store, job.id)).toMatchObject({ total: 1, completed: 0, status: "scraping" })
            expect((yield* getTask(store, leased!.id)).status).toBe("leased")
            expect((yield* store.completeTask(leased!, done())).recorded).toBe(true)
          }),
        ),
      )
    })

    describe("retries and deferrals", () => {
      it.effect("retryTask burns an attempt, deferTask does not; both wait for notBefore", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.createJob(newJob(), tasks(1))
            const [first] = yield* lease(store, "w1", T0, 1)
            const error = { code: "SCRAPE_CONNECTION", message: "reset" }
            expect(yield* store.retryTask(first!, { notBefore: T0 + 2000, error })).toBe(true)
            expect(yield* getTask(store, first!.id)).toMatchObject({
              status: "pending",
              attempts: 1,
              notBefore: T0 + 2000,
              lastError: error,
            })
            expect(yield* store.retryTask(first!, { notBefore: T0 })).toBe(false)
            expect(yield* lease(store, "w1", T0 + 1999, 1)).toEqual([])
            const [second] = yield* lease(store, "w1", T0 + 2000, 1)
            expect(second).toMatchObject({ id: first!.id, attempts: 1, leaseOwner: "w1" })
            expect(yield* store.deferTask(second!, T0 + 5000)).toBe(true)
            expect(yield* store.deferTask(second!, T0)).toBe(false)
            expect(yield* lease(store, "w1", T0 + 4999, 1)).toEqual([])
            const [third] = yield* lease(store, "w2", T0 + 5000, 1)
            expect(third).toMatchObject({ id: first!.id, attempts: 1, leaseOwner: "w2", lastError: error })
            expect((yield* store.completeTask(third!, done())).finished).toBe(true)
          }),
        ),
      )
    })

    describe("pending work", () => {
      it.effect("counts due tasks and expired leases of running jobs, and finds the next pending one", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* store.pendingWork(T0)).toEqual({ due: 0, nextDue: Option.none() })
            const running = yield* store.createJob(newJob(), [
              ...tasks(3),
              task("/later", { notBefore: T0 + 5000 }),
              task("/soon", { notBefore: T0 + 2000 }),
            ])
            const other = yield* store.createJob(newJob({ owner: "key-b" }), [task("/x", { notBefore: T0 + 9000 })])
            const cancelled = yield* store.createJob(newJob(), [task("/y"), task("/z", { notBefore: T0 + 1000 })])
            yield* store.cancelJob(cancelled.id, T0)
            expect(yield* store.pendingWork(T0)).toEqual({ due: 3, nextDue: Option.some(T0 + 2000) })
            // A live lease is its holder's: counted neither as due nor as next.
            const [held] = yield* lease(store, "w1", T0, 1, 1000)
            expect(held?.jobId).toBe(running.id)
            expect(yield* store.pendingWork(T0)).toEqual({ due: 2, nextDue: Option.some(T0 + 2000) })
            // Once it runs out, it is due again; so is "/soon".
            expect(yield* store.pendingWork(T0 + 2000)).toEqual({ due: 4, nextDue: Option.some(T0 + 5000) })
            yield* store.cancelJob(running.id, T0 + 2000)
            expect(yield* store.pendingWork(T0 + 2000)).toEqual({ due: 0, nextDue: Option.some(T0 + 9000) })
            expect(yield* store.pendingWork(T0 + 9000)).toEqual({ due: 1, nextDue: Option.none() })
            expect(other.status).toBe("scraping")
          }),
        ),
      )
    })

    describe("adding tasks", () => {
      it.effect("addTasks dedups, respects the limit and reopens a completed job", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ kind: "batch", limit: 4 }), [task("/a")])
            expect(yield* store.addTasks(job.id, [task("/a"), task("/b"), task("/b"), task("/c")], T0 + 1)).toBe(2)
            expect(yield* getJob(store, job.id)).toMatchObject({ total: 3, updatedAt: T0 + 1 })
            for (const one of yield* lease(store, "w1", T0 + 2, 10)) yield* store.completeTask(one, done())
            expect(yield* getJob(store, job.id)).toMatchObject({ status: "completed", total: 3 })
            expect(yield* store.addTasks(job.id, [task("/c")], T0 + 3)).toBe(0)
            expect((yield* getJob(store, job.id)).status).toBe("completed")
            expect(yield* store.addTasks(job.id, [task("/d"), task("/e")], T0 + 4)).toBe(1)
            const reopened = yield* getJob(store, job.id)
            expect(reopened).toMatchObject({ status: "scraping", total: 4, updatedAt: T0 + 4 })
            expect(reopened.completedAt).toBeUndefined()
            const [d] = yield* lease(store, "w1", T0 + 5, 10)
            expect(d!.url).toBe("https://example.test/d")
            expect((yield* store.completeTask(d!, done())).finished).toBe(true)
            expect(yield* store.addTasks("0190f3a0-0000-7000-8000-000000000000", [task("/z")], T0)).toBe(0)
          }),
        ),
      )
    })

    describe("results", () => {
      it.effect("pages documents in seq order", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(7))
            const leased = yield* lease(store, "w1", T0, 10)
            for (const [i, one] of leased.entries()) {
              if (i === 3) yield* store.completeTask(one, failure())
              else yield* store.completeTask(one, done({ n: i }, T0 + i))
            }
            expect(yield* store.countDocuments(job.id)).toBe(6)
            const page = (skip: number, limit: number) =>
              Effect.map(store.documents(job.id, { skip, limit }), (docs) => docs.map((d) => [d.seq, d.document]))
            expect(yield* page(0, 2)).toEqual([
              [0, { n: 0 }],
              [1, { n: 1 }],
            ])
            expect(yield* page(2, 2)).toEqual([
              [2, { n: 2 }],
              [3, { n: 4 }],
            ])
            expect(yield* page(4, 100)).toEqual([
              [4, { n: 5 }],
              [5, { n: 6 }],
            ])
            expect(yield* page(6, 100)).toEqual([])
            expect(yield* page(0, 0)).toEqual([])
            expect(yield* store.documents("0190f3a0-0000-7000-8000-000000000000", { skip: 0, limit: 10 })).toEqual([])
            expect(yield* store.countDocuments("0190f3a0-0000-7000-8000-000000000000")).toBe(0)
          }),
        ),
      )

      it.effect("reads now, where the store offers it, what getJob and documents read", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const reads = store.readNow
            if (reads === undefined) return
            const job = yield* store.createJob(newJob(), tasks(4))
            const leased = yield* lease(store, "w1", T0, 10)
            for (const [i, one] of leased.entries()) yield* store.completeTask(one, done({ n: i, text: "é\n" }, T0 + i))
            yield* store.deleteDocuments(job.id, 1)
            // Everything a status shows; `options` and `webhook` may be left out.
            const { options: _, webhook: __, ...head } = Option.getOrThrow(yield* store.getJob(job.id))
            expect(reads.job(job.id)).toMatchObject(head)
            expect(reads.job("0190f3a0-0000-7000-8000-000000000000")).toBeUndefined()
            for (const [skip, limit] of [
              [0, 10],
              [2, 1],
              [4, 10],
            ] as const) {
              const texts = reads.documentTexts(job.id, { skip, limit })
              const documents = yield* store.documents(job.id, { skip, limit })
              expect(texts.map((text) => [text.seq, JSON.parse(text.json)])).toEqual(
                documents.map((document) => [document.seq, document.document]),
              )
            }
          }),
        ),
      )

      it.effect("deletes delivered documents, keeping the seq of the rest", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(5))
            const leased = yield* lease(store, "w1", T0, 10)
            for (const [i, one] of leased.entries()) yield* store.completeTask(one, done({ n: i }, T0 + i))
            expect(yield* store.deleteDocuments(job.id, 2)).toBe(2)
            expect(yield* store.deleteDocuments(job.id, 2)).toBe(0)
            expect(yield* store.countDocuments(job.id)).toBe(3)
            const seqs = (skip: number) =>
              Effect.map(store.documents(job.id, { skip, limit: 10 }), (d) => d.map((x) => x.seq))
            expect(yield* seqs(0)).toEqual([2, 3, 4])
            expect(yield* seqs(3)).toEqual([3, 4])
            expect(yield* store.deleteDocuments(job.id, 100)).toBe(3)
            expect(yield* seqs(0)).toEqual([])
            expect(Option.getOrThrow(yield* store.getJob(job.id)).completed).toBe(5)
            expect(yield* store.deleteDocuments("0190f3a0-0000-7000-8000-000000000000", 5)).toBe(0)
          }),
        ),
      )

      it.effect("keeps errors in order and robots-blocked URLs once each", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(3))
            const [a, b, c] = yield* lease(store, "w1", T0, 10)
            yield* store.completeTask(a!, {
              ...done(),
              robotsBlocked: ["https://example.test/private", "https://example.test/admin"],
            })
            yield* store.completeTask(b!, {
              now: T0 + 20,
              error: { code: "SCRAPE_DNS_RESOLUTION_ERROR", message: "no such host" },
              discovered: [],
              robotsBlocked: ["https://example.test/admin", "https://example.test/secret"],
            })
            yield* store.completeTask(c!, failure(T0 + 30))
            const { errors, robotsBlocked } = yield* store.errors(job.id)
            expect(errors).toEqual([
              {
                id: b!.id,
                jobId: job.id,
                url: b!.url,
                code: "SCRAPE_DNS_RESOLUTION_ERROR",
                message: "no such host",
                at: T0 + 20,
              },
              { id: c!.id, jobId: job.id, url: c!.url, code: "SCRAPE_TIMEOUT", message: "timed out", at: T0 + 30 },
            ])
            expect(robotsBlocked).toEqual([
              "https://example.test/private",
              "https://example.test/admin",
              "https://example.test/secret",
            ])
            expect(yield* store.errors("0190f3a0-0000-7000-8000-000000000000")).toEqual({
              errors: [],
              robotsBlocked: [],
            })
          }),
        ),
      )

      it.effect("stores scrapes by id", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const scrape = { id: "s-1", owner: "key-a", document: { markdown: "# hi" }, expiresAt: T0 + DAY }
            yield* store.putScrape(scrape)
            yield* store.putScrape({ id: "s-2", owner: null, document: [1, 2], expiresAt: T0 })
            expect(yield* store.getScrape("s-1")).toEqual(Option.some(scrape))
            expect(yield* store.getScrape("s-2")).toEqual(
              Option.some({ id: "s-2", owner: null, document: [1, 2], expiresAt: T0 }),
            )
            yield* store.putScrape({ ...scrape, document: { markdown: "# replaced" } })
            expect(Option.getOrThrow(yield* store.getScrape("s-1")).document).toEqual({ markdown: "# replaced" })
            expect(yield* store.getScrape("s-3")).toEqual(Option.none())
          }),
        ),
      )

      it.effect("stores a scrape's JSON as the caller gives it, not made again", () =>
        withStore((store) =>
          Effect.gen(function* () {
            // The text says more than the value: what is read back shows which of the two was written.
            const documentJson = JSON.stringify({ markdown: "# hi", fromText: true })
            yield* store.putScrape({
              id: "s-json",
              owner: null,
              document: { markdown: "# hi" },
              documentJson,
              expiresAt: T0 + DAY,
            })
            expect(Option.getOrThrow(yield* store.getScrape("s-json")).document).toEqual({
              markdown: "# hi",
              fromText: true,
            })
          }),
        ),
      )

      it.effect("keeps browser profiles by owner and name", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const state = { cookies: [{ name: "seen", value: "1" }], origins: [] }
            expect(yield* store.getProfile("key-a", "shop")).toEqual(Option.none())
            yield* store.putProfile("key-a", "shop", state)
            yield* store.putProfile(null, "shop", { cookies: [] })
            expect(yield* store.getProfile("key-a", "shop")).toEqual(Option.some(state))
            expect(yield* store.getProfile("key-b", "shop")).toEqual(Option.none())
            expect(yield* store.getProfile(null, "shop")).toEqual(Option.some({ cookies: [] }))
            yield* store.putProfile("key-a", "shop", { cookies: [], origins: [{ origin: "x" }] })
            expect(yield* store.getProfile("key-a", "shop")).toEqual(
              Option.some({ cookies: [], origins: [{ origin: "x" }] }),
            )
          }),
        ),
      )

      it.effect("caches pages, also behind the ScrapeCache port", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const page = {
              url: "https://example.test/final",
              statusCode: 200,
              contentType: "text/html; charset=utf-8",
              body: "<h1>héllo</h1>",
              cachedAt: T0,
            }
            expect(yield* store.cacheGet("https://example.test/")).toEqual(Option.none())
            yield* store.cacheSet("https://example.test/", page)
            expect(yield* store.cacheGet("https://example.test/")).toEqual(Option.some(page))
            const noType = { ...page, contentType: undefined, cachedAt: T0 + 5 }
            yield* store.cacheSet("https://example.test/", noType)
            expect(yield* store.cacheGet("https://example.test/")).toEqual(Option.some(noType))

            const cache = yield* Effect.provide(
              ScrapeCache,
              StoreScrapeCache.layerFromJobStore.pipe(Layer.provide(Layer.succeed(JobStore, store))),
            )
            yield* cache.set("https://example.test/other", { ...page, body: "other" })
            expect(Option.getOrThrow(yield* store.cacheGet("https://example.test/other")).body).toBe("other")
            expect(Option.getOrThrow(yield* cache.get("https://example.test/")).cachedAt).toBe(T0 + 5)
            expect(yield* cache.get("https://example.test/missing")).toEqual(Option.none())
          }),
        ),
      )
    })

    describe("search index", () => {
      const page = (path: string, overrides: Partial<IndexedPage> = {}): IndexedPage => ({
        owner: "key-a",
        url: `https://example.test${path}`,
        title: `Title of ${path}`,
        description: `About ${path}`,
        content: `# ${path}\n\nThe text of ${path}.`,
        scrapedAt: T0,
        ...overrides,
      })
      const find = (store: JobStoreShape, terms: ReadonlyArray<string>, search: Partial<IndexSearch> = {}) =>
        store.searchIndex({
          terms,
          match: "all",
          prefixLast: false,
          owner: "key-a",
          newestFirst: false,
          offset: 0,
          limit: 10,
          ...search,
        })
      const paths = (pages: ReadonlyArray<IndexedPage>) => pages.map((found) => new URL(found.url).pathname)

      it.effect("indexPage replaces the page of the same owner and URL", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* find(store, ["kettle"])).toEqual([])
            yield* store.indexPage(page("/a", { content: "A copper kettle." }))
            const { title: _, description: __, ...untitled } = page("/b", { content: "A steel kettle." })
            yield* store.indexPage(untitled)
            const both = yield* find(store, ["kettle"])
            expect(both.find((found) => found.url.endsWith("/a"))).toEqual(page("/a", { content: "A copper kettle." }))
            const b = both.find((found) => found.url.endsWith("/b"))
            expect(b).not.toHaveProperty("title")
            expect(b).not.toHaveProperty("description")

            // The newest version wins: its old words find it no more.
            yield* store.indexPage(page("/a", { title: "New title", content: "A copper teapot.", scrapedAt: T0 + 5 }))
            expect(paths(yield* find(store, ["kettle"]))).toEqual(["/b"])
            expect(yield* find(store, ["teapot"])).toEqual([
              page("/a", { title: "New title", content: "A copper teapot.", scrapedAt: T0 + 5 }),
            ])
          }),
        ),
      )

      it.effect("finds pages with every term or with any, the last term as a prefix, best first", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.indexPage(page("/body", { title: "Kitchen", content: "Among the things, one kettle." }))
            yield* store.indexPage(page("/title", { title: "Kettle", content: "Boils water fast." }))
            yield* store.indexPage(page("/both", { title: "Copper", content: "A copper kettle and more copper." }))
            yield* store.indexPage(page("/other", { title: "Teapot", content: "Nothing to boil." }))
            const kettles = yield* find(store, ["kettle"])
            expect(paths(kettles).sort()).toEqual(["/body", "/both", "/title"])
            // A title match ranks above a single mention in the body.
            expect(paths(kettles).indexOf("/title")).toBeLessThan(paths(kettles).indexOf("/body"))
            expect(paths(yield* find(store, ["copper", "kettle"]))).toEqual(["/both"])
            expect(paths(yield* find(store, ["teapot", "kettle"], { match: "any" })).sort()).toEqual([
              "/body",
              "/both",
              "/other",
              "/title",
            ])
            expect(yield* find(store, ["kett"])).toEqual([])
            expect(paths(yield* find(store, ["kett"], { prefixLast: true })).sort()).toEqual([
              "/body",
              "/both",
              "/title",
            ])
            // The URL's words are searched too.
            expect(paths(yield* find(store, ["other"]))).toContain("/other")
            // Slices of the answer.
            const first = yield* find(store, ["kettle"], { limit: 2 })
            const rest = yield* find(store, ["kettle"], { offset: 2, limit: 2 })
            expect(first).toHaveLength(2)
            expect(paths([...first, ...rest]).sort()).toEqual(["/body", "/both", "/title"])
          }),
        ),
      )

      it.effect("keeps the pages of each owner apart, the keyless one included, and filters by time", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.indexPage(page("/x", { owner: "key-a", content: "alpha", scrapedAt: T0 - 10 }))
            yield* store.indexPage(page("/x", { owner: "key-b", content: "alpha beta", scrapedAt: T0 }))
            yield* store.indexPage(page("/x", { owner: null, content: "alpha none" }))
            yield* store.indexPage(page("/x", { owner: null, content: "alpha none again", scrapedAt: T0 + 10 }))
            const contents = (pages: ReadonlyArray<IndexedPage>) => pages.map((found) => found.content).sort()
            expect(contents(yield* find(store, ["alpha"]))).toEqual(["alpha"])
            expect(contents(yield* find(store, ["alpha"], { owner: null }))).toEqual(["alpha none again"])
            expect(contents(yield* find(store, ["alpha"], { owner: undefined }))).toEqual([
              "alpha",
              "alpha beta",
              "alpha none again",
            ])
            expect(contents(yield* find(store, ["alpha"], { owner: undefined, from: T0 }))).toEqual([
              "alpha beta",
              "alpha none again",
            ])
            expect(contents(yield* find(store, ["alpha"], { owner: undefined, to: T0 }))).toEqual([
              "alpha",
              "alpha beta",
            ])
            const newest = yield* find(store, ["alpha"], { owner: undefined, newestFirst: true })
            expect(newest.map((found) => found.scrapedAt)).toEqual([T0 + 10, T0, T0 - 10])
            // No terms: the pages of the owner, newest first.
            const listed = yield* find(store, [], { owner: undefined })
            expect(listed.map((found) => found.scrapedAt)).toEqual([T0 + 10, T0, T0 - 10])
          }),
        ),
      )

      it.effect("purgeExpired deletes the pages scraped before indexBefore", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.indexPage(page("/old", { scrapedAt: T0 - 10 }))
            yield* store.indexPage(page("/edge", { scrapedAt: T0 }))
            yield* store.indexPage(page("/new", { scrapedAt: T0 + 10 }))
            expect((yield* store.purgeExpired(T0 + 100)).indexed).toBe(0)
            expect((yield* store.purgeExpired(T0 + 100, { indexBefore: T0 })).indexed).toBe(1)
            expect(paths(yield* find(store, ["text"])).sort()).toEqual(["/edge", "/new"])
            // Indexed again, the page is back.
            yield* store.indexPage(page("/old", { scrapedAt: T0 + 20 }))
            expect(paths(yield* find(store, ["text"])).sort()).toEqual(["/edge", "/new", "/old"])
          }),
        ),
      )
    })

    describe("webhook outbox", () => {
      const leaseOut = (store: JobStoreShape, worker: string, now: number, max = 10, leaseMs = 1000) =>
        store.leaseDeliveries({ worker, now, leaseMs, max })
      const enqueue = (store: JobStoreShape, jobId: string, n: number) =>
        store.enqueueDelivery({ jobId, payload: { event: "page", n, data: [{ markdown: "é" }] }, createdAt: T0 })

      it.effect("sends a job's deliveries one at a time, in order; jobs side by side", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* leaseOut(store, "w1", T0)).toEqual([])
            for (const n of [1, 2, 3]) expect(yield* enqueue(store, "job-a", n)).toBe(true)
            yield* enqueue(store, "job-b", 1)
            const first = yield* leaseOut(store, "w1", T0)
            expect(first.map((d) => [d.jobId, (d.payload as { n: number }).n])).toEqual([
              ["job-a", 1],
              ["job-b", 1],
            ])
            expect(first[0]).toMatchObject({ attempts: 0, leaseOwner: "w1", leaseUntil: T0 + 1000 })
            expect(first[0]!.payload).toEqual({ event: "page", n: 1, data: [{ markdown: "é" }] })
            // Nothing else is due while the heads are leased: the next of job-a waits for the first.
            expect(yield* leaseOut(store, "w2", T0 + 1)).toEqual([])
            expect(yield* store.finishDelivery(first[0]!)).toBe(true)
            // Finishing twice writes nothing.
            expect(yield* store.finishDelivery(first[0]!)).toBe(false)
            const second = yield* leaseOut(store, "w2", T0 + 2)
            expect(second.map((d) => (d.payload as { n: number }).n)).toEqual([2])
            yield* store.finishDelivery(second[0]!)
            yield* store.finishDelivery(first[1]!)
            const third = yield* leaseOut(store, "w2", T0 + 3)
            expect(third.map((d) => [d.jobId, (d.payload as { n: number }).n])).toEqual([["job-a", 3]])
            yield* store.finishDelivery(third[0]!)
            expect(yield* leaseOut(store, "w2", T0 + 10_000)).toEqual([])
          }),
        ),
      )

      it.effect("retries at notBefore, and a dead holder's lease comes back counting an attempt", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* enqueue(store, "job-a", 1)
            yield* enqueue(store, "job-a", 2)
            const [first] = yield* leaseOut(store, "w1", T0)
            expect(yield* store.retryDelivery(first!, T0 + 500)).toBe(true)
            expect(yield* store.retryDelivery(first!, T0 + 500)).toBe(false)
            // The retried head keeps its place: the second delivery does not overtake it.
            expect(yield* leaseOut(store, "w1", T0 + 499)).toEqual([])
            const [again] = yield* leaseOut(store, "w1", T0 + 500)
            expect(again).toMatchObject({ id: first!.id, attempts: 1 })
            // Its holder dies: after the lease, another worker gets it, and the old holder can no longer finish it.
            expect(yield* leaseOut(store, "w2", T0 + 1499)).toEqual([])
            const [taken] = yield* leaseOut(store, "w2", T0 + 1500)
            expect(taken).toMatchObject({ id: first!.id, attempts: 2, leaseOwner: "w2" })
            expect(yield* store.finishDelivery(again!)).toBe(false)
            expect(yield* store.finishDelivery(taken!)).toBe(true)
            const [next] = yield* leaseOut(store, "w2", T0 + 1501)
            expect((next!.payload as { n: number }).n).toBe(2)
          }),
        ),
      )

      const hook = (jobId: string, name: string) => ({ jobId, payload: { name }, createdAt: T0 })
      /** Sends (leases and finishes) every due delivery, one job's in its order; answers the payloads' names. */
      const drain = (store: JobStoreShape) =>
        Effect.gen(function* () {
          const names: Array<string> = []
          for (;;) {
            const leased = yield* leaseOut(store, "sender", T0 + 10_000)
            if (leased.length === 0) return names
            for (const delivery of leased) {
              names.push((delivery.payload as { name: string }).name)
              expect(yield* store.finishDelivery(delivery)).toBe(true)
            }
          }
        })

      it.effect("completeTask queues the page's delivery in the commit that records the page", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(2))
            const [first] = yield* lease(store, "w1", T0, 1)
            expect(yield* drain(store)).toEqual([])
            const result = yield* store.completeTask(first!, {
              ...done({ markdown: "one" }),
              deliveries: { page: hook(job.id, "page 1"), completed: hook(job.id, "completed 1") },
            })
            expect(result).toMatchObject({ recorded: true, finished: false })
            expect(yield* store.countDocuments(job.id)).toBe(1)
            // The job goes on: its `completed` is not queued by a commit that did not end it.
            expect(yield* drain(store)).toEqual(["page 1"])
          }),
        ),
      )

      it.effect("a completeTask that records nothing queues nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(1))
            const [slow] = yield* lease(store, "w1", T0, 1, 1000)
            const [retaken] = yield* lease(store, "w2", T0 + 1000, 1, 1000)
            const deliveries = { page: hook(job.id, "late page"), completed: hook(job.id, "late completed") }
            const late = yield* store.completeTask(slow!, { ...done(), deliveries })
            expect(late.recorded).toBe(false)
            expect(yield* drain(store)).toEqual([])
            // A payload that is not JSON fails the call, and the page is not recorded without its event.
            const error = yield* Effect.flip(
              store.completeTask(retaken!, {
                ...done(),
                deliveries: { page: { jobId: job.id, payload: { size: 10n }, createdAt: T0 } },
              }),
            )
            expect(error).toMatchObject({ _tag: "StoreError", reason: "InvalidData" })
            expect(yield* store.countDocuments(job.id)).toBe(0)
            expect(yield* drain(store)).toEqual([])
            const onTime = yield* store.completeTask(retaken!, {
              ...done(),
              deliveries: { page: hook(job.id, "page"), completed: hook(job.id, "completed") },
            })
            expect(onTime).toMatchObject({ recorded: true, finished: true })
            // A second call for the same lease records nothing, so it queues nothing either.
            const again = yield* store.completeTask(retaken!, {
              ...done(),
              deliveries: { page: hook(job.id, "page again"), completed: hook(job.id, "completed again") },
            })
            expect(again.recorded).toBe(false)
            expect(yield* drain(store)).toEqual(["page", "completed"])
          }),
        ),
      )

      it.effect("the completed delivery is queued only by the commit that finishes the job, after its page's", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob(), tasks(3))
            const other = yield* store.createJob(newJob(), tasks(1))
            const leased = yield* lease(store, "w1", T0, 10)
            expect(leased).toHaveLength(4)
            const ofJob = leased.filter((one) => one.jobId === job.id)
            const finished: Array<boolean> = []
            for (const [n, one] of ofJob.entries()) {
              const last = n === ofJob.length - 1
              // The last task records no page (robots.txt kept it out): the job's end is queued alone.
              const outcome = last
                ? { now: T0 + 1, discovered: [], robotsBlocked: [one.url] }
                : n === 1
                  ? failure()
                  : done()
              const result = yield* store.completeTask(one, {
                ...outcome,
                deliveries: {
                  ...(last ? {} : { page: hook(job.id, `page ${n}`) }),
                  completed: hook(job.id, `completed ${n}`),
                },
              })
              finished.push(result.finished)
            }
            expect(finished).toEqual([false, false, true])
            const otherTask = leased.find((one) => one.jobId === other.id)!
            yield* store.completeTask(otherTask, {
              ...done(),
              deliveries: { page: hook(other.id, "other page"), completed: hook(other.id, "other completed") },
            })
            const sent = yield* drain(store)
            expect(sent.filter((name) => !name.startsWith("other"))).toEqual(["page 0", "page 1", "completed 2"])
            expect(sent.filter((name) => name.startsWith("other"))).toEqual(["other page", "other completed"])
          }),
        ),
      )

      it.effect("concurrent leases never hand out the same delivery; max bounds a lease", () =>
        withStore((store) =>
          Effect.gen(function* () {
            for (let job = 0; job < 20; job++) yield* enqueue(store, `job-${job}`, 1)
            expect(yield* leaseOut(store, "w0", T0, 3)).toHaveLength(3)
            const leased = yield* Effect.all(
              Array.from({ length: 4 }, (_, i) => leaseOut(store, `w${i + 1}`, T0, 5)),
              { concurrency: "unbounded" },
            )
            const ids = leased.flat().map((d) => d.id)
            expect(ids).toHaveLength(17)
            expect(new Set(ids).size).toBe(17)
          }),
        ),
      )
    })

    describe("records", () => {
      const record = (id: string, overrides: Partial<RecordWrite> = {}): RecordWrite => ({
        kind: "monitor",
        id,
        owner: "key-a",
        value: { url: `https://example.test/${id}` },
        now: T0,
        ...overrides,
      })
      const put = (store: JobStoreShape, id: string, overrides: Partial<RecordWrite> = {}) =>
        store.putRecord(record(id, overrides))
      const get = (store: JobStoreShape, id: string, kind = "monitor") =>
        Effect.map(store.getRecord(kind, id), Option.getOrThrow)
      const ids = (records: ReadonlyArray<StoredRecord>) => records.map((one) => one.id)

      it.effect("putRecord creates a record, and a later write replaces every field but createdAt", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* store.getRecord("monitor", "m1")).toEqual(Option.none())
            const first = yield* put(store, "m1", {
              parent: "p1",
              label: "active",
              dueAt: T0 + 1000,
              expiresAt: T0 + DAY,
              value: { url: "https://example.test/", skip: undefined, nested: [true, null, "é", 1.5] },
            })
            const created: StoredRecord = {
              kind: "monitor",
              id: "m1",
              owner: "key-a",
              parent: "p1",
              label: "active",
              dueAt: T0 + 1000,
              value: { url: "https://example.test/", nested: [true, null, "é", 1.5] },
              version: 1,
              createdAt: T0,
              updatedAt: T0,
              expiresAt: T0 + DAY,
            }
            expect(Option.getOrThrow(first)).toStrictEqual(created)
            expect(yield* get(store, "m1")).toStrictEqual(created)

            // The optional fields a write leaves out are gone, not kept from the record it replaces.
            const replaced: StoredRecord = {
              kind: "monitor",
              id: "m1",
              owner: null,
              value: ["x", 2],
              version: 2,
              createdAt: T0,
              updatedAt: T0 + 5,
            }
            expect(
              Option.getOrThrow(yield* put(store, "m1", { owner: null, value: ["x", 2], now: T0 + 5 })),
            ).toStrictEqual(replaced)
            expect(yield* get(store, "m1")).toStrictEqual(replaced)
            expect(yield* put(store, "m1", { value: null, now: T0 + 6 })).toEqual(
              Option.some({ ...replaced, owner: "key-a", value: null, version: 3, updatedAt: T0 + 6 }),
            )
            expect((yield* get(store, "m1")).value).toBeNull()

            // Ids are unique within a kind only.
            expect(yield* put(store, "m1", { kind: "snapshot", value: "text", now: T0 + 7 })).toEqual(
              Option.some({
                kind: "snapshot",
                id: "m1",
                owner: "key-a",
                value: "text",
                version: 1,
                createdAt: T0 + 7,
                updatedAt: T0 + 7,
              }),
            )
            expect((yield* get(store, "m1")).version).toBe(3)
            expect(yield* store.getRecord("monitor-check", "m1")).toEqual(Option.none())
            // Whatever the kind and id hold, the pair names one record.
            yield* put(store, "c", { kind: "a:b", value: 1 })
            expect(Option.getOrThrow(yield* put(store, "b:c", { kind: "a", value: 2 })).version).toBe(1)
            expect((yield* get(store, "c", "a:b")).value).toBe(1)
          }),
        ),
      )

      it.effect("a write with expectedVersion happens only on that version, and otherwise writes nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* put(store, "m1", { expectedVersion: 1 })).toEqual(Option.none())
            expect(yield* store.getRecord("monitor", "m1")).toEqual(Option.none())
            const created = Option.getOrThrow(yield* put(store, "m1", { expectedVersion: 0, label: "a" }))
            expect(created).toMatchObject({ version: 1, label: "a" })
            // 0: only while the record does not exist.
            expect(yield* put(store, "m1", { expectedVersion: 0, label: "b", now: T0 + 1 })).toEqual(Option.none())
            expect(yield* get(store, "m1")).toStrictEqual(created)
            const updated = Option.getOrThrow(yield* put(store, "m1", { expectedVersion: 1, label: "c", now: T0 + 2 }))
            expect(updated).toMatchObject({ version: 2, label: "c", createdAt: T0, updatedAt: T0 + 2 })
            // A writer that read version 1 lost the race: its write is refused.
            expect(yield* put(store, "m1", { expectedVersion: 1, label: "d", now: T0 + 3 })).toEqual(Option.none())
            expect(yield* put(store, "m1", { expectedVersion: 5, label: "d", now: T0 + 3 })).toEqual(Option.none())
            expect(yield* get(store, "m1")).toStrictEqual(updated)
            // No expectedVersion: written whatever is stored.
            expect(yield* put(store, "m1", { label: "e", now: T0 + 4 })).toEqual(
              Option.some({ ...updated, label: "e", version: 3, updatedAt: T0 + 4 }),
            )
          }),
        ),
      )

      it.effect("of concurrent writes expecting the same version, exactly one is written", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const race = (expectedVersion: number) =>
              Effect.all(
                Array.from({ length: 8 }, (_, i) =>
                  put(store, "m1", { expectedVersion, value: { writer: i }, now: T0 + expectedVersion }),
                ),
                { concurrency: "unbounded" },
              )
            for (const expectedVersion of [0, 1, 2]) {
              const written = (yield* race(expectedVersion)).filter(Option.isSome).map((one) => one.value)
              expect(written).toHaveLength(1)
              expect(written[0]).toMatchObject({ version: expectedVersion + 1 })
              expect(yield* get(store, "m1")).toStrictEqual(written[0])
            }
          }),
        ),
      )

      it.effect("a value that is not JSON fails with InvalidData and writes nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const error = yield* Effect.flip(put(store, "m1", { value: { size: 10n } }))
            expect(error).toMatchObject({ _tag: "StoreError", reason: "InvalidData" })
            expect(yield* store.getRecord("monitor", "m1")).toEqual(Option.none())
            const kept = Option.getOrThrow(yield* put(store, "m1"))
            expect(yield* Effect.flip(put(store, "m1", { value: [10n], now: T0 + 1 }))).toMatchObject({
              reason: "InvalidData",
            })
            expect(yield* get(store, "m1")).toStrictEqual(kept)
          }),
        ),
      )

      it.effect("listRecords filters by kind, owner, parent and label, newest first, in pages", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* put(store, "a", { now: T0 })
            yield* put(store, "c", { owner: null, now: T0 + 1 })
            // b and d are created at the same instant: the greater id comes first.
            yield* put(store, "d", { owner: "key-b", now: T0 + 2 })
            yield* put(store, "b", { now: T0 + 2 })
            const check = (id: string, parent: string, label: string, now: number) =>
              put(store, id, { kind: "monitor-check", parent, label, now })
            yield* check("c1", "a", "done", T0 + 10)
            yield* check("c2", "a", "failed", T0 + 11)
            yield* check("c3", "b", "done", T0 + 12)
            yield* check("c4", "a", "done", T0 + 13)
            // A snapshot of monitor a: another kind, not listed with the checks.
            yield* put(store, "s1", { kind: "snapshot", parent: "a", label: "done", now: T0 + 14 })

            const list = (query: Partial<RecordQuery> = {}) =>
              Effect.map(store.listRecords({ kind: "monitor", offset: 0, limit: 100, ...query }), ids)
            expect(yield* list()).toEqual(["d", "b", "c", "a"])
            expect(yield* list({ owner: "key-a" })).toEqual(["b", "a"])
            expect(yield* list({ owner: null })).toEqual(["c"])
            expect(yield* list({ owner: "key-c" })).toEqual([])
            expect(yield* list({ offset: 1, limit: 2 })).toEqual(["b", "c"])
            expect(yield* list({ offset: 3, limit: 2 })).toEqual(["a"])
            expect(yield* list({ offset: 4 })).toEqual([])
            expect(yield* list({ limit: 0 })).toEqual([])
            expect(yield* list({ kind: "monitor-check" })).toEqual(["c4", "c3", "c2", "c1"])
            expect(yield* list({ kind: "monitor-check", parent: "a" })).toEqual(["c4", "c2", "c1"])
            expect(yield* list({ kind: "monitor-check", label: "done" })).toEqual(["c4", "c3", "c1"])
            expect(yield* list({ kind: "monitor-check", parent: "a", label: "done" })).toEqual(["c4", "c1"])
            expect(yield* list({ kind: "monitor-check", parent: "a", label: "done", offset: 1 })).toEqual(["c1"])
            expect(yield* list({ kind: "monitor-check", parent: "a", owner: "key-a", limit: 2 })).toEqual(["c4", "c2"])
            expect(yield* list({ kind: "monitor-check", parent: "a", owner: null })).toEqual([])
            expect(yield* list({ kind: "monitor-check", parent: "b", label: "failed" })).toEqual([])
            expect(yield* list({ kind: "snapshot", parent: "a" })).toEqual(["s1"])

            // A rewrite keeps the record's place (its createdAt) and moves it between the lists its fields put it in.
            yield* put(store, "a", { owner: "key-b", now: T0 + 100 })
            yield* check("c4", "b", "failed", T0 + 101)
            expect(yield* list()).toEqual(["d", "b", "c", "a"])
            expect(yield* list({ owner: "key-a" })).toEqual(["b"])
            expect(yield* list({ owner: "key-b" })).toEqual(["d", "a"])
            expect(yield* list({ kind: "monitor-check", parent: "a" })).toEqual(["c2", "c1"])
            expect(yield* list({ kind: "monitor-check", parent: "b", label: "failed" })).toEqual(["c4"])
            const [listed] = yield* store.listRecords({ kind: "monitor", owner: "key-b", offset: 1, limit: 1 })
            expect(listed).toStrictEqual(yield* get(store, "a"))
          }),
        ),
      )

      it.effect("dueRecords answers the records of a kind due at now, earliest first, never those without dueAt", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* put(store, "x", { dueAt: T0 + 300 })
            yield* put(store, "y", { dueAt: T0 + 100 })
            yield* put(store, "z", { dueAt: T0 + 200 })
            yield* put(store, "w")
            yield* put(store, "v", { kind: "monitor-check", dueAt: T0 })
            const due = (now: number, limit = 10) => Effect.map(store.dueRecords("monitor", now, limit), ids)
            expect(yield* due(T0 + 99)).toEqual([])
            expect(yield* due(T0 + 200)).toEqual(["y", "z"])
            expect(yield* due(T0 + 1000)).toEqual(["y", "z", "x"])
            expect(yield* due(T0 + 1000, 2)).toEqual(["y", "z"])
            expect(yield* due(T0 + 1000, 0)).toEqual([])
            expect(yield* store.dueRecords("monitor-check", T0, 10)).toEqual([yield* get(store, "v", "monitor-check")])
            const [first] = yield* store.dueRecords("monitor", T0 + 1000, 1)
            expect(first).toStrictEqual(yield* get(store, "y"))

            // Claimed for its next run: due later. Then paused: never due.
            yield* put(store, "y", { dueAt: T0 + 500, now: T0 + 1, expectedVersion: 1 })
            expect(yield* due(T0 + 1000)).toEqual(["z", "x", "y"])
            yield* put(store, "z", { now: T0 + 2 })
            expect(yield* due(T0 + 1000)).toEqual(["x", "y"])
            // Equal due times: the smaller id first.
            yield* put(store, "a", { dueAt: T0 + 300 })
            expect(yield* due(T0 + 1000)).toEqual(["a", "x", "y"])
          }),
        ),
      )

      it.effect("deleteRecord deletes the record and every record of any kind whose parent it is", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* put(store, "m1", { dueAt: T0 })
            yield* put(store, "m2", { dueAt: T0 })
            yield* put(store, "c1", { kind: "monitor-check", parent: "m1" })
            yield* put(store, "c2", { kind: "monitor-check", parent: "m1", expiresAt: T0 + 100 })
            yield* put(store, "c3", { kind: "monitor-check", parent: "m2" })
            yield* put(store, "s1", { kind: "snapshot", parent: "m1" })
            // A grandchild is not a child: it stays.
            yield* put(store, "g1", { kind: "snapshot", parent: "c1" })

            expect(yield* store.deleteRecord("monitor", "m1")).toBe(4)
            expect(yield* store.getRecord("monitor", "m1")).toEqual(Option.none())
            expect(yield* store.getRecord("monitor-check", "c1")).toEqual(Option.none())
            expect(yield* store.getRecord("monitor-check", "c2")).toEqual(Option.none())
            expect(yield* store.getRecord("snapshot", "s1")).toEqual(Option.none())
            const list = (kind: string, parent?: string) =>
              Effect.map(
                store.listRecords({ kind, ...(parent !== undefined ? { parent } : {}), offset: 0, limit: 10 }),
                ids,
              )
            expect(yield* list("monitor")).toEqual(["m2"])
            expect(yield* list("monitor-check")).toEqual(["c3"])
            expect(yield* list("monitor-check", "m1")).toEqual([])
            expect(yield* list("snapshot")).toEqual(["g1"])
            expect(ids(yield* store.dueRecords("monitor", T0, 10))).toEqual(["m2"])
            expect((yield* store.purgeExpired(T0 + 100)).records).toBe(0)

            expect(yield* store.deleteRecord("monitor", "m1")).toBe(0)
            expect(yield* store.deleteRecord("monitor", "unknown")).toBe(0)
            // The id is free again: a new record, as from scratch.
            expect(yield* put(store, "m1", { expectedVersion: 0, now: T0 + 5 })).toEqual(
              Option.some({
                kind: "monitor",
                id: "m1",
                owner: "key-a",
                value: { url: "https://example.test/m1" },
                version: 1,
                createdAt: T0 + 5,
                updatedAt: T0 + 5,
              }),
            )
            expect(yield* store.deleteRecord("monitor-check", "c3")).toBe(1)
            expect(yield* list("monitor-check")).toEqual([])
          }),
        ),
      )

      it.effect("purgeExpired deletes the records with expiresAt <= now", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* put(store, "gone", { expiresAt: T0 + 100, dueAt: T0, parent: "p" })
            yield* put(store, "rewritten", { expiresAt: T0 + 100 })
            yield* put(store, "later", { expiresAt: T0 + 101 })
            yield* put(store, "kept")
            // Rewritten without expiresAt: kept until deleted.
            yield* put(store, "rewritten", { now: T0 + 1 })
            expect((yield* store.purgeExpired(T0 + 99)).records).toBe(0)
            expect((yield* store.purgeExpired(T0 + 100)).records).toBe(1)
            expect(yield* store.getRecord("monitor", "gone")).toEqual(Option.none())
            const listed = yield* store.listRecords({ kind: "monitor", offset: 0, limit: 10 })
            expect(ids(listed).sort()).toEqual(["kept", "later", "rewritten"])
            expect(yield* store.listRecords({ kind: "monitor", parent: "p", offset: 0, limit: 10 })).toEqual([])
            expect(yield* store.dueRecords("monitor", T0 + 100, 10)).toEqual([])
            expect((yield* store.purgeExpired(T0 + 100)).records).toBe(0)
            expect((yield* store.purgeExpired(T0 + DAY)).records).toBe(1)
            expect(ids(yield* store.listRecords({ kind: "monitor", offset: 0, limit: 10 })).sort()).toEqual([
              "kept",
              "rewritten",
            ])
          }),
        ),
      )
    })

    describe("counters", () => {
      it.effect(
        "addToCounter starts at 0 and answers each new value; readCounters answers in order, 0 if missing",
        () =>
          withStore((store) =>
            Effect.gen(function* () {
              // Names as callers make them: colons, quotes, a percent sign, letters beyond ASCII.
              const name = "rate:key-a:2026-11-26T12:35"
              const odd = `usage:'key'%_"b":ключ 🔑`
              expect(yield* store.readCounters([name])).toEqual([0])
              expect(yield* store.addToCounter(name, 1, T0 + 100)).toBe(1)
              expect(yield* store.addToCounter(name, 1, T0 + 100)).toBe(2)
              expect(yield* store.addToCounter(name, 0, T0 + 100)).toBe(2)
              expect(yield* store.addToCounter(name, 40, T0 + 100)).toBe(42)
              expect(yield* store.addToCounter(odd, 5, T0 + 100)).toBe(5)
              // Exact past 32 bits and up to 2^53: the durable stores keep 64-bit integers.
              expect(yield* store.addToCounter("big", 2 ** 52, T0 + 100)).toBe(2 ** 52)
              expect(yield* store.addToCounter("big", 2 ** 52 - 1, T0 + 100)).toBe(2 ** 53 - 1)
              expect(yield* store.readCounters([odd, "missing", name, name, "big", "rate:key-a"])).toEqual([
                5,
                0,
                42,
                42,
                2 ** 53 - 1,
                0,
              ])
              expect(yield* store.readCounters([])).toEqual([])
            }),
          ),
      )

      it.effect("addToCounter refuses what is not a whole number of at least 0, and changes nothing", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.addToCounter("c", 3, T0 + 100)
            for (const by of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
              const error = yield* Effect.flip(store.addToCounter("c", by, T0 + 100))
              expect(error).toMatchObject({ _tag: "StoreError", reason: "InvalidData" })
            }
            expect(yield* store.readCounters(["c"])).toEqual([3])
          }),
        ),
      )

      it.effect("of 200 concurrent adds to one counter, each answers a different value and none is lost", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const answers = yield* Effect.all(
              Array.from({ length: 200 }, () => store.addToCounter("rate:hot", 1, T0 + 100)),
              { concurrency: "unbounded" },
            )
            expect([...answers].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
            expect(yield* store.readCounters(["rate:hot"])).toEqual([200])
          }),
        ),
      )

      it.effect("purgeExpired deletes the counters with expiresAt <= now, as each one's last write set it", () =>
        withStore((store) =>
          Effect.gen(function* () {
            yield* store.addToCounter("gone", 1, T0 + 100)
            yield* store.addToCounter("later", 2, T0 + 101)
            yield* store.addToCounter("extended", 3, T0 + 100)
            yield* store.addToCounter("extended", 1, T0 + DAY)
            yield* store.addToCounter("shortened", 1, T0 + DAY)
            yield* store.addToCounter("shortened", 1, T0 + 50)
            const read = store.readCounters(["gone", "later", "extended", "shortened"])
            expect((yield* store.purgeExpired(T0 + 49)).counters).toBe(0)
            expect(yield* read).toEqual([1, 2, 4, 2])
            expect((yield* store.purgeExpired(T0 + 99)).counters).toBe(1)
            expect((yield* store.purgeExpired(T0 + 100)).counters).toBe(1)
            expect(yield* read).toEqual([0, 2, 4, 0])
            expect((yield* store.purgeExpired(T0 + 100)).counters).toBe(0)
            // A purged counter starts again at 0.
            expect(yield* store.addToCounter("gone", 1, T0 + 200)).toBe(1)
            expect((yield* store.purgeExpired(T0 + DAY)).counters).toBe(3)
            expect(yield* read).toEqual([0, 0, 0, 0])
          }),
        ),
      )
    })

    describe("politeness gates", () => {
      const host = (spacingMs: number) => ({ key: "host example.test", spacingMs })
      const job = (spacingMs: number) => ({ key: "job j1", spacingMs })

      it.effect("a gate passed closes for its spacing; closed gates answer when the last opens", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* store.passGates([host(0)], T0)).toEqual(Option.none())
            // No spacing: the gate stays open.
            expect(yield* store.passGates([host(0)], T0)).toEqual(Option.none())
            expect(yield* store.passGates([host(1000), job(3000)], T0)).toEqual(Option.none())
            expect(yield* store.passGates([host(1000)], T0 + 10)).toEqual(Option.some(T0 + 1000))
            expect(yield* store.passGates([host(1000), job(3000)], T0 + 1000)).toEqual(Option.some(T0 + 3000))
            // A refused pass takes nothing: the host gate is still open at T0 + 1000 for a task of another job.
            expect(yield* store.passGates([host(1000)], T0 + 1000)).toEqual(Option.none())
            expect(yield* store.passGates([host(1000), job(3000)], T0 + 3000)).toEqual(Option.none())
          }),
        ),
      )

      it.effect("holdGate keeps a gate closed, never shortens it, and purgeExpired forgets open gates", () =>
        withStore((store) =>
          Effect.gen(function* () {
            expect(yield* store.holdGate("host example.test", T0 + 5000)).toBe(T0 + 5000)
            expect(yield* store.holdGate("host example.test", T0 + 100)).toBe(T0 + 5000)
            expect(yield* store.passGates([host(0)], T0 + 4999)).toEqual(Option.some(T0 + 5000))
            yield* store.purgeExpired(T0 + 4999)
            expect(yield* store.passGates([host(0)], T0 + 4999)).toEqual(Option.some(T0 + 5000))
            yield* store.purgeExpired(T0 + 5000)
            expect(yield* store.passGates([host(0)], T0 + 5000)).toEqual(Option.none())
          }),
        ),
      )

      it.effect("of concurrent passes of one spaced gate, exactly one gets through", () =>
        withStore((store) =>
          Effect.gen(function* () {
            const passes = yield* Effect.all(
              Array.from({ length: 8 }, () => store.passGates([host(1000)], T0)),
              { concurrency: "unbounded" },
            )
            expect(passes.filter(Option.isNone)).toHaveLength(1)
            expect(passes.filter(Option.isSome).map((closed) => closed.value)).toEqual(Array(7).fill(T0 + 1000))
          }),
        ),
      )
    })

    describe("expiry", () => {
      it.effect(
        "purgeExpired deletes expired jobs with all they hold, expired scrapes and records, old cache entries",
        () =>
          withStore((store) =>
            Effect.gen(function* () {
              const old = yield* store.createJob(newJob({ expiresAt: T0 + 100 }), tasks(3))
              const [a, b, c] = yield* lease(store, "w1", T0, 3)
              yield* store.completeTask(a!, { ...done(), robotsBlocked: ["https://example.test/x"] })
              yield* store.completeTask(b!, failure())
              const kept = yield* store.createJob(newJob({ expiresAt: T0 + 1000 }), tasks(2))
              yield* store.putScrape({ id: "gone", owner: null, document: {}, expiresAt: T0 + 100 })
              yield* store.putScrape({ id: "kept", owner: null, document: {}, expiresAt: T0 + 101 })
              const page = { url: "https://example.test/", statusCode: 200, contentType: undefined, body: "x" }
              yield* store.cacheSet("old", { ...page, cachedAt: T0 - 10 })
              yield* store.cacheSet("new", { ...page, cachedAt: T0 })
              const monitor = { kind: "monitor", owner: null, value: {}, now: T0 }
              yield* store.putRecord({ ...monitor, id: "gone", expiresAt: T0 + 100 })
              yield* store.putRecord({ ...monitor, id: "kept", expiresAt: T0 + 101 })

              expect(yield* store.purgeExpired(T0 + 99)).toEqual({
                jobs: 0,
                tasks: 0,
                documents: 0,
                errors: 0,
                scrapes: 0,
                cache: 0,
                indexed: 0,
                deliveries: 0,
                records: 0,
                counters: 0,
              })
              yield* store.enqueueDelivery({ jobId: old.id, payload: { n: 1 }, createdAt: T0 })
              yield* store.enqueueDelivery({ jobId: kept.id, payload: { n: 2 }, createdAt: T0 })
              expect(yield* store.purgeExpired(T0 + 100, { cacheBefore: T0 })).toEqual({
                jobs: 1,
                tasks: 3,
                documents: 1,
                errors: 1,
                scrapes: 1,
                cache: 1,
                indexed: 0,
                deliveries: 1,
                records: 1,
                counters: 0,
              })
              // The kept job's delivery is still there.
              const waiting = yield* store.leaseDeliveries({ worker: "w1", now: T0 + 100, leaseMs: 1000, max: 10 })
              expect(waiting.map((delivery) => delivery.payload)).toEqual([{ n: 2 }])
              expect(yield* store.getJob(old.id)).toEqual(Option.none())
              expect(yield* store.getTask(a!.id)).toEqual(Option.none())
              expect(yield* store.countDocuments(old.id)).toBe(0)
              expect(yield* store.errors(old.id)).toEqual({ errors: [], robotsBlocked: [] })
              expect(Option.isSome(yield* store.getJob(kept.id))).toBe(true)
              expect(yield* store.getScrape("gone")).toEqual(Option.none())
              expect(Option.isSome(yield* store.getScrape("kept"))).toBe(true)
              expect(yield* store.cacheGet("old")).toEqual(Option.none())
              expect(Option.isSome(yield* store.cacheGet("new"))).toBe(true)
              expect(yield* store.getRecord("monitor", "gone")).toEqual(Option.none())
              expect(Option.isSome(yield* store.getRecord("monitor", "kept"))).toBe(true)
              // The purged job's tasks are gone from the queue; the other job's are still there.
              const leased = yield* lease(store, "w2", T0 + 200, 10)
              expect(leased.map((t) => t.jobId)).toEqual([kept.id, kept.id])
              // A worker finishing a task of a purged job learns it is gone.
              const late = yield* store.completeTask(c!, done())
              expect(late).toEqual({ recorded: false, finished: false, job: Option.none() })
            }),
          ),
      )
    })

    describe("scale", () => {
      /**
       * Runs a job of `size` tasks to completion (half seeded, each page discovering a seen URL and a new one until
       * the limit stops admitting them) and returns the milliseconds each tenth of its tasks took.
       */
      const drain = (store: JobStoreShape, size: number) =>
        Effect.gen(function* () {
          const job = yield* store.createJob(
            newJob({ limit: size, url: `https://example.test/${size}` }),
            tasks(size / 2),
          )
          const laps: Array<number> = []
          let started = performance.now()
          for (let count = 0; count < size; ) {
            const leased = yield* lease(store, "w1", T0, 8)
            for (const one of leased) {
              yield* store.completeTask(one, {
                now: T0 + 1,
                document: { markdown: `# ${one.url}` },
                discovered: [task(`/p${count}`), task(`/new${count}`)],
                robotsBlocked: [],
              })
            }
            count += leased.length
            if (count % (size / 10) === 0) {
              laps.push(performance.now() - started)
              started = performance.now()
            }
          }
          expect(yield* getJob(store, job.id)).toMatchObject({ status: "completed", completed: size, total: size })
          return laps
        })

      it.effect(
        "a 20 000-task job leases and completes as fast per task as a 2 000-task job",
        () =>
          withStore((store) =>
            Effect.gen(function* () {
              yield* drain(store, 2_000) // warm-up: JIT and statement caches
              const small = yield* drain(store, 2_000)
              const big = yield* drain(store, 20_000)
              const perTask = (ms: number, tasks: number) => (ms * 1000) / tasks
              const smallCost = perTask(
                small.reduce((a, b) => a + b, 0),
                2_000,
              )
              const bigFirst = perTask(big[0]!, 2_000)
              const bigLast = perTask(big[big.length - 1]!, 2_000)
              console.info(
                `${name}: µs per task (lease + complete): 2 000-task job ${smallCost.toFixed(0)}; 20 000-task job,`,
                `first tenth ${bigFirst.toFixed(0)}, last tenth ${bigLast.toFixed(0)}`,
              )
              // Were any step O(n) in the job's tasks, the big job would cost about ten times more per task; the
              // margin absorbs the noise of a shared machine.
              expect(bigFirst).toBeLessThan(smallCost * 3 + 20)
              expect(bigLast).toBeLessThan(smallCost * 3 + 20)
            }),
          ),
        240_000,
      )
    })
  })
}
