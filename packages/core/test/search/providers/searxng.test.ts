/** The SearXNG provider against a fake instance speaking its JSON API. */
import { describe, expect, it } from "@effect/vitest"
import * as Searxng from "../../../src/Search/Providers/Searxng.js"
import { type FakeSearchReply, rateLimited, sampleItems, startFakeSearxng } from "../../support/fakeSearch.js"
import { failure, failuresFor, fake, query, search, timed, urls } from "./harness.js"

const DAY = 86_400_000

/** `cdr:` bounds as Google writes them. */
const usDate = (time: number) => {
  const date = new Date(time)
  return `${date.getUTCMonth() + 1}/${date.getUTCDate()}/${date.getUTCFullYear()}`
}

describe("the SearXNG provider", () => {
  it("asks the JSON API with the query's operators, locale, period and safe search", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 5) } }))
    const provider = Searxng.make({ baseUrl: `${instance.baseUrl}/search/` })
    const answer = await search(
      provider,
      query({
        includeDomains: ["example.com"],
        excludeDomains: ["docs.example.org"],
        lang: "EN",
        country: "us",
        tbs: "qdr:w",
        safe: true,
      }),
    )
    expect(answer.provider).toBe("searxng")
    // One result on the first page, and a second page to learn there are no more.
    expect(instance.requests.map((request) => request.query.pageno)).toEqual(["1", "2"])
    const sent = instance.requests[0]!
    expect(sent.method).toBe("GET")
    expect(sent.path).toBe("/search")
    expect(sent.query).toEqual({
      q: "effect typescript site:example.com -site:docs.example.org",
      format: "json",
      categories: "general",
      pageno: "1",
      language: "en-US",
      time_range: "week",
      safesearch: "2",
    })
    expect(urls(answer)).toEqual(["https://example.com/web/1"])
    expect(answer.hits[0]).toEqual({
      url: "https://example.com/web/1",
      title: "Web result 1",
      description: "About result 1 & more",
    })
  })

  it("leaves out what the query does not say, and maps hours to a day and a date range to a covering period", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 3) } }))
    const provider = Searxng.make({ baseUrl: instance.baseUrl })
    const now = Date.now()
    await search(provider, query({ safe: false, lang: "de" }))
    await search(provider, query({ tbs: "qdr:h" }))
    await search(provider, query({ tbs: `cdr:1,cd_min:${usDate(now - 3 * DAY)},cd_max:${usDate(now)}` }))
    await search(provider, query({ tbs: `cdr:1,cd_min:${usDate(now - 20 * DAY)},cd_max:${usDate(now - 10 * DAY)}` }))
    await search(provider, query({ tbs: "cdr:1,cd_min:1/1/2001,cd_max:1/1/2002" }))
    const [plain, hour, days, weeks, old] = instance.requests
      .filter((request) => request.query.pageno === "1")
      .map((request) => request.query)
    expect(plain).toEqual({
      q: "effect typescript",
      format: "json",
      categories: "general",
      pageno: "1",
      language: "de",
      safesearch: "0",
    })
    expect(hour?.time_range).toBe("day")
    expect(days?.time_range).toBe("week")
    expect(weeks?.time_range).toBe("month")
    expect(old?.time_range).toBeUndefined()
  })

  it("pages with pageno until it has the limit", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 40) } }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ limit: 25 }))
    expect(instance.requests.map((request) => request.query.pageno)).toEqual(["1", "2", "3"])
    expect(urls(answer)).toEqual(sampleItems("web", 25).map((item) => item.url))
  })

  it("stops when the results run out, when a page brings nothing new, and after five pages", async () => {
    const short = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 12) } }))
    const few = await search(Searxng.make({ baseUrl: short.baseUrl }), query({ limit: 50 }))
    expect(few.hits).toHaveLength(12)
    expect(short.requests).toHaveLength(3)

    // Some instances answer every pageno with the same results.
    const first = { results: sampleItems("web", 10).map((item) => ({ url: item.url, title: item.title })) }
    const repeating = await fake(startFakeSearxng({ reply: () => ({ json: first }) }))
    const repeated = await search(Searxng.make({ baseUrl: repeating.baseUrl }), query({ limit: 50 }))
    expect(repeated.hits).toHaveLength(10)
    expect(repeating.requests).toHaveLength(2)

    const large = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 200) } }))
    const capped = await search(Searxng.make({ baseUrl: large.baseUrl }), query({ limit: 100 }))
    expect(capped.hits).toHaveLength(50)
    expect(large.requests).toHaveLength(5)
  })

  it("answers no hits for no results", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { web: [] } }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query())
    expect(answer.hits).toEqual([])
    expect(instance.requests).toHaveLength(1)
  })

  it("fails Unavailable when no engine answered, rather than answer nothing", async () => {
    const instance = await fake(
      startFakeSearxng({
        reply: () => ({
          json: {
            results: [],
            number_of_results: 0,
            unresponsive_engines: [
              ["google", "Suspended: too many requests"],
              ["bing", "timeout"],
            ],
          },
        }),
      }),
    )
    const error = await failure(Searxng.make({ baseUrl: instance.baseUrl }), query())
    expect(error.reason).toBe("Unavailable")
    expect(error.message).toContain("google (Suspended: too many requests)")
    expect(error.message).toContain("bing (timeout)")
  })

  it("drops results without an http(s) URL, repeated ones and those the domains exclude", async () => {
    const results = [
      { url: "https://github.com/effect-ts/effect", title: "Effect" },
      { url: "ftp://github.com/file", title: "FTP" },
      { url: "not a url", title: "Broken" },
      { title: "No URL" },
      { url: "https://github.com/effect-ts/effect", title: "Again" },
      { url: "https://example.com/elsewhere", title: "Elsewhere" },
      { url: "https://gist.github.com/someone/1", title: "Gist", content: null, publishedDate: 12 },
    ]
    const instance = await fake(
      startFakeSearxng({ reply: (_, index) => ({ json: { results: index === 0 ? results : [] } }) }),
    )
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ categories: ["github"] }))
    expect(instance.requests[0]?.query.q).toBe("effect typescript site:github.com")
    expect(answer.hits).toEqual([
      { url: "https://github.com/effect-ts/effect", title: "Effect", description: undefined },
      { url: "https://gist.github.com/someone/1", title: "Gist", description: undefined },
    ])
  })

  it("maps news with their dates and pictures", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { news: sampleItems("news", 3) } }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ source: "news", limit: 2 }))
    expect(instance.requests[0]?.query.categories).toBe("news")
    const [item] = sampleItems("news", 1)
    expect(answer.hits).toHaveLength(2)
    expect(answer.hits[0]).toEqual({
      url: item?.url,
      title: item?.title,
      description: item?.description,
      date: item?.date,
      imageUrl: item?.imageUrl,
    })
  })

  it("maps images with their source, page and size (both ways SearXNG writes it)", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { images: sampleItems("images", 2) } }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ source: "images" }))
    expect(instance.requests[0]?.query.categories).toBe("images")
    expect(answer.hits).toEqual(
      sampleItems("images", 2).map((item) => ({
        url: item.url,
        title: item.title,
        description: item.description,
        imageUrl: item.imageUrl,
        imageWidth: item.imageWidth,
        imageHeight: item.imageHeight,
      })),
    )
  })

  it("resolves protocol-relative image sources and falls back to the thumbnail", async () => {
    const results = [
      { url: "https://example.com/a", title: "A", img_src: "//cdn.example.com/a.png", resolution: "10 × 20" },
      { url: "https://example.com/b", title: "B", img_src: "", thumbnail_src: "https://cdn.example.com/b-small.png" },
    ]
    const instance = await fake(startFakeSearxng({ reply: () => ({ json: { results } }) }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ source: "images", limit: 2 }))
    expect(answer.hits.map((hit) => [hit.imageUrl, hit.imageWidth, hit.imageHeight])).toEqual([
      ["https://cdn.example.com/a.png", 10, 20],
      ["https://cdn.example.com/b-small.png", undefined, undefined],
    ])
  })

  it("maps the API's failures", async () => {
    const replies = {
      limited: rateLimited(30),
      unauthorized: { status: 401 },
      forbidden: { status: 403 },
      broken: { status: 500 },
      notJson: { text: "<html>Oops</html>" },
      wrongShape: { json: { results: "none" } },
      notAnObject: { json: [1, 2, 3] },
    } satisfies Record<string, FakeSearchReply>
    const results = await failuresFor(startFakeSearxng, (baseUrl: string) => Searxng.make({ baseUrl }), replies)
    expect(results.limited?.reason).toBe("RateLimited")
    expect(results.limited?.message).toContain("retry after 30 s")
    expect(results.unauthorized?.reason).toBe("Refused")
    expect(results.forbidden?.reason).toBe("Refused")
    expect(results.forbidden?.message).toContain("search.formats")
    expect(results.broken?.reason).toBe("Unavailable")
    expect(results.notJson?.reason).toBe("InvalidResponse")
    expect(results.wrongShape?.reason).toBe("InvalidResponse")
    expect(results.notAnObject?.reason).toBe("InvalidResponse")
  })

  it("fails Timeout when the instance is slower than the budget, without waiting for it", async () => {
    const instance = await fake(
      startFakeSearxng({ corpus: { web: sampleItems("web", 5) }, reply: () => ({ delayMs: 3_000 }) }),
    )
    const { value: error, ms } = await timed(() =>
      failure(Searxng.make({ baseUrl: instance.baseUrl }), query({ timeoutMs: 300 })),
    )
    expect(error.reason).toBe("Timeout")
    expect(ms).toBeLessThan(1_500)
  })

  it("spends one budget across its pages", async () => {
    const instance = await fake(
      startFakeSearxng({ corpus: { web: sampleItems("web", 100) }, reply: () => ({ delayMs: 200 }) }),
    )
    const { value: error, ms } = await timed(() =>
      failure(Searxng.make({ baseUrl: instance.baseUrl }), query({ limit: 50, timeoutMs: 500 })),
    )
    expect(error.reason).toBe("Timeout")
    expect(instance.requests.length).toBeGreaterThanOrEqual(2)
    expect(instance.requests.length).toBeLessThanOrEqual(3)
    expect(ms).toBeLessThan(1_200)
  })

  it("does not ask for nothing", async () => {
    const instance = await fake(startFakeSearxng({ corpus: { web: sampleItems("web", 5) } }))
    const answer = await search(Searxng.make({ baseUrl: instance.baseUrl }), query({ limit: 0 }))
    expect(answer.hits).toEqual([])
    expect(instance.requests).toHaveLength(0)
  })
})
