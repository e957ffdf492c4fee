/** The Brave provider against a fake Brave Search API. */
import { describe, expect, it } from "@effect/vitest"
import * as Brave from "../../../src/Search/Providers/Brave.js"
import { type FakeSearchReply, rateLimited, sampleItems, startFakeBrave } from "../../support/fakeSearch.js"
import { failure, failuresFor, fake, query, search, timed, urls } from "./harness.js"

const KEY = "brave-test-key"

const braveAt = (baseUrl: string) => Brave.make({ apiKey: KEY, baseUrl })

describe("the Brave provider", () => {
  it("asks web search with its key, the query's operators, country, language, safe search and period", async () => {
    const api = await fake(startFakeBrave({ apiKey: KEY, corpus: { web: sampleItems("web", 30) } }))
    const answer = await search(
      braveAt(`${api.baseUrl}/`),
      query({
        limit: 5,
        excludeDomains: ["github.com"],
        categories: ["pdf"],
        country: "de",
        lang: "DE",
        safe: true,
        tbs: "qdr:h",
      }),
    )
    expect(answer.provider).toBe("brave")
    const sent = api.requests[0]!
    expect(sent.method).toBe("GET")
    expect(sent.path).toBe("/res/v1/web/search")
    expect(sent.headers["x-subscription-token"]).toBe(KEY)
    expect(sent.headers.accept).toBe("application/json")
    expect(sent.query).toEqual({
      q: "effect typescript -site:github.com filetype:pdf",
      count: "5",
      offset: "0",
      country: "DE",
      search_lang: "de",
      safesearch: "strict",
      freshness: "pd",
    })
  })

  it("turns Google's periods and date ranges into freshness", async () => {
    const api = await fake(startFakeBrave({ corpus: { web: sampleItems("web", 3) } }))
    const provider = braveAt(api.baseUrl)
    for (const tbs of ["qdr:d", "qdr:w", "qdr:m", "qdr:y", "cdr:1,cd_min:1/5/2025,cd_max:2/10/2025", "sbd:1"])
      await search(provider, query({ tbs, safe: false }))
    expect(api.requests.map((request) => request.query.freshness)).toEqual([
      "pd",
      "pw",
      "pm",
      "py",
      "2025-01-05to2025-02-10",
      undefined,
    ])
    expect(api.requests.every((request) => request.query.safesearch === "off")).toBe(true)
  })

  it("pages web results with offset in pages of 20 until it has the limit", async () => {
    const api = await fake(startFakeBrave({ corpus: { web: sampleItems("web", 60) } }))
    const answer = await search(braveAt(api.baseUrl), query({ limit: 25 }))
    expect(api.requests.map((request) => [request.query.count, request.query.offset])).toEqual([
      ["20", "0"],
      ["20", "1"],
    ])
    expect(urls(answer)).toEqual(sampleItems("web", 25).map((item) => item.url))
  })

  it("stops when Brave says there are no more results", async () => {
    const api = await fake(startFakeBrave({ corpus: { web: sampleItems("web", 30) } }))
    const answer = await search(braveAt(api.baseUrl), query({ limit: 100 }))
    expect(answer.hits).toHaveLength(30)
    expect(api.requests).toHaveLength(2)
  })

  it("answers no hits when the answer has no web results", async () => {
    const api = await fake(startFakeBrave({ corpus: { web: [] } }))
    const answer = await search(braveAt(api.baseUrl), query())
    expect(answer.hits).toEqual([])
    expect(api.requests).toHaveLength(1)
  })

  it("strips the highlighting and decodes entities", async () => {
    const items = [
      {
        url: "https://example.com/quotes",
        title: `Effect's "typescript" <guide>`,
        description: "Typed effects & typescript errors, for effect users",
      },
    ]
    const api = await fake(startFakeBrave({ corpus: { web: items } }))
    const answer = await search(braveAt(api.baseUrl), query())
    // The fake writes what Brave writes: `<strong>effect</strong>`, `&amp;`, `&#x27;`, `&lt;`.
    expect(answer.hits).toEqual([
      {
        url: "https://example.com/quotes",
        title: `Effect's "typescript" <guide>`,
        description: "Typed effects & typescript errors, for effect users",
      },
    ])
  })

  it("reads Brave's own markup", async () => {
    const result = {
      url: "https://example.com/a",
      title: "<strong>Effect</strong> &amp; friends",
      description: "Use <strong>Effect</strong>&#x27;s   <em>typed</em> errors &lt;E&gt; &mdash; really",
    }
    const api = await fake(startFakeBrave({ reply: () => ({ json: { type: "search", web: { results: [result] } } }) }))
    const answer = await search(braveAt(api.baseUrl), query())
    expect(answer.hits).toEqual([
      {
        url: "https://example.com/a",
        title: "Effect & friends",
        description: "Use Effect's typed errors <E> — really",
      },
    ])
  })

  it("maps news: their endpoint, larger pages, dates and thumbnails", async () => {
    const api = await fake(startFakeBrave({ corpus: { news: sampleItems("news", 80) } }))
    const answer = await search(braveAt(api.baseUrl), query({ source: "news", limit: 60, tbs: "qdr:w" }))
    expect(api.requests.map((request) => [request.path, request.query.count, request.query.offset])).toEqual([
      ["/res/v1/news/search", "50", "0"],
      ["/res/v1/news/search", "50", "1"],
    ])
    expect(api.requests[0]?.query.freshness).toBe("pw")
    expect(answer.hits).toHaveLength(60)
    const item = sampleItems("news", 1)[0]!
    expect(answer.hits[0]).toEqual({
      url: item.url,
      title: item.title,
      description: item.description,
      date: item.date,
      imageUrl: item.imageUrl,
    })
  })

  it("maps images: one request without offset or freshness, the full image and its size", async () => {
    const api = await fake(startFakeBrave({ corpus: { images: sampleItems("images", 300) } }))
    const answer = await search(braveAt(api.baseUrl), query({ source: "images", limit: 250, safe: true, tbs: "qdr:d" }))
    expect(api.requests).toHaveLength(1)
    expect(api.requests[0]?.path).toBe("/res/v1/images/search")
    expect(api.requests[0]?.query).toEqual({ q: "effect typescript", count: "200", safesearch: "strict" })
    expect(answer.hits).toHaveLength(200)
    const item = sampleItems("images", 1)[0]!
    expect(answer.hits[0]).toEqual({
      url: item.url,
      title: item.title,
      description: undefined,
      imageUrl: item.imageUrl,
      imageWidth: item.imageWidth,
      imageHeight: item.imageHeight,
    })
  })

  it("falls back to the thumbnail when an image has no properties", async () => {
    const results = [
      {
        type: "image_result",
        title: "Cat",
        url: "https://example.com/cat",
        thumbnail: { src: "https://t.example/cat" },
      },
      { type: "image_result", title: "Dog", url: "https://example.com/dog", properties: null, thumbnail: null },
    ]
    const api = await fake(startFakeBrave({ reply: () => ({ json: { type: "images", results } }) }))
    const answer = await search(braveAt(api.baseUrl), query({ source: "images" }))
    expect(answer.hits.map((hit) => [hit.url, hit.imageUrl, hit.imageWidth])).toEqual([
      ["https://example.com/cat", "https://t.example/cat", undefined],
      ["https://example.com/dog", undefined, undefined],
    ])
  })

  it("is refused with an unknown key (Brave's 422)", async () => {
    const api = await fake(startFakeBrave({ apiKey: "another-key", corpus: { web: sampleItems("web", 3) } }))
    const error = await failure(braveAt(api.baseUrl), query())
    expect(error.reason).toBe("Refused")
    expect(error.message).toContain("422")
  })

  it("maps the API's failures", async () => {
    const replies = {
      limited: rateLimited(12),
      unauthorized: { status: 401 },
      broken: { status: 500 },
      notJson: { text: "Bad gateway" },
      wrongShape: { json: { type: "search", web: { results: "none" } } },
      notSearch: { json: { message: "hello" } },
    } satisfies Record<string, FakeSearchReply>
    const results = await failuresFor(startFakeBrave, braveAt, replies)
    expect(results.limited?.reason).toBe("RateLimited")
    expect(results.limited?.message).toContain("retry after 12 s")
    expect(results.unauthorized?.reason).toBe("Refused")
    expect(results.broken?.reason).toBe("Unavailable")
    expect(results.notJson?.reason).toBe("InvalidResponse")
    expect(results.wrongShape?.reason).toBe("InvalidResponse")
    expect(results.notSearch?.reason).toBe("InvalidResponse")
  })

  it("fails Timeout when Brave is slower than the budget", async () => {
    const api = await fake(
      startFakeBrave({ corpus: { web: sampleItems("web", 5) }, reply: () => ({ delayMs: 3_000 }) }),
    )
    const { value: error, ms } = await timed(() => failure(braveAt(api.baseUrl), query({ timeoutMs: 300 })))
    expect(error.reason).toBe("Timeout")
    expect(ms).toBeLessThan(1_500)
  })

  it("keeps only results on the included domains, even when Brave ignores the operator", async () => {
    const results = sampleItems("web", 10).map((item) => ({ url: item.url, title: item.title }))
    const api = await fake(startFakeBrave({ reply: () => ({ json: { type: "search", web: { results } } }) }))
    const answer = await search(braveAt(api.baseUrl), query({ includeDomains: ["arxiv.org"] }))
    expect(api.requests[0]?.query.q).toBe("effect typescript site:arxiv.org")
    expect(urls(answer)).toEqual(["https://arxiv.org/web/4", "https://arxiv.org/web/9"])
  })

  it("fails Unsupported for no source of its own, without a request", async () => {
    const api = await fake(startFakeBrave())
    const error = await failure(braveAt(api.baseUrl), query({ source: "videos" as never }))
    expect(error.reason).toBe("Unsupported")
    expect(api.requests).toHaveLength(0)
  })
})
