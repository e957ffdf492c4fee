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
