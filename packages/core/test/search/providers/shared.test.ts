/** What the providers share: reading snippets, periods, and paging to the limit. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { collectPages, plainText, recentPeriod } from "../../../src/Search/Providers/Shared.js"
import type { SearchHit } from "../../../src/Search/SearchProvider.js"
import { query } from "./harness.js"

const DAY = 86_400_000
const NOW = Date.UTC(2025, 5, 15, 12)

describe("plainText", () => {
  it("drops tags, decodes entities and collapses spaces", () => {
    expect(plainText("<strong>Effect</strong> &amp; <em>TS</em>&#x27;s\n  errors &lt;E&gt;")).toBe(
      "Effect & TS's errors <E>",
    )
    expect(plainText("  plain   text ")).toBe("plain text")
    expect(plainText("   ")).toBeUndefined()
    expect(plainText(undefined)).toBeUndefined()
  })
})

describe("recentPeriod", () => {
  it("is the qdr unit, or the shortest period reaching back to a range's start", () => {
    expect(recentPeriod("qdr:h", NOW)).toBe("h")
    expect(recentPeriod("qdr:m", NOW)).toBe("m")
    expect(recentPeriod("cdr:1,cd_min:6/15/2025,cd_max:6/15/2025", NOW)).toBe("d")
    expect(recentPeriod("cdr:1,cd_min:6/10/2025", NOW)).toBe("w")
    expect(recentPeriod("cdr:1,cd_min:5/20/2025,cd_max:5/30/2025", NOW)).toBe("m")
    expect(recentPeriod("cdr:1,cd_min:1/1/2025", NOW)).toBe("y")
    expect(recentPeriod("cdr:1,cd_min:1/1/2020", NOW)).toBeUndefined()
    expect(recentPeriod("cdr:1,cd_max:1/1/2025", NOW)).toBeUndefined()
    expect(recentPeriod("sbd:1", NOW)).toBeUndefined()
    expect(recentPeriod(undefined, NOW - DAY)).toBeUndefined()
  })
})

describe("collectPages", () => {
  const pages: ReadonlyArray<ReadonlyArray<SearchHit>> = [
    [{ url: "https://a.example/1" }, { url: "mailto:x@a.example" }, { url: " https://a.example/2 " }],
    [{ url: "https://a.example/1" }, { url: "https://b.example/3" }, { url: "https://a.example/4" }],
    [{ url: "https://a.example/5" }],
  ]
  const fetchPage = (asked: Array<number>) => (page: number) =>
    Effect.sync(() => {
      asked.push(page)
      return { hits: pages[page] ?? [], next: page + 1 }
    })

  it("keeps the provider's order, drops repeats and bad URLs, and stops at the limit", async () => {
    const asked: Array<number> = []
    const hits = await Effect.runPromise(collectPages(query({ limit: 3 }), 0, 10, fetchPage(asked)))
    expect(hits.map((hit) => hit.url)).toEqual(["https://a.example/1", "https://a.example/2", "https://b.example/3"])
    expect(asked).toEqual([0, 1])
  })

  it("filters by the query's domains and stops at a page with nothing new or at maxPages", async () => {
    const asked: Array<number> = []
    const query_ = query({ limit: 10, excludeDomains: ["b.example"] })
    const hits = await Effect.runPromise(collectPages(query_, 0, 10, fetchPage(asked)))
    expect(hits.map((hit) => hit.url)).toEqual([
      "https://a.example/1",
      "https://a.example/2",
      "https://a.example/4",
      "https://a.example/5",
    ])
    expect(asked).toEqual([0, 1, 2, 3])
    const capped: Array<number> = []
    await Effect.runPromise(collectPages(query({ limit: 10 }), 0, 2, fetchPage(capped)))
    expect(capped).toEqual([0, 1])
  })
})
