import { createServer } from "node:http"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import {
  type SearchAnswer,
  SearchError,
  type SearchHit,
  type SearchProviderShape,
  type SearchQuery,
  type SearchSource,
} from "../../src/Search/SearchProvider.js"
import { Webdata, WebdataError } from "../../src/Webdata.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

/** A provider answering from a script, remembering the queries it got. */
const scripted = (
  name: string,
  answer: (query: SearchQuery) => Effect.Effect<ReadonlyArray<SearchHit>, SearchError>,
  sources: ReadonlyArray<SearchSource> = ["web", "news", "images"],
) => {
  const seen: SearchQuery[] = []
  const provider: SearchProviderShape = {
    name,
    sources,
    search: (query) => {
      seen.push(query)
      return Effect.map(answer(query), (hits): SearchAnswer => ({ hits, provider: name }))
    },
  }
  return { provider, seen }
}

let site: Listening
const page = (path: string) => `${site.url}${path}`

beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((request, response) => {
      const path = request.url ?? "/"
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(
        `<!doctype html><html><head><title>Page ${path}</title></head><body><main><h1>Heading of ${path}</h1><p>Body text of ${path}.</p></main></body></html>`,
      )
    }),
  )
})
afterAll(() => site.close())

const handlers: Array<ReturnType<typeof makeWebHandler>> = []
afterAll(() => Promise.all(handlers.map((handler) => handler.dispose())))

