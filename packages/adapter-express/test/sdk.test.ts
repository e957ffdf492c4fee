/**
 * The official Firecrawl SDK against `serve()`: crawl, batch scrape and map over a small site on 127.0.0.1, with
 * the answers checked against what the site holds.
 */
import Firecrawl, { type Document } from "@mendable/firecrawl-js"
import type { RunningServer } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CrawlSite, chainPages, type SitePage, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { startTestApi } from "./support/apiWithSite.js"

/** A small linked site: 12 reachable pages, one disallowed by robots.txt, one link that answers 404. */
const pages: Record<string, SitePage> = {
  "/": { links: ["/docs", "/blog", "/about", "/private/plans", "/missing"] },
  "/docs": { links: ["/docs/a", "/docs/b", "/docs/c"] },
  "/docs/a": { links: ["/docs/b", "/"] },
  "/docs/b": { links: ["/docs/c#section"] },
  "/docs/c": {},
  "/blog": { links: ["/blog/1", "/blog/2", "/blog/3"] },
  "/blog/1": { links: ["/blog/2", "/blog"] },
  "/blog/2": {},
  "/blog/3": { links: ["/about"] },
  "/about": { links: ["/contact"] },
  "/contact": {},
  "/private/plans": {},
}
const allowed = ["/", "/about", "/blog", "/blog/1", "/blog/2", "/blog/3", "/contact", "/docs", "/docs/a", "/docs/b"]
  .concat(["/docs/c", "/missing"])
  .sort()

let site: CrawlSite
/** 131 pages: more than one status page (100 documents). */
let big: CrawlSite
/** Slow pages, for cancelling mid-way. */
let slow: CrawlSite
let api: RunningServer
let client: Firecrawl

beforeAll(async () => {
  site = await startCrawlSite({ pages, robots: "User-agent: *\nDisallow: /private\n" })
  big = await startCrawlSite({ pages: chainPages(130) })
  slow = await startCrawlSite({ pages: chainPages(40, { delayMs: 150 }) })
  api = await startTestApi(["test-key", "other-key"])
  client = new Firecrawl({ apiUrl: api.url, apiKey: "test-key" })
})
afterAll(async () => {
  await api?.close()
  await Promise.all([site?.close(), big?.close(), slow?.close()])
})

const paths = (documents: ReadonlyArray<Document>) =>
  documents.map((document) => new URL(document.metadata?.sourceURL ?? "").pathname).sort()

const other = () => new Firecrawl({ apiUrl: api.url, apiKey: "other-key" })

