/** The v1 translation, table by table: v1 bodies → the v2 bodies they stand for, v2 answers → v1 shapes. */
import { Effect } from "effect"
import { RE2JS } from "re2js"
import { describe, expect, it } from "vitest"
import { decodeStrict } from "../../src/Domain/Decode.js"
import type { Document } from "../../src/Domain/Document.js"
import { ExtractRequest } from "../../src/Domain/ExtractRequest.js"
import { decodeMapRequest } from "../../src/Domain/MapRequest.js"
import { ScrapeRequest } from "../../src/Domain/ScrapeOptions.js"
import { decodeSearchRequest } from "../../src/Domain/SearchRequest.js"
import { toV2Batch } from "../../src/V1/Batch.js"
import { deeperThan, toV2Crawl, urlDepth } from "../../src/V1/Crawl.js"
import { toV1Error } from "../../src/V1/Errors.js"
import { toV2Extract } from "../../src/V1/Extract.js"
import { toV1Status } from "../../src/V1/JobStatus.js"
import { toV1Map, toV2Map } from "../../src/V1/Map.js"
import { toV2Scrape } from "../../src/V1/Scrape.js"
import { toV1Document } from "../../src/V1/ScrapeOptions.js"
import { toV1Search, toV2Search } from "../../src/V1/Search.js"
import { decoding } from "../support/decoding.js"

const URL = "https://example.com/docs"
/** What every v1 scrape says where v2 would decide otherwise. */
const V1_SCRAPE = { maxAge: 0, timeout: 30_000, skipTlsVerification: false, proxy: "basic" } as const
const V1_OPTIONS = { maxAge: 0, skipTlsVerification: false, proxy: "basic" } as const
const SCHEMA = { type: "object", properties: { price: { type: "number" } } }

const scrape = decoding(toV2Scrape)
const crawl = decoding(toV2Crawl)
const map = decoding(toV2Map)
const batch = decoding(toV2Batch)
const v2Scrape = decoding(decodeStrict(ScrapeRequest))
const v2Map = decoding(decodeMapRequest)
/** v1's 400, as the v1 route answers it. */
const v1Bad = (decode: ReturnType<typeof decoding>, input: unknown) => toV1Error(decode.bad(input))

describe("v1 scrape bodies", () => {
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>, string]> = [
    ["no options: no cache reads (maxAge 0), v1's 30 s", {}, {}, "extract"],
    ["a maxAge given is kept", { maxAge: 60_000 }, { maxAge: 60_000 }, "extract"],
    ["__experimental_cache: up to 4 hours", { __experimental_cache: true }, { maxAge: 4 * 3600_000 }, "extract"],
    ["plain formats pass", { formats: ["markdown", "html", "rawHtml", "links"] }, {}, "extract"],
    ["screenshot flag", { formats: ["screenshot"] }, { formats: ["screenshot"] }, "extract"],
    [
      "screenshot@fullPage flag",
      { formats: ["screenshot@fullPage"] },
      { formats: [{ type: "screenshot", fullPage: true }] },
      "extract",
    ],
    [
      "extract format with its options, 60 s for the model",
      { formats: ["extract"], extract: { schema: SCHEMA, prompt: "the price", systemPrompt: "x", mode: "llm" } },
      { formats: [{ type: "json", schema: SCHEMA, prompt: "the price" }], timeout: 60_000 },
      "extract",
    ],
    [
      "json format with jsonOptions",
      { formats: ["markdown", "json"], jsonOptions: { prompt: "the price", temperature: 0.2 } },
      { formats: ["markdown", { type: "json", prompt: "the price" }], timeout: 60_000 },
      "json",
    ],
    [
      "extract and json are one v2 json format",
      { formats: ["json", "extract"], jsonOptions: { prompt: "a" }, extract: { prompt: "b" } },
      { formats: [{ type: "json", prompt: "a" }], timeout: 60_000 },
      "json",
    ],
    [
      "changeTracking with its options",
      { formats: ["markdown", "changeTracking"], changeTrackingOptions: { modes: ["git-diff"], tag: "t" } },
      { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "t" }] },
      "extract",
    ],
    ["parsePDF: true", { parsePDF: true }, { parsers: ["pdf"] }, "extract"],
    ["parsePDF: false", { parsePDF: false }, { parsers: [] }, "extract"],
    ["geolocation is location", { geolocation: { country: "DE" } }, { location: { country: "DE" } }, "extract"],
    ["a timeout given is kept", { timeout: 10_000, waitFor: 1000 }, { timeout: 10_000, waitFor: 1000 }, "extract"],
    [
      "the proxy given is kept",
      { proxy: "auto", skipTlsVerification: true },
      { proxy: "auto", skipTlsVerification: true },
      "extract",
    ],
    ["the preview token is a no-op", { __searchPreviewToken: "t" }, {}, "extract"],
  ]
  it.each(rows)("%s", (_, v1, v2, field) => {
    const out = scrape.ok({ url: URL, ...v1 })
    const { formats: _f, extract: _e, jsonOptions: _j, changeTrackingOptions: _c, ...rest } = v1
    const expected = {
      url: URL,
      ...V1_SCRAPE,
      ...(v1.formats !== undefined && v2.formats === undefined ? { formats: v1.formats } : {}),
      ...Object.fromEntries(Object.entries(rest).filter(([key]) => !["parsePDF", "geolocation"].includes(key))),
      ...v2,
    }
    delete (expected as Record<string, unknown>).__experimental_cache
    delete (expected as Record<string, unknown>).__searchPreviewToken
    expect(out.body).toEqual(expected)
    expect(out.llmField).toBe(field)
    // What the translation gives is a valid v2 request.
    expect(v2Scrape.ok(out.body).url).toBe(URL)
  })

  const bad: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ["an unknown key", { fooBar: 1 }, "Unrecognized key in body -- please review the v1 API documentation"],
    ["a v2-only key (parsers)", { parsers: ["pdf"] }, "Unrecognized key"],
    ["a v2-only format", { formats: ["images"] }, "Bad Request"],
    ["a v2 format object", { formats: [{ type: "markdown" }] }, "Bad Request"],
    ["extract without its options", { formats: ["extract"] }, "When 'extract' or 'json' format is specified"],
    ["options without their format", { jsonOptions: { prompt: "x" } }, "When 'extract' or 'json' format is specified"],
    [
      "both screenshot flags",
      { formats: ["screenshot", "screenshot@fullPage"] },
      "You may only specify either screenshot or screenshot@fullPage",
    ],
    ["parsePDF not a boolean", { parsePDF: "yes" }, "Bad Request"],
  ]
  it.each(bad)("refuses %s with a 400", (_, v1, message) => {
    const error = v1Bad(scrape, { url: URL, ...v1 })
    expect(error.reason).toBe("Validation")
    expect(error.message).toContain(message)
  })

  it("leaves a bad shared field to v2's decoder, which answers its 400", () => {
    const out = scrape.ok({ url: URL, waitFor: "soon" })
    expect(v2Scrape.bad(out.body).reason).toBe("Validation")
  })
})