const serve = (search: ReadonlyArray<SearchProviderShape>) => {
  const handler = makeWebHandler(
    Layer.merge(Engine.layer({ worker: false, allowPrivateAddresses: true, search }), ServerConfig.layer()),
  )
  handlers.push(handler)
  return async (body: unknown) => {
    const response = await handler.handler(
      new Request("http://api.test/v2/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    )
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
    return { status: response.status, body: (await response.json()) as Record<string, any> }
  }
}

const hits = (...urls: ReadonlyArray<string>): ReadonlyArray<SearchHit> =>
  urls.map((url, index) => ({ url, title: `Result ${index + 1}`, description: `About ${url}` }))

describe("POST /v2/search", () => {
  const web = scripted("fake", (query) =>
    Effect.succeed(
      query.source === "images"
        ? [{ url: "https://pics.example.com/p", title: "A picture", imageUrl: "https://pics.example.com/p.jpg" }]
        : hits("https://a.example.com/1", "https://b.example.org/2", "https://a.example.com/1", "ftp://c.example/3"),
    ),
  )
  const post = serve([web.provider])

  it("answers Firecrawl's shape: the requested sources, numbered, deduplicated, with an id and credits", async () => {
    const { status, body } = await post({ query: "effect layers" })
    expect(status).toBe(200)
    expect(body).toMatchObject({ success: true, creditsUsed: 2 })
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Object.keys(body.data)).toEqual(["web"])
    expect(body.data.web).toEqual([
      { url: "https://a.example.com/1", title: "Result 1", description: "About https://a.example.com/1", position: 1 },
      { url: "https://b.example.org/2", title: "Result 2", description: "About https://b.example.org/2", position: 2 },
    ])
  })

  it("hands the provider a structured query with Firecrawl's defaults and inheritance", async () => {
    web.seen.length = 0
    await post({ query: "q", sources: ["web", "news", "images"], tbs: "qdr:w", limit: 3 })
    const bySource = Object.fromEntries(web.seen.map((query) => [query.source, query]))
    expect(bySource.web).toMatchObject({ query: "q", limit: 3, tbs: "qdr:w", lang: "en", country: "us" })
    expect(bySource.news).toMatchObject({ tbs: "qdr:w", country: "us" })
    expect(bySource.images?.tbs).toBeUndefined()

    web.seen.length = 0
    await post({ query: "q", location: "Berlin,Germany", sources: [{ type: "web", tbs: "qdr:d" }] })
    expect(web.seen[0]).toMatchObject({ tbs: "qdr:d", location: "Berlin,Germany" })
    expect(web.seen[0]?.country).toBeUndefined()
  })

  it("keeps only results of the requested domains and categories, and names the category", async () => {
    const mixed = scripted("mixed", () =>
      Effect.succeed(
        hits(
          "https://github.com/effect-ts/effect",
          "https://docs.github.com/x",
          "https://arxiv.org/abs/1",
          "https://blog.example.com/post",
        ),
      ),
    )
    const ask = serve([mixed.provider])
    const github = await ask({ query: "effect", categories: ["github", { type: "research" }] })
    expect(github.body.data.web.map((item: { url: string; category: string }) => [item.url, item.category])).toEqual([
      ["https://github.com/effect-ts/effect", "github"],
      ["https://docs.github.com/x", "github"],
      ["https://arxiv.org/abs/1", "research"],
    ])
    expect(mixed.seen[0]?.categories).toEqual(["github", "research"])

    const excluded = await ask({ query: "effect", excludeDomains: ["https://github.com/"] })
    expect(excluded.body.data.web.map((item: { url: string }) => item.url)).toEqual([
      "https://arxiv.org/abs/1",
      "https://blog.example.com/post",
    ])
    const included = await ask({ query: "effect", includeDomains: ["example.com"] })
    expect(included.body.data.web.map((item: { url: string }) => item.url)).toEqual(["https://blog.example.com/post"])
  })

  it("drops results other endpoints would refuse with ignoreInvalidURLs", async () => {
    const odd = scripted("odd", () => Effect.succeed(hits("https://wiki.notatld/page", "https://ok.example.com/")))
    const ask = serve([odd.provider])
    expect((await ask({ query: "x" })).body.data.web).toHaveLength(2)
    const { body } = await ask({ query: "x", ignoreInvalidURLs: true })
    expect(body.data.web.map((item: { url: string }) => item.url)).toEqual(["https://ok.example.com/"])
  })

  it("answers Firecrawl's validation errors", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /Bad Request|Required/],
      [{ query: "" }, /Query cannot be empty/],
      [{ query: "x", limit: 101 }, /Bad Request|between/],
      [{ query: "x", sources: ["video"] }, /Bad Request/],
      [{ query: "x", includeDomains: ["a.com"], excludeDomains: ["b.com"] }, /cannot both be specified/],
      [{ query: "x", scrapeOptions: { formats: ["changeTracking", "markdown"] } }, /Bad Request|can be scraped into/],
      [{ query: "x", sources: [{ type: "images", tbs: "qdr:d" }] }, /Unrecognized key|Bad Request/],
      [{ query: "x", surprise: true }, /Unrecognized key/],
    ]
    for (const [body, message] of cases) {
      const answer = await post(body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      expect(answer.body.error, JSON.stringify(body)).toMatch(message)
    }
  })
})