describe("the Firecrawl SDK against the Express adapter", () => {
  it("crawl() returns exactly the allowed reachable pages, each once, and reports the robots.txt-blocked one", async () => {
    const job = await client.crawl(site.url, { sitemap: "skip", pollInterval: 0.1, timeout: 20 })
    expect(job.status).toBe("completed")
    expect(paths(job.data)).toEqual(allowed)
    expect(job.completed).toBe(allowed.length)
    expect(job.total).toBe(allowed.length)
    for (const path of allowed) expect(site.hits(path), path).toBe(1)
    expect(site.hits("/private/plans")).toBe(0)
    const missing = job.data.find((document) => document.metadata?.sourceURL === `${site.url}/missing`)
    expect(missing?.metadata?.statusCode).toBe(404)
    const contact = job.data.find((document) => document.metadata?.sourceURL === `${site.url}/contact`)
    expect(contact?.markdown).toContain("This is the content of the page at /contact")

    const errors = await client.getCrawlErrors(job.id)
    expect(errors).toEqual({ errors: [], robotsBlocked: [`${site.url}/private/plans`] })
  })

  it("startCrawl() + getCrawlStatus() follow `next` until every document is in", async () => {
    const started = await client.startCrawl(big.url, { sitemap: "skip" })
    expect(started.url).toBe(`${api.url}/v2/crawl/${started.id}`)
    let status = await client.getCrawlStatus(started.id, { autoPaginate: false })
    for (const deadline = Date.now() + 20_000; status.status === "scraping" && Date.now() < deadline; )
      status = await client.getCrawlStatus(started.id, { autoPaginate: false })
    expect(status.status).toBe("completed")
    // Without auto-pagination: one page of 100 and the link to the rest.
    expect(status.data).toHaveLength(100)
    expect(status.next).toBe(`${api.url}/v2/crawl/${started.id}?skip=100`)
    const all = await client.getCrawlStatus(started.id)
    expect(all.next).toBeNull()
    expect(all.data).toHaveLength(131)
    expect(new Set(paths(all.data)).size).toBe(131)
    expect(paths(all.data)).toEqual(["/", ...Array.from({ length: 130 }, (_, i) => `/p/${i}`)].sort())
    const capped = await client.getCrawlStatus(started.id, { maxResults: 120 })
    expect(capped.data).toHaveLength(120)
  })

  it("cancelCrawl() stops the crawl: status cancelled, no more fetches", async () => {
    const started = await client.startCrawl(slow.url, { sitemap: "skip", maxConcurrency: 2 })
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      if ((await client.getCrawlStatus(started.id, { autoPaginate: false })).completed >= 2) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(await client.cancelCrawl(started.id)).toBe(true)
    const status = await client.getCrawlStatus(started.id)
    expect(status.status).toBe("cancelled")
    expect(status.completed).toBeGreaterThanOrEqual(2)
    expect(status.completed).toBeLessThan(41)
    // In-flight fetches are interrupted and nothing new starts.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const fetched = slow.requests.length
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(slow.requests.length).toBe(fetched)
    expect((await client.getCrawlStatus(started.id)).status).toBe("cancelled")
    // Cancelling a finished crawl is a conflict.
    const finished = await client.crawl(site.url, { sitemap: "skip", limit: 1, pollInterval: 0.1, timeout: 20 })
    await expect(client.cancelCrawl(finished.id)).rejects.toMatchObject({ status: 409 })
    const conflict = await fetch(`${api.url}/v2/crawl/${finished.id}`, {
      method: "DELETE",
      headers: { authorization: "Bearer test-key" },
    })
    expect(await conflict.json()).toEqual({
      success: false,
      code: "JOB_ALREADY_COMPLETED",
      error: "Crawl is already completed",
    })
  })

  it("batchScrape() scrapes every URL once; startBatchScrape() lists invalid URLs it ignored", async () => {
    const urls = ["/docs", "/blog/1", "/contact"].map((path) => `${site.url}${path}`)
    const job = await client.batchScrape(urls, { options: { formats: ["markdown"] }, pollInterval: 0.1, timeout: 20 })
    expect(job.status).toBe("completed")
    expect(job.completed).toBe(3)
    expect(paths(job.data)).toEqual(["/blog/1", "/contact", "/docs"])
    expect(job.data.every((document) => document.markdown?.includes("This is the content of the page at"))).toBe(true)

    const started = await client.startBatchScrape([`${site.url}/about`, "not a url"], { ignoreInvalidURLs: true })
    expect(started.invalidURLs).toEqual(["not a url"])
    expect(started.url).toBe(`${api.url}/v2/batch/scrape/${started.id}`)
    let status = await client.getBatchScrapeStatus(started.id)
    for (const deadline = Date.now() + 10_000; status.status === "scraping" && Date.now() < deadline; )
      status = await client.getBatchScrapeStatus(started.id)
    expect(status.status).toBe("completed")
    expect(paths(status.data)).toEqual(["/about"])
    expect(await client.getBatchScrapeErrors(started.id)).toEqual({ errors: [], robotsBlocked: [] })
  })

  it("cancelBatchScrape() cancels a running batch", async () => {
    const urls = Array.from({ length: 20 }, (_, i) => `${slow.url}/p/${i}`)
    const started = await client.startBatchScrape(urls, { maxConcurrency: 1 })
    expect(await client.cancelBatchScrape(started.id)).toBe(true)
    const status = await client.getBatchScrapeStatus(started.id)
    expect(status.status).toBe("cancelled")
    expect(status.completed).toBeLessThan(20)
  })

  it("map() finds the site's pages", async () => {
    const map = await client.map(site.url, { sitemap: "skip" })
    const found = new Set(map.links.map((link) => new URL(link.url).pathname))
    for (const path of allowed.filter((path) => path !== "/missing")) expect(found, path).toContain(path)
    for (const link of map.links) expect(link.url.startsWith(site.url)).toBe(true)
    expect(new Set(map.links.map((link) => link.url)).size).toBe(map.links.length)
  })

  it("keeps another key's jobs out of reach (404), and scrape results by id", async () => {
    const crawl = await client.startCrawl(site.url, { sitemap: "skip", limit: 2 })
    const batch = await client.startBatchScrape([`${site.url}/docs`])
    const stranger = other()
    await expect(stranger.getCrawlStatus(crawl.id)).rejects.toMatchObject({ status: 404 })
    await expect(stranger.cancelCrawl(crawl.id)).rejects.toMatchObject({ status: 404 })
    await expect(stranger.getCrawlErrors(crawl.id)).rejects.toMatchObject({ status: 404 })
    await expect(stranger.getBatchScrapeStatus(batch.id)).rejects.toMatchObject({ status: 404 })
    await expect(stranger.cancelBatchScrape(batch.id)).rejects.toMatchObject({ status: 404 })
    // A crawl id is not a batch id, and the reverse.
    await expect(client.getBatchScrapeStatus(crawl.id)).rejects.toMatchObject({ status: 404 })
    await expect(client.getCrawlStatus(batch.id)).rejects.toMatchObject({ status: 404 })
    expect((await stranger.getActiveCrawls()).crawls.map((active) => active.id)).not.toContain(crawl.id)

    // The SDK has no scrape-by-id method: `GET /v2/scrape/{id}` directly.
    const document = await client.scrape(`${site.url}/about`, { formats: ["markdown"] })
    const scrapeId = document.metadata?.scrapeId
    const read = (key: string) =>
      fetch(`${api.url}/v2/scrape/${scrapeId}`, { headers: { authorization: `Bearer ${key}` } })
    const mine = await read("test-key")
    expect(mine.status).toBe(200)
    expect((await mine.json()).data.markdown).toBe(document.markdown)
    expect((await read("other-key")).status).toBe(404)
  })
})
