/** The search index's Postgres specifics: terms are data, never tsquery syntax; the fields weigh in order. */
import { it } from "@effect/vitest"
import { type IndexedPage, type IndexSearch, JobStore } from "@webdata/core/jobs"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { layerInFreshSchema } from "./support.js"

const T0 = 1_700_000_000_000

const page = (path: string, overrides: Partial<IndexedPage> = {}): IndexedPage => ({
  owner: null,
  url: `https://example.test${path}`,
  content: "nothing to see",
  scrapedAt: T0,
  ...overrides,
})

const search = (terms: ReadonlyArray<string>, overrides: Partial<IndexSearch> = {}): IndexSearch => ({
  terms,
  match: "all",
  prefixLast: false,
  newestFirst: false,
  offset: 0,
  limit: 10,
  ...overrides,
})

describe("PostgreSQL search index", () => {
  it.effect("reads terms as words: tsquery operators and quotes in them are no syntax", () =>
    Effect.gen(function* () {
      const store = yield* JobStore
      yield* store.indexPage(page("/quotes", { content: "It's a kettle: o'clock & more" }))
      const hostile = ["'", "''", "\\", "\\'", "&", "|", "!", "<->", ":*", "(", ")", "a:*b", "x' | 'y", "kettle)"]
      for (const term of hostile)
        for (const prefixLast of [false, true])
          for (const match of ["all", "any"] as const)
            yield* store.searchIndex(search([term, "kettle", term], { prefixLast, match }))
      const found = yield* store.searchIndex(search(["kettle", "o'clock"], { match: "all" }))
      expect(found.map((hit) => hit.url)).toEqual(["https://example.test/quotes"])
      const prefixed = yield* store.searchIndex(search(["o'cl"], { prefixLast: true }))
      expect(prefixed.map((hit) => hit.url)).toEqual(["https://example.test/quotes"])
    }).pipe(Effect.provide(layerInFreshSchema())),
  )

  it.effect("ranks a title match over a description match over a content match over a URL match", () =>
    Effect.gen(function* () {
      const store = yield* JobStore
      yield* store.indexPage(page("/kettle"))
      yield* store.indexPage(page("/c", { content: "a kettle" }))
      yield* store.indexPage(page("/b", { description: "a kettle" }))
      yield* store.indexPage(page("/a", { title: "a kettle" }))
      const found = yield* store.searchIndex(search(["kettle"]))
      expect(found.map((hit) => new URL(hit.url).pathname)).toEqual(["/a", "/b", "/c", "/kettle"])
    }).pipe(Effect.provide(layerInFreshSchema())),
  )
})