describe("the provider chain", () => {
  it("falls through a failing provider and says why in warning", async () => {
    const limited = scripted("first", () =>
      Effect.fail(new SearchError({ reason: "RateLimited", message: "first is rate limiting this server" })),
    )
    const second = scripted("second", () => Effect.succeed(hits("https://two.example.com/")))
    const { status, body } = await serve([limited.provider, second.provider])({ query: "x" })
    expect(status).toBe(200)
    expect(body.data.web[0].url).toBe("https://two.example.com/")
    expect(body.warning).toMatch(/answered by second.*first is rate limiting/)
    expect(limited.seen).toHaveLength(1)
  })

  it("skips providers without the source, and answers the other sources when one has no provider", async () => {
    const webOnly = scripted("webonly", () => Effect.succeed(hits("https://w.example.com/")), ["web"])
    const { status, body } = await serve([webOnly.provider])({ query: "x", sources: ["web", "images"] })
    expect(status).toBe(200)
    expect(body.data).toEqual({ web: [expect.objectContaining({ url: "https://w.example.com/" })], images: [] })
    expect(body.warning).toMatch(/images: .*no images search/)
    expect(webOnly.seen.map((query) => query.source)).toEqual(["web"])
  })

  it("answers 502 with every reason when no provider could answer", async () => {
    const down = scripted("down", () =>
      Effect.fail(new SearchError({ reason: "Unavailable", message: "down answered HTTP 503" })),
    )
    const broken = scripted("broken", () =>
      Effect.fail(new SearchError({ reason: "InvalidResponse", message: "broken answered something not JSON" })),
    )
    const { status, body } = await serve([down.provider, broken.provider])({ query: "x" })
    expect(status).toBe(502)
    expect(body).toMatchObject({ success: false, code: "SEARCH_UNAVAILABLE" })
    expect(body.error).toMatch(/down answered HTTP 503.*broken answered something not JSON/)
  })

  it("answers 408 when nothing is found within the timeout", async () => {
    const slow = scripted("slow", () => Effect.as(Effect.sleep("5 seconds"), hits("https://late.example.com/")))
    const started = Date.now()
    const { status, body } = await serve([slow.provider])({ query: "x", timeout: 300 })
    expect(status).toBe(408)
    expect(body).toMatchObject({ success: false, code: "SCRAPE_TIMEOUT" })
    expect(Date.now() - started).toBeLessThan(3000)
  })
})

describe("scraping the results", () => {
  it("merges each result's document into it, keeping the search's title, and counts a credit per page", async () => {
    const closed = await listenOnLoopback(createServer())
    const gone = `${closed.url}/gone`
    await closed.close()
    const found = scripted("found", () => Effect.succeed(hits(page("/one"), page("/two"), gone)))
    const { status, body } = await serve([found.provider])({
      query: "x",
      scrapeOptions: { formats: ["markdown", "links"] },
    })
    expect(status).toBe(200)
    const [one, two, failed] = body.data.web
    expect(one).toMatchObject({ url: page("/one"), title: "Result 1", position: 1 })
    expect(one.markdown).toContain("Heading of /one")
    expect(one.metadata).toMatchObject({ statusCode: 200, sourceURL: page("/one"), title: "Page /one" })
    expect(Array.isArray(one.links)).toBe(true)
    expect(two.markdown).toContain("Heading of /two")
    expect(failed).toMatchObject({ url: gone, position: 3 })
    expect(failed.markdown).toBeUndefined()
    expect(failed.metadata.error).toMatch(/.+/)
    expect(body.warning).toMatch(/1 result\(s\) could not be scraped/)
    expect(body.creditsUsed).toBe(2 + 2)
  })

  it("does not scrape image results", async () => {
    const pictures = scripted("pictures", () =>
      Effect.succeed([{ url: page("/gallery"), imageUrl: page("/a.jpg"), imageWidth: 10, imageHeight: 20 }]),
    )
    const { body } = await serve([pictures.provider])({
      query: "x",
      sources: ["images"],
      scrapeOptions: { formats: ["markdown"] },
    })
    expect(body.data.images).toEqual([
      { url: page("/gallery"), imageUrl: page("/a.jpg"), imageWidth: 10, imageHeight: 20, position: 1 },
    ])
    expect(body.creditsUsed).toBe(2)
  })
})

describe("webdata.search()", () => {
  it("answers like the API and throws WebdataErrors", async () => {
    const found = scripted("found", () => Effect.succeed(hits("https://lib.example.com/")))
    const webdata = new Webdata({ worker: false, browser: false, parser: false, search: [found.provider] })
    try {
      const outcome = await webdata.search("library", { limit: 1 })
      expect(outcome.data.web?.[0]).toMatchObject({ url: "https://lib.example.com/", position: 1 })
      await expect(webdata.search("x", { limit: 0 })).rejects.toBeInstanceOf(WebdataError)
    } finally {
      await webdata.close()
    }
  })
})