describe("v1 crawl bodies", () => {
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ["no options: scrape defaults of v1", {}, {}],
    ["allowBackwardLinks is crawlEntireDomain", { allowBackwardLinks: true }, { crawlEntireDomain: true }],
    [
      "crawlEntireDomain wins over allowBackwardLinks",
      { allowBackwardLinks: true, crawlEntireDomain: false },
      { crawlEntireDomain: false },
    ],
    ["ignoreSitemap is sitemap skip", { ignoreSitemap: true }, { sitemap: "skip" }],
    ["ignoreSitemap false is v2's default", { ignoreSitemap: false }, {}],
    ["maxDepth bounds path depth below the start URL", { maxDepth: 2 }, { excludePaths: [deeperThan(3, false)] }],
    [
      "maxDepth keeps the caller's excludePaths",
      { maxDepth: 1, excludePaths: ["^/blog"] },
      { excludePaths: ["^/blog", deeperThan(2, false)] },
    ],
    [
      "maxDepth on full URLs with regexOnFullURL",
      { maxDepth: 1, regexOnFullURL: true },
      { regexOnFullURL: true, excludePaths: [deeperThan(2, true)] },
    ],
    ["maxDiscoveryDepth passes", { maxDiscoveryDepth: 2, limit: 5 }, { maxDiscoveryDepth: 2, limit: 5 }],
    ["a string webhook passes", { webhook: "https://hooks.example.com/x" }, { webhook: "https://hooks.example.com/x" }],
    [
      "an object webhook passes",
      { webhook: { url: "https://hooks.example.com/x", events: ["completed"] } },
      { webhook: { url: "https://hooks.example.com/x", events: ["completed"] } },
    ],
  ]
  it.each(rows)("%s", (_, v1, v2) => {
    const { allowBackwardLinks: _a, ignoreSitemap: _i, maxDepth: _m, ...same } = v1
    expect(crawl.ok({ url: URL, ...v1 })).toEqual({ url: URL, ...same, ...v2, scrapeOptions: V1_OPTIONS })
  })

  it("translates scrapeOptions like a scrape, without v1's scrape timeout", () => {
    expect(
      crawl.ok({ url: URL, scrapeOptions: { formats: ["screenshot@fullPage", "extract"], extract: { prompt: "p" } } })
        .scrapeOptions,
    ).toEqual({
      ...V1_OPTIONS,
      formats: [
        { type: "screenshot", fullPage: true },
        { type: "json", prompt: "p" },
      ],
    })
  })

  it("refuses what v1 refused", () => {
    expect(v1Bad(crawl, { url: "https://example.com/a/b/c", maxDepth: 2 }).message).toBe(
      "URL depth exceeds the specified maxDepth",
    )
    expect(v1Bad(crawl, { url: URL, sitemap: "skip" }).message).toContain("v1 API documentation")
    expect(v1Bad(crawl, { url: URL, prompt: "the blog" }).message).toContain("Unrecognized key")
    expect(v1Bad(crawl, { url: URL, scrapeOptions: { formats: ["json"] } }).message).toContain("'json' format")
    expect(v1Bad(crawl, { url: URL, maxDepth: -1 }).reason).toBe("Validation")
  })

  it("counts path depth as v1 did and builds depth patterns RE2 runs", () => {
    expect(urlDepth("https://example.com/")).toBe(0)
    expect(urlDepth("https://example.com/a/index.html")).toBe(1)
    expect(urlDepth("https://example.com/a/b/")).toBe(2)
    const path = RE2JS.compile(deeperThan(2, false))
    expect(["/a", "/a/b", "/a/b/"].map((p) => path.matcher(p).find())).toEqual([false, false, false])
    expect(["/a/b/c", "/a/b/c/d"].map((p) => path.matcher(p).find())).toEqual([true, true])
    const full = RE2JS.compile(deeperThan(1, true))
    expect(full.matcher("https://example.com/a?x=/y/z").find()).toBe(false)
    expect(full.matcher("https://example.com/a/b").find()).toBe(true)
  })
})

