/**
 * The official Firecrawl SDK's `search` against `serve()` with a chain of a fake SearXNG (on 127.0.0.1, its real JSON
 * format) and the local index: web, news and image sources, results scraped with `scrapeOptions`, and the fall-through
 * to the local index when SearXNG fails.
 */
import { createServer } from "node:http"
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CorpusItem, type FakeSearch, startFakeSearxng } from "../../core/test/support/fakeSearch.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"

let site: Listening
let searxng: FakeSearch
let api: RunningServer
let client: Firecrawl
/** While true, SearXNG answers 503 (the chain moves on to the local index). */
let searxngDown = false

const TOPICS = ["Tidal power", "Wave energy", "Offshore wind"] as const

beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((request, response) => {
      const topic = TOPICS[Number((request.url ?? "/0").slice(1)) % TOPICS.length]
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(
        `<!doctype html><html><head><title>${topic} explained</title></head><body><main><h1>${topic}</h1><p>${topic} turns the sea into electricity.</p></main></body></html>`,
      )
    }),
  )
  const web: CorpusItem[] = TOPICS.map((topic, i) => ({
    url: `${site.url}/${i}`,
    title: topic,
    description: `All about ${topic.toLowerCase()}`,
  }))
  const news: CorpusItem[] = [
    {
      url: `${site.url}/news/1`,
      title: "Tidal plant opens",
      date: "2026-11-20T08:00:00Z",
      imageUrl: `${site.url}/n1.jpg`,
    },
  ]
  const images: CorpusItem[] = [
    {
      url: `${site.url}/gallery`,
      title: "A tidal turbine",
      imageUrl: `${site.url}/t.jpg`,
      imageWidth: 800,
      imageHeight: 600,
    },
  ]
  searxng = await startFakeSearxng({
    corpus: { web, news, images },
    reply: () => (searxngDown ? { status: 503 } : undefined),
  })
  api = await serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      search: [{ provider: "searxng", url: searxng.baseUrl }, "local"],
    }),
    serverConfig: ServerConfig.layer({ apiKeys: ["test-key"] }),
  })
  client = new Firecrawl({ apiUrl: api.url, apiKey: "test-key" })
})
afterAll(async () => {
  await api?.close()
  await searxng?.close()
  await site?.close()
})

describe("the Firecrawl SDK's search against the Express adapter", () => {
  it("search() returns web results by default", async () => {
    const results = await client.search("sea energy", { limit: 2 })
    expect(results.web).toEqual([
      { url: `${site.url}/0`, title: "Tidal power", description: "All about tidal power", position: 1 },
      { url: `${site.url}/1`, title: "Wave energy", description: "All about wave energy", position: 2 },
    ])
    expect(results.news).toBeUndefined()
    expect(searxng.requests.at(-1)?.query).toMatchObject({ q: "sea energy", format: "json", categories: "general" })
  })

  it("search() with web, news and images sources", async () => {
    const results = await client.search("tidal", { sources: ["web", { type: "news" }, "images"], limit: 5 })
    expect(results.web).toHaveLength(3)
    expect(results.news).toEqual([
      expect.objectContaining({ url: `${site.url}/news/1`, title: "Tidal plant opens", position: 1 }),
    ])
    expect((results.news?.[0] as { date?: string } | undefined)?.date).toMatch(/2026-11-20/)
    expect(results.images).toEqual([
      {
        url: `${site.url}/gallery`,
        title: "A tidal turbine",
        imageUrl: `${site.url}/t.jpg`,
        imageWidth: 800,
        imageHeight: 600,
        position: 1,
      },
    ])
  })

  it("search() with scrapeOptions merges each result's document", async () => {
    const results = await client.search("tidal", { limit: 2, scrapeOptions: { formats: ["markdown", "links"] } })
    const [first, second] = (results.web ?? []) as Array<Record<string, unknown>>
    expect(first).toMatchObject({ url: `${site.url}/0`, title: "Tidal power", position: 1 })
    expect(first?.markdown).toContain("Tidal power turns the sea into electricity.")
    expect(first?.metadata).toMatchObject({ statusCode: 200, title: "Tidal power explained" })
    expect(second?.markdown).toContain("Wave energy turns the sea into electricity.")
  })

  it("falls through to the local index of scraped pages when SearXNG fails, and says so", async () => {
    searxngDown = true
    try {
      const results = await client.search("offshore wind electricity", { limit: 3 })
      // The scrape of the test before indexed pages 0 and 1 for this key; page 2 (offshore wind) was never fetched.
      expect(results.web?.map((item) => (item as { url: string }).url)).not.toContain(`${site.url}/2`)
      await client.scrape(`${site.url}/2`, { formats: ["markdown"] })
      const after = await client.search("offshore wind", { limit: 3 })
      expect(after.web?.[0]).toMatchObject({ url: `${site.url}/2`, title: "Offshore wind explained", position: 1 })
      expect((after as { warning?: string }).warning).toMatch(/answered by local \(SearXNG answered HTTP 503\)/)
    } finally {
      searxngDown = false
    }
  })

  it("rejects what Firecrawl rejects", async () => {
    await expect(client.search("x", { includeDomains: ["a.com"], excludeDomains: ["b.com"] })).rejects.toThrow(
      /cannot both be specified/,
    )
    await expect(client.search("x", { limit: 500 })).rejects.toThrow(/Bad Request|between/)
  })
})
