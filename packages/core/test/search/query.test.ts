import { describe, expect, it } from "vitest"
import { admits, categoryOf, onDomain, parseTbs, timeWindow, withOperators } from "../../src/Search/Query.js"
import type { SearchQuery } from "../../src/Search/SearchProvider.js"

const query = (fields: Partial<SearchQuery>): SearchQuery => ({
  source: "web",
  query: "effect layers",
  limit: 10,
  timeoutMs: 1000,
  owner: null,
  ...fields,
})

describe("search operators", () => {
  it("adds categories and domains to the words", () => {
    expect(withOperators(query({}))).toBe("effect layers")
    expect(withOperators(query({ includeDomains: ["effect.website"] }))).toBe("effect layers site:effect.website")
    expect(withOperators(query({ categories: ["github", "pdf"], excludeDomains: ["spam.example"] }))).toBe(
      "effect layers site:github.com -site:spam.example filetype:pdf",
    )
    expect(withOperators(query({ includeDomains: ["a.com", "b.org"] }))).toBe(
      "effect layers (site:a.com OR site:b.org)",
    )
  })

  it("checks results against them", () => {
    expect(onDomain("www.Docs.Example.com", "example.com")).toBe(true)
    expect(onDomain("notexample.com", "example.com")).toBe(false)
    expect(admits(query({ includeDomains: ["example.com"] }), { url: "https://api.example.com/x" })).toBe(true)
    expect(admits(query({ includeDomains: ["example.com"] }), { url: "https://example.org/x" })).toBe(false)
    expect(admits(query({ excludeDomains: ["example.com"] }), { url: "https://example.com/x" })).toBe(false)
    expect(admits(query({ categories: ["pdf"] }), { url: "https://x.org/paper.PDF" })).toBe(true)
    expect(admits(query({ categories: ["pdf"] }), { url: "https://x.org/paper.html" })).toBe(false)
    expect(admits(query({}), { url: "not a url" })).toBe(false)
    expect(categoryOf("https://arxiv.org/abs/2401.1", ["github", "research"])).toBe("research")
    expect(categoryOf("https://gist.github.com/a", ["github"])).toBe("github")
  })
})

describe("tbs", () => {
  it("reads recent periods, date ranges and sorting", () => {
    expect(parseTbs("qdr:w")).toEqual({ recent: "w", sortByDate: false })
    expect(parseTbs("sbd:1,qdr:d")).toEqual({ recent: "d", sortByDate: true })
    const range = parseTbs("cdr:1,cd_min:01/31/2026,cd_max:2/1/2026")
    expect(range?.from).toBe(Date.UTC(2026, 0, 31))
    expect(range?.to).toBe(Date.UTC(2026, 1, 2) - 1)
  })

  it("ignores what it does not understand", () => {
    expect(parseTbs(undefined)).toBeUndefined()
    expect(parseTbs("qdr:x")).toBeUndefined()
    expect(parseTbs("cdr:1,cd_min:02/30/2026")).toBeUndefined()
    expect(parseTbs("li:1")).toBeUndefined()
  })

  it("turns a recent period into a window ending now", () => {
    const now = Date.UTC(2026, 10, 25, 12)
    expect(timeWindow({ recent: "h", sortByDate: false }, now)).toEqual({ from: now - 3_600_000 })
    expect(timeWindow({ from: 1, to: 2, sortByDate: false }, now)).toEqual({ from: 1, to: 2 })
  })
})
