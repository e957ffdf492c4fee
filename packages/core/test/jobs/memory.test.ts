import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { JobStore, MemoryJobStore } from "../../src/Jobs/index.js"
import { runJobStoreConformance } from "./conformance.js"

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