describe("v1 map bodies", () => {
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ["no options", {}, {}],
    ["ignoreSitemap is sitemap skip", { ignoreSitemap: true }, { sitemap: "skip" }],
    ["sitemapOnly is sitemap only (and wins)", { sitemapOnly: true, ignoreSitemap: true }, { sitemap: "only" }],
    ["allowBackwardLinks is crawlEntireDomain", { allowBackwardLinks: true }, { crawlEntireDomain: true }],
    ["maxDepth is accepted and has no effect", { maxDepth: 3 }, {}],
    [
      "shared fields pass",
      { search: "docs", limit: 30_000, includeSubdomains: false, ignoreQueryParameters: false },
      { search: "docs", limit: 30_000, includeSubdomains: false, ignoreQueryParameters: false },
    ],
  ]
  it.each(rows)("%s", (_, v1, v2) => {
    const out = map.ok({ url: URL, ...v1 })
    expect(out).toEqual({ url: URL, ...v2 })
    expect(v2Map.ok(out).url).toBe(URL)
  })

  it("refuses v1's limit above 30,000 and keys v1's map had not", () => {
    expect(v1Bad(map, { url: URL, limit: 30_001 }).reason).toBe("Validation")
    expect(v1Bad(map, { url: URL, sitemap: "only" }).message).toContain("v1 API documentation")
    expect(v1Bad(map, { url: URL, location: { country: "US" } }).message).toContain("Unrecognized key")
  })

  it("answers links as strings", () => {
    expect(
      toV1Map({ links: [{ url: "https://example.com/a", title: "A" }, { url: "https://example.com/b" }] }),
    ).toEqual({ success: true, links: ["https://example.com/a", "https://example.com/b"] })
    expect(toV1Map({ links: [], warning: "w" })).toEqual({ success: true, links: [], warning: "w" })
  })
})

describe("v1 batch scrape bodies", () => {
  it("translates the top-level scrape options and passes the batch fields", () => {
    const urls = ["https://example.com/a", "https://example.com/b"]
    expect(
      batch.ok({
        urls,
        formats: ["links", "screenshot@fullPage"],
        parsePDF: false,
        ignoreInvalidURLs: true,
        webhook: "https://hooks.example.com/x",
        maxConcurrency: 2,
      }),
    ).toEqual({
      urls,
      ...V1_OPTIONS,
      formats: ["links", { type: "screenshot", fullPage: true }],
      parsers: [],
      ignoreInvalidURLs: true,
      webhook: "https://hooks.example.com/x",
      maxConcurrency: 2,
    })
    expect(v1Bad(batch, { urls, formats: ["extract"] }).message).toContain("'extract' or 'json'")
    expect(v1Bad(batch, { urls, scrapeOptions: {} }).message).toContain("Unrecognized key")
  })
})

