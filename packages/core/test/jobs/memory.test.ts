import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, Option } from "effect"
import { JobStore, MemoryJobStore } from "../../src/Jobs/index.js"
import { newJob, runJobStoreConformance, tasks } from "./conformance.js"

runJobStoreConformance("memory", () => MemoryJobStore.layer())

describe("memory store bounds", () => {
  it.effect("keeps scrape results within scrapesMaxBytes, dropping the least recently used first", () =>
    Effect.gen(function* () {
      const store = yield* JobStore
      const document = { markdown: "x".repeat(1000), metadata: { scrapeId: "s" } }
      const expiresAt = Date.now() + 60_000
      for (const id of ["a", "b", "c"]) yield* store.putScrape({ id, owner: null, document, expiresAt })
      // Each result is ~1 KB of JSON (~2 KB counted): the bound of 5 KB holds two of them.
      expect(Option.isSome(yield* store.getScrape("a"))).toBe(false)
      expect(Option.isSome(yield* store.getScrape("b"))).toBe(true)
      expect(Option.getOrThrow(yield* store.getScrape("c")).document).toEqual(document)
    }).pipe(Effect.provide(MemoryJobStore.layer({ scrapesMaxBytes: 5000 }))),
  )
})

describe("memory outbox bound", () => {
  it.effect("a completeTask past outboxCapacity records its page and drops the deliveries that do not fit", () => {
    const logs: Array<string> = []
    const capture = Logger.make(({ message }) => {
      logs.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    return Effect.gen(function* () {
      const store = yield* JobStore
      const job = yield* store.createJob(newJob(), tasks(1))
      const hook = (name: string) => ({ jobId: job.id, payload: { name }, createdAt: 0 })
      expect(yield* store.enqueueDelivery(hook("started"))).toBe(true)
      const [leased] = yield* store.leaseTasks({ worker: "w1", now: 0, leaseMs: 1000, max: 1 })
      const result = yield* store.completeTask(leased!, {
        now: 1,
        document: { markdown: "page" },
        discovered: [],
        robotsBlocked: [],
        deliveries: { page: hook("page"), completed: hook("completed") },
      })
      // The page is not lost for a full outbox: only the event that did not fit is.
      expect(result).toMatchObject({ recorded: true, finished: true })
      expect(yield* store.countDocuments(job.id)).toBe(1)
      expect(logs).toContainEqual(`1 webhook delivery(ies) of job ${job.id} dropped: the outbox is full`)
      const names: Array<string> = []
      for (;;) {
        const [next] = yield* store.leaseDeliveries({ worker: "s", now: 2, leaseMs: 1000, max: 1 })
        if (next === undefined) break
        names.push((next.payload as { name: string }).name)
        yield* store.finishDelivery(next)
      }
      expect(names).toEqual(["started", "page"])
    }).pipe(
      Effect.provide(MemoryJobStore.layer({ outboxCapacity: 2 })),
      Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
    )
  })
})

describe("memory search index bound", () => {
  it.effect("keeps the index within indexMaxBytes, dropping the oldest entries first", () =>
    Effect.gen(function* () {
      const store = yield* JobStore
      const page = (path: string) => ({
        owner: null,
        url: `https://example.test${path}`,
        content: "x".repeat(1000),
        scrapedAt: 0,
      })
      // Every page, newest first.
      const listed = Effect.map(
        store.searchIndex({ terms: [], match: "all", prefixLast: false, newestFirst: true, offset: 0, limit: 10 }),
        (pages) => pages.map((found) => new URL(found.url).pathname),
      )
      for (const path of ["/a", "/b", "/c"]) yield* store.indexPage(page(path))
      // A page re-indexed is the newest again: the next one to go is /b.
      yield* store.indexPage(page("/a"))
      // Each entry is ~1 KB of text (~2 KB counted): the bound of 5 KB holds two of them.
      yield* store.indexPage(page("/d"))
      expect((yield* listed).sort()).toEqual(["/a", "/d"])
      // A page larger than the whole bound is still kept (alone): the newest write is never dropped.
      yield* store.indexPage({ ...page("/huge"), content: "y".repeat(10_000) })
      expect(yield* listed).toEqual(["/huge"])
    }).pipe(Effect.provide(MemoryJobStore.layer({ indexMaxBytes: 5000 }))),
  )
})
