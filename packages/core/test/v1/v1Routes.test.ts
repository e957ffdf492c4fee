/**
 * The v1 routes over real HTTP on 127.0.0.1, driven by the official SDK's v1 client: scrape, map, crawl and batch
 * scrape of a small site, cancel, errors, v1's caching default and its 400s.
 */
import Firecrawl, { type FirecrawlAppV1 } from "@mendable/firecrawl-js"
import { Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { entryOf } from "../../src/Tenants/ApiKey.js"
import { endpointClassOf } from "../../src/Tenants/EndpointClass.js"
import { parseLimits } from "../../src/Tenants/Limits.js"
import { serveApi } from "../support/apiOnLoopback.js"
import { type CrawlSite, chainPages, startCrawlSite } from "../support/crawlSite.js"
import { type Listening, serveWebHandler } from "../support/loopback.js"

const KEY = "v1-test-key"

const pages = {
  "/": { links: ["/docs", "/blog", "/private/plans"], title: "Home" },
  "/docs": { links: ["/docs/a", "/docs/a/deep"] },
  "/docs/a": { links: ["/"] },
  "/docs/a/deep": {},
  "/blog": { links: ["/docs"] },
  "/private/plans": {},
  "/fresh": { title: "Fresh" },
}

let site: CrawlSite
let slow: CrawlSite
let api: Listening
let v1: FirecrawlAppV1

beforeAll(async () => {
  site = await startCrawlSite({ pages, robots: "User-agent: *\nDisallow: /private\n" })
  slow = await startCrawlSite({ pages: chainPages(40, { delayMs: 200 }) })
  // One document per status page: every status answer has a `next` while documents remain.
  api = await serveApi([KEY], { engine: { jobs: { statusPageBytes: 1 } } })
  v1 = new Firecrawl({ apiKey: KEY, apiUrl: api.url }).v1
})
afterAll(async () => {
  await api?.close()
  await Promise.all([site?.close(), slow?.close()])
})

const post = async (path: string, body: unknown, key = KEY, base = api.url) => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const get = async (path: string, key = KEY, base = api.url) => {
  const response = await fetch(path.startsWith("http") ? path : `${base}${path}`, {
    headers: { authorization: `Bearer ${key}` },
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const pathsOf = (documents: ReadonlyArray<{ metadata?: { sourceURL?: string } }>) =>
  documents.map((document) => new URL(document.metadata?.sourceURL ?? "").pathname).sort()

describe("v1 routes with the official SDK's v1 client", () => {
  it("scrapes markdown, html and links, with no LLM field", async () => {
    const page = await v1.scrapeUrl(`${site.url}/docs`, { formats: ["markdown", "html", "links"] })
    if (!page.success) throw new Error(page.error)
    expect(page.markdown).toContain("This is the content of the page at /docs")
    expect(page.html).toContain("<p>This is the content of the page at /docs.")
    expect(page.links).toEqual(expect.arrayContaining([`${site.url}/docs/a`, `${site.url}/docs/a/deep`]))
    expect(page.links?.every((link) => typeof link === "string")).toBe(true)
    expect(page.metadata?.statusCode).toBe(200)
    expect(page).not.toHaveProperty("extract")
    expect(page).not.toHaveProperty("json")
  })

  it("maps a site into a list of URL strings", async () => {
    const mapped = await v1.mapUrl(site.url, { ignoreSitemap: true })
    if (!mapped.success) throw new Error(mapped.error)
    expect(mapped.links).toEqual(expect.arrayContaining([`${site.url}/docs`, `${site.url}/blog`]))
    expect(mapped.links?.every((link) => typeof link === "string")).toBe(true)
  })

  it("crawls to completion following v1 `next` links, honours maxDepth and reports robots.txt blocks", async () => {
    const job = await v1.crawlUrl(site.url, { ignoreSitemap: true, maxDepth: 2, limit: 20 }, 1)
    if (!job.success) throw new Error(job.error)
    expect(job.status).toBe("completed")
    // maxDepth 2 from the root: /docs/a/deep (3 segments) is left out; the robots.txt-disallowed page too.
    expect(pathsOf(job.data)).toEqual(["/", "/blog", "/docs", "/docs/a"])
    expect(job.completed).toBe(4)

    const crawls = await get("/v1/crawl/active")
    expect(crawls.body.success).toBe(true)
    const started = await post("/v1/crawl", { url: site.url, ignoreSitemap: true, limit: 3 })
    expect(started.body.url).toBe(`${api.url}/v1/crawl/${started.body.id}`)
    let status = await get(started.body.url as string)
    for (const deadline = Date.now() + 20_000; status.body.status === "scraping" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await get(started.body.url as string)
    }
    expect(status.body).toMatchObject({ success: true, status: "completed", completed: 3, total: 3 })
    expect(status.body).not.toHaveProperty("createdAt")
    expect(status.body.next).toBe(`${api.url}/v1/crawl/${started.body.id}?skip=1`)
    const next = await get(status.body.next as string)
    expect((next.body.data as Array<unknown>).length).toBe(1)

    const errors = await v1.checkCrawlErrors(started.body.id as string)
    if ("success" in errors && !errors.success) throw new Error(errors.error)
    expect(errors).toMatchObject({ errors: [], robotsBlocked: [`${site.url}/private/plans`] })
    expect((await get(`/v1/crawl/${started.body.id}/errors`)).body).toEqual(errors)
  })

  it("batch-scrapes URLs and reads their status at the batch and the crawl route", async () => {
    const urls = [`${site.url}/docs`, `${site.url}/blog`, `${site.url}/docs/a`]
    const job = await v1.batchScrapeUrls(urls, { formats: ["markdown", "links"] }, 1)
    if (!job.success) throw new Error(job.error)
    expect(job.status).toBe("completed")
    expect(pathsOf(job.data)).toEqual(["/blog", "/docs", "/docs/a"])
    expect(job.data.every((document) => Array.isArray(document.links))).toBe(true)

    const started = await v1.asyncBatchScrapeUrls(urls, { formats: ["html"] })
    if (!started.success) throw new Error(started.error)
    expect(started.url).toBe(`${api.url}/v1/batch/scrape/${started.id}`)
    const status = await v1.checkBatchScrapeStatus(started.id, true)
    if (!status.success) throw new Error(status.error)
    expect(["scraping", "completed"]).toContain(status.status)
    expect((await get(`/v1/batch/scrape/${started.id}/errors`)).body).toMatchObject({ errors: [] })
  })

  it("cancels a running crawl", async () => {
    const started = await v1.asyncCrawlUrl(slow.url, { ignoreSitemap: true })
    if (!started.success || started.id === undefined) throw new Error(started.error)
    expect(await v1.cancelCrawl(started.id)).toEqual({ status: "cancelled" })
    const status = await v1.checkCrawlStatus(started.id)
    if (!status.success) throw new Error(status.error)
    expect(status.status).toBe("cancelled")
    expect(slow.hits("/p/39")).toBe(0)
  })

  it("fetches a page again without maxAge, where v2's default answers from the cache", async () => {
    const url = `${site.url}/fresh`
    expect((await post("/v2/scrape", { url })).status).toBe(200)
    expect(site.hits("/fresh")).toBe(1)
    expect((await post("/v2/scrape", { url })).body.data).toMatchObject({ metadata: { cacheState: "hit" } })
    expect(site.hits("/fresh")).toBe(1)
    await v1.scrapeUrl(url, {})
    expect(site.hits("/fresh")).toBe(2)
    const cached = await v1.scrapeUrl(url, { maxAge: 600_000 })
    expect(site.hits("/fresh")).toBe(2)
    expect(cached.success && cached.metadata?.cacheState).toBe("hit")
  })

  it("answers a bad v1 body with a 400 in v1's error shape", async () => {
    const unknown = await post("/v1/scrape", { url: site.url, parsers: ["pdf"] })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({
      success: false,
      code: "BAD_REQUEST",
      error: "Unrecognized key in body -- please review the v1 API documentation for request body changes",
      details: [{ code: "unrecognized_keys", keys: ["parsers"], path: [], message: 'Unrecognized key: "parsers"' }],
    })
    const extract = await post("/v1/crawl", { url: site.url, scrapeOptions: { formats: ["extract"] } })
    expect(extract.status).toBe(400)
    expect(extract.body.error).toContain("When 'extract' or 'json' format is specified")
    const map = await post("/v1/map", { url: site.url, limit: 50_000 })
    expect(map).toMatchObject({ status: 400, body: { success: false, code: "BAD_REQUEST" } })
    await expect(v1.scrapeUrl(site.url, { formats: ["extract"] })).rejects.toThrow(/Status code: 400/)
  })

  it("needs the key as v2 does, and answers unknown jobs with v1's 404", async () => {
    expect(await post("/v1/scrape", { url: site.url }, "wrong-key")).toMatchObject({
      status: 401,
      body: { success: false, error: expect.any(String) },
    })
    const missing = await get("/v1/crawl/0190f3a0-0000-7000-8000-000000000000")
    expect(missing).toMatchObject({ status: 404, body: { success: false, error: "Job not found" } })
    expect((await get("/v1/batch/scrape/not-a-uuid")).status).toBe(400)
  })

  it("searches the pages this key scraped and answers v1's flat list of documents", async () => {
    await v1.scrapeUrl(`${site.url}/blog`, {})
    let found: Awaited<ReturnType<typeof v1.search>> = { success: false, data: [] }
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      found = await v1.search("content of the page at /blog", { scrapeOptions: { formats: ["markdown"] } })
      if (found.data.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(found.success).toBe(true)
    const blog = found.data.find((result) => result.url === `${site.url}/blog`)
    expect(blog?.markdown).toContain("This is the content of the page at /blog")
    expect(blog).not.toHaveProperty("position")
    expect(found.data.length).toBeLessThanOrEqual(5)
    const bad = await post("/v1/search", { query: "x", sources: ["web"] })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("v1 API documentation")
  })

  it("answers extract as v2 does when no model is configured, and unknown extracts with a 404", async () => {
    const body = { urls: [`${site.url}/docs`], prompt: "the title" }
    const v1Answer = await post("/v1/extract", body)
    const v2Answer = await post("/v2/extract", body)
    expect(v1Answer).toEqual(v2Answer)
    expect(v1Answer.status).toBeGreaterThanOrEqual(400)
    expect((await post("/v1/extract", { ...body, webhook: "https://hooks.example.com/x" })).status).toBe(400)
    expect((await get("/v1/extract/0190f3a0-0000-7000-8000-000000000000")).status).toBe(404)
  })

  it("answers an extract format with v2's answer when no model is configured", async () => {
    const v1Answer = await post("/v1/scrape", { url: site.url, formats: ["extract"], extract: { prompt: "the title" } })
    const v2Answer = await post("/v2/scrape", { url: site.url, formats: [{ type: "json", prompt: "the title" }] })
    expect(v1Answer).toEqual(v2Answer)
    expect(v1Answer.body.code).toBe("LLM_NOT_CONFIGURED")
  })
})

describe("v1 routes under the key's owner, limits and usage", () => {
  const TIGHT = "v1-tight-key"
  const OTHER = "v1-other-key"
  let limited: Listening
  let disposeLimited: () => Promise<void>

  beforeAll(async () => {
    const limits = Either.getOrThrow(parseLimits("scrape=2/min,jobs=1,credits=100"))
    // No worker: every job made stays in progress, so the jobs limit stays reached.
    const web = makeWebHandler(
      Layer.merge(
        Engine.layer({ worker: false, allowPrivateAddresses: true }),
        ServerConfig.layer({ keys: [entryOf(TIGHT, "tight", "file", limits), entryOf(OTHER, "other", "file")] }),
      ),
    )
    disposeLimited = web.dispose
    limited = await serveWebHandler(web.handler)
  })
  afterAll(async () => {
    await limited?.close()
    await disposeLimited?.()
  })

  it("counts v1 requests in the classes of their v2 routes", () => {
    expect(
      [
        ["POST", "/v1/scrape"],
        ["POST", "/v1/batch/scrape"],
        ["POST", "/v1/crawl"],
        ["POST", "/v1/map"],
        ["POST", "/v1/search"],
        ["POST", "/v1/extract"],
        ["GET", "/v1/crawl/x"],
        ["DELETE", "/v1/crawl/x"],
      ].map(([method, path]) => endpointClassOf(method as string, path as string)),
    ).toEqual(["scrape", "batch", "crawl", "map", "search", "extract", "status", "status"])
  })

  it("charges a v1 scrape like a v2 one and holds the key's scrape rate across both", async () => {
    const usage = async () =>
      ((await get("/v2/team/credit-usage", TIGHT, limited.url)).body.data as { creditsUsed: number }).creditsUsed
    expect(await usage()).toBe(0)
    expect((await post("/v1/scrape", { url: `${site.url}/docs` }, TIGHT, limited.url)).status).toBe(200)
    expect(await usage()).toBe(1)
    expect((await post("/v2/scrape", { url: `${site.url}/docs` }, TIGHT, limited.url)).status).toBe(200)
    const refused = await post("/v1/scrape", { url: `${site.url}/docs` }, TIGHT, limited.url)
    expect(refused).toMatchObject({ status: 429, body: { success: false, code: "RATE_LIMIT_EXCEEDED" } })
  })

  it("makes jobs of the caller's key: counted by its jobs limit, seen by it alone, the same at the v2 route", async () => {
    const started = await post("/v1/crawl", { url: site.url }, TIGHT, limited.url)
    expect(started.status).toBe(200)
    const id = started.body.id as string
    const batch = await post("/v1/batch/scrape", { urls: [`${site.url}/docs`] }, TIGHT, limited.url)
    expect(batch).toMatchObject({ status: 429, body: { code: "CONCURRENCY_LIMIT_EXCEEDED" } })
    expect((await get(`/v1/crawl/${id}`, OTHER, limited.url)).status).toBe(404)
    expect((await get(`/v2/crawl/${id}`, TIGHT, limited.url)).body).toMatchObject({ status: "scraping" })
    const status = await get(`/v1/crawl/${id}`, TIGHT, limited.url)
    expect(status.body).toMatchObject({ success: true, status: "scraping", data: [] })
    expect(status.body.next).toBe(`${limited.url}/v1/crawl/${id}?skip=0`)
    const active = await get("/v1/crawl/active", TIGHT, limited.url)
    expect((active.body.crawls as Array<{ id: string }>).map((crawl) => crawl.id)).toEqual([id])
    expect((await get("/v1/crawl/ongoing", OTHER, limited.url)).body.crawls).toEqual([])
    const cancelled = await fetch(`${limited.url}/v1/crawl/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TIGHT}` },
    })
    expect(await cancelled.json()).toEqual({ status: "cancelled" })
    expect((await post("/v1/batch/scrape", { urls: [`${site.url}/docs`] }, TIGHT, limited.url)).status).toBe(200)
  })

  it("answers the usage routes at their v1 paths, through the SDK's v1 client too", async () => {
    const client = new Firecrawl({ apiKey: TIGHT, apiUrl: limited.url }).v1
    const v2 = (await get("/v2/team/credit-usage", TIGHT, limited.url)).body.data as Record<string, number>
    expect(v2.creditsUsed).toBeGreaterThan(0)
    const credits = (await client.getCreditUsage()) as { success: boolean; data: Record<string, unknown> }
    expect(credits).toEqual({
      success: true,
      data: { ...v2, remaining_credits: 100 - (v2.creditsUsed ?? 0) },
    })
    const tokens = (await client.getTokenUsage()) as { data: Record<string, unknown> }
    expect(tokens.data).toMatchObject({ tokensUsed: 0, remaining_tokens: tokens.data.remainingTokens })
    for (const path of ["/team/credit-usage/historical", "/team/token-usage/historical", "/concurrency-check"])
      expect((await get(`/v1${path}`, TIGHT, limited.url)).body).toEqual(
        (await get(`/v2${path}`, TIGHT, limited.url)).body,
      )
    expect((await get("/v1/team/queue-status", OTHER, limited.url)).body).toMatchObject({
      success: true,
      jobsInQueue: 0,
    })
  })

  it("answers a method the v1 route does not offer with 405", async () => {
    const response = await fetch(`${limited.url}/v1/scrape`, { headers: { authorization: `Bearer ${TIGHT}` } })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toContain("POST")
  })
})