describe("v1 search bodies", () => {
  const search = decoding(toV2Search)
  const v2Search = decoding(decodeSearchRequest)
  it.each([
    ["no options: v1's 5 results, scrape defaults of v1", {}, { limit: 5 }, "extract"],
    [
      "shared fields pass",
      { limit: 20, lang: "de", country: "de", tbs: "qdr:d", location: "Berlin", timeout: 5000 },
      { limit: 20, lang: "de", country: "de", tbs: "qdr:d", location: "Berlin", timeout: 5000 },
      "extract",
    ],
  ] as const)("%s", (_, v1, v2, field) => {
    const out = search.ok({ query: "tides", ...v1 })
    expect(out).toEqual({ body: { query: "tides", ...v2, scrapeOptions: V1_OPTIONS }, llmField: field })
    expect(v2Search.ok(out.body).query).toBe("tides")
  })

  it("translates scrapeOptions and knows where the LLM output goes", () => {
    const out = search.ok({ query: "q", scrapeOptions: { formats: ["json"], jsonOptions: { prompt: "p" } } })
    expect(out.body.scrapeOptions).toEqual({ ...V1_OPTIONS, formats: [{ type: "json", prompt: "p" }] })
    expect(out.llmField).toBe("json")
    expect(v1Bad(search, { query: "q", sources: ["news"] }).message).toContain("v1 API documentation")
  })

  it("answers web results as a flat list of documents", () => {
    expect(
      toV1Search(
        {
          id: "s",
          creditsUsed: 1,
          data: {
            web: [{ url: "https://example.com/a", title: "A", position: 1, json: { x: 1 } }],
            news: [{ url: "https://example.com/n", position: 1 }],
          },
        },
        "extract",
      ),
    ).toEqual({ success: true, data: [{ url: "https://example.com/a", title: "A", extract: { x: 1 } }] })
  })
})

describe("v1 extract bodies", () => {
  const extract = decoding(toV2Extract)
  const v2Extract = decoding(decodeStrict(ExtractRequest))
  it("refuses invalid URLs by default, translates scrapeOptions and keeps the rest", () => {
    const body = { urls: [URL], prompt: "p", schema: SCHEMA, showSources: true, enableWebSearch: true }
    const out = extract.ok({ ...body, scrapeOptions: { formats: ["screenshot@fullPage"], onlyMainContent: false } })
    expect(out).toEqual({
      ...body,
      ignoreInvalidURLs: false,
      scrapeOptions: { ...V1_OPTIONS, onlyMainContent: false, formats: [{ type: "screenshot", fullPage: true }] },
    })
    expect(v2Extract.ok(out).prompt).toBe("p")
    expect(extract.ok({ urls: [URL], ignoreInvalidURLs: true }).ignoreInvalidURLs).toBe(true)
    expect(v1Bad(extract, { urls: [URL], webhook: "https://hooks.example.com/x" }).message).toContain(
      "Unrecognized key",
    )
  })
})

describe("v2 answers in v1 shapes", () => {
  const document: Document = {
    markdown: "# Hi",
    links: ["https://example.com/a"],
    json: { price: 3 },
    metadata: { sourceURL: URL, url: URL, statusCode: 200, scrapeId: "s" },
  }
  it.each([
    ["extract", { markdown: "# Hi", links: ["https://example.com/a"], extract: { price: 3 } }],
    ["json", { markdown: "# Hi", links: ["https://example.com/a"], json: { price: 3 } }],
    ["both", { markdown: "# Hi", links: ["https://example.com/a"], json: { price: 3 }, extract: { price: 3 } }],
  ] as const)("puts the LLM output under %s", (field, expected) => {
    expect(toV1Document(document, field)).toEqual({ ...expected, metadata: document.metadata })
  })

  it("leaves a document without LLM output as it is", () => {
    const { json: _, ...plain } = document
    expect(toV1Document(plain, "extract")).toEqual(plain)
  })

  it("answers a status page without v2's timing fields", () => {
    const head = {
      success: true as const,
      status: "scraping" as const,
      completed: 1,
      total: 2,
      creditsUsed: 1,
      expiresAt: "2030-01-01T00:00:00.000Z",
      createdAt: "2029-12-31T00:00:00.000Z",
      duration: 3,
      next: "http://api.test/v1/crawl/x?skip=1",
    }
    const { createdAt: _c, duration: _d, ...v1Head } = head
    expect(toV1Status(head, [document])).toEqual({
      ...v1Head,
      data: [toV1Document(document, "both")],
    })
  })

  it("answers v2's failures in v1's envelope, naming v1's documentation", async () => {
    const error = await Effect.runPromise(Effect.flip(decodeStrict(ScrapeRequest)({ url: URL, nope: 1 })))
    expect(error.message).toContain("v2 API documentation")
    const v1 = toV1Error(error)
    expect(v1.message).toBe(error.message.replace("v2", "v1"))
    expect(v1.details).toEqual(error.details)
    const other = await Effect.runPromise(Effect.flip(decodeStrict(ScrapeRequest)({ url: URL, timeout: 1 })))
    expect(toV1Error(other)).toBe(other)
  })
})
