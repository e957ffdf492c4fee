/** The Serper provider against a fake Serper API. */

import { describe, expect, it } from "@effect/vitest"
import * as Serper from "../../../src/Search/Providers/Serper.js"
import { CATEGORY_SITES } from "../../../src/Search/Query.js"
import { type FakeSearchReply, rateLimited, sampleItems, startFakeSerper } from "../../support/fakeSearch.js"
import { failure, failuresFor, fake, query, search, timed, urls } from "./harness.js"

const KEY = "serper-test-key"

const serperAt = (baseUrl: string) => Serper.make({ apiKey: KEY, baseUrl })

describe("the Serper provider", () => {
  it("posts the query with Google's parameters and its key", async () => {
    const api = await fake(startFakeSerper({ apiKey: KEY, corpus: { web: sampleItems("web", 30) } }))
    const answer = await search(
      serperAt(`${api.baseUrl}/`),
      query({
        limit: 5,
        categories: ["research"],
        excludeDomains: ["nature.com"],
        country: "DE",
        lang: "de",
        location: "Berlin,Berlin,Germany",
        tbs: "cdr:1,cd_min:1/5/2025,cd_max:2/10/2025",
      }),
    )
    expect(answer.provider).toBe("serper")
    const sent = api.requests[0]!
    expect(sent.method).toBe("POST")
    expect(sent.path).toBe("/search")
    expect(sent.headers["x-api-key"]).toBe(KEY)
    expect(sent.headers["content-type"]).toBe("application/json")
    expect(sent.json).toEqual({
      q: `effect typescript (${CATEGORY_SITES.research.map((site) => `site:${site}`).join(" OR ")}) -site:nature.com`,
      num: 10,
      page: 1,
      gl: "de",
      hl: "de",
      location: "Berlin,Berlin,Germany",
      tbs: "cdr:1,cd_min:1/5/2025,cd_max:2/10/2025",
    })
    // The fake applied the operators: only arxiv.org of its hosts is a research site.
    expect(urls(answer)).toEqual([4, 9, 14, 19, 24].map((n) => `https://arxiv.org/web/${n}`))
  })

  it("sends only what the query says", async () => {
    const api = await fake(startFakeSerper({ corpus: { web: sampleItems("web", 3) } }))
    await search(serperAt(api.baseUrl), query({ tbs: "qdr:d" }))
    expect(api.requests[0]?.json).toEqual({ q: "effect typescript", num: 10, page: 1, tbs: "qdr:d" })
  })

  it("pages ten at a time until it has the limit", async () => {
    const api = await fake(startFakeSerper({ corpus: { web: sampleItems("web", 40) } }))
    const answer = await search(serperAt(api.baseUrl), query({ limit: 25 }))
    expect(api.requests.map((request) => [request.json.page, request.json.num])).toEqual([
      [1, 10],
      [2, 10],
      [3, 10],
    ])
    expect(urls(answer)).toEqual(sampleItems("web", 25).map((item) => item.url))
  })

  it("stops at an empty page and after ten pages", async () => {
    const short = await fake(startFakeSerper({ corpus: { web: sampleItems("web", 12) } }))
    const few = await search(serperAt(short.baseUrl), query({ limit: 30 }))
    expect(few.hits).toHaveLength(12)
    expect(short.requests).toHaveLength(3)

    const large = await fake(startFakeSerper({ corpus: { web: sampleItems("web", 200) } }))
    const capped = await search(serperAt(large.baseUrl), query({ limit: 150 }))
    expect(capped.hits).toHaveLength(100)
    expect(large.requests).toHaveLength(10)
  })

  it("answers no hits for no results, with or without the list", async () => {
    const api = await fake(startFakeSerper({ corpus: { web: [] } }))
    expect((await search(serperAt(api.baseUrl), query())).hits).toEqual([])
    const bare = await fake(startFakeSerper({ reply: () => ({ json: { searchParameters: { q: "x" }, credits: 1 } }) }))
    expect((await search(serperAt(bare.baseUrl), query())).hits).toEqual([])
    expect(bare.requests).toHaveLength(1)
  })

  it("maps news with their dates and pictures", async () => {
    const api = await fake(startFakeSerper({ corpus: { news: sampleItems("news", 15) } }))
    const answer = await search(serperAt(api.baseUrl), query({ source: "news", limit: 12 }))
    expect(api.requests.map((request) => request.path)).toEqual(["/news", "/news"])
    expect(answer.hits).toHaveLength(12)
    const item = sampleItems("news", 1)[0]!
    expect(answer.hits[0]).toEqual({
      url: item.url,
      title: item.title,
      description: item.description,
      date: item.date,
      imageUrl: item.imageUrl,
    })
  })

  it("maps images: the page, the image and its size", async () => {
    const api = await fake(startFakeSerper({ corpus: { images: sampleItems("images", 4) } }))
    const answer = await search(serperAt(api.baseUrl), query({ source: "images", limit: 3 }))
    expect(api.requests[0]?.path).toBe("/images")
    expect(answer.hits).toEqual(
      sampleItems("images", 3).map((item) => ({
        url: item.url,
        title: item.title,
        description: undefined,
        imageUrl: item.imageUrl,
        imageWidth: item.imageWidth,
        imageHeight: item.imageHeight,
      })),
    )
  })

  it("drops results without a link, with a bad one, or repeated", async () => {
    const organic = [
      { title: "No link", snippet: "x" },
      { title: "Bad", link: "javascript:alert(1)" },
      { title: "Good", link: "https://example.com/good", snippet: "  Fine\n text  " },
      { title: "Again", link: "https://example.com/good" },
    ]
    const api = await fake(
      startFakeSerper({ reply: (_, index) => ({ json: { organic: index === 0 ? organic : [] } }) }),
    )
    const answer = await search(serperAt(api.baseUrl), query())
    expect(answer.hits).toEqual([{ url: "https://example.com/good", title: "Good", description: "Fine text" }])
  })

  it("is refused with an unknown key", async () => {
    const api = await fake(startFakeSerper({ apiKey: "another-key", corpus: { web: sampleItems("web", 3) } }))
    const error = await failure(serperAt(api.baseUrl), query())
    expect(error.reason).toBe("Refused")
  })

  it("maps the API's failures", async () => {
    const replies = {
      limited: rateLimited(5),
      unauthorized: { status: 401 },
      broken: { status: 500 },
      notJson: { text: "upstream error" },
      wrongShape: { json: { organic: { title: "not a list" } } },
      nothingKnown: { json: { hello: "world" } },
    } satisfies Record<string, FakeSearchReply>
    const results = await failuresFor(startFakeSerper, serperAt, replies)
    expect(results.limited?.reason).toBe("RateLimited")
    expect(results.limited?.message).toContain("retry after 5 s")
    expect(results.unauthorized?.reason).toBe("Refused")
    expect(results.broken?.reason).toBe("Unavailable")
    expect(results.notJson?.reason).toBe("InvalidResponse")
    expect(results.wrongShape?.reason).toBe("InvalidResponse")
    expect(results.nothingKnown?.reason).toBe("InvalidResponse")
  })

  it("fails Timeout when Serper is slower than the budget, pages included", async () => {
    const slow = await fake(
      startFakeSerper({ corpus: { web: sampleItems("web", 5) }, reply: () => ({ delayMs: 3_000 }) }),
    )
    const { value: error, ms } = await timed(() => failure(serperAt(slow.baseUrl), query({ timeoutMs: 300 })))
    expect(error.reason).toBe("Timeout")
    expect(ms).toBeLessThan(1_500)

    const paced = await fake(
      startFakeSerper({ corpus: { web: sampleItems("web", 100) }, reply: () => ({ delayMs: 150 }) }),
    )
    const paging = await failure(serperAt(paced.baseUrl), query({ limit: 60, timeoutMs: 400 }))
    expect(paging.reason).toBe("Timeout")
    expect(paced.requests.length).toBeLessThan(4)
  })
})
