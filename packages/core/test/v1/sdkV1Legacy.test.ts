/**
 * The v1 routes over real HTTP on 127.0.0.1, driven by the old 1.x SDK (`FirecrawlApp`), which speaks v1 only: its
 * requests carry an `origin` field, it polls jobs at `/v1/crawl/:id` (batches too) and follows `next` links, and it
 * turns error answers into thrown `FirecrawlError`s whose message quotes ours.
 */

import FirecrawlApp from "firecrawl-js-v1"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveApi } from "../support/apiOnLoopback.js"
import { type CrawlSite, chainPages, startCrawlSite } from "../support/crawlSite.js"
import type { Listening } from "../support/loopback.js"

const KEY = "legacy-sdk-key"

const pages = {
  "/": { links: ["/docs", "/blog", "/private/plans"], title: "Home" },
  "/docs": { links: ["/docs/a", "/docs/a/deep"], title: "Docs" },
  "/docs/a": { links: ["/"] },
  "/docs/a/deep": {},
  "/blog": { links: ["/docs"] },
  "/private/plans": {},
}

let site: CrawlSite
let slow: CrawlSite
let api: Listening
let app: FirecrawlApp
/** Method and path of every request the API received, to show which routes the SDK used. */
const seen: Array<string> = []

beforeAll(async () => {
  site = await startCrawlSite({ pages, robots: "User-agent: *\nDisallow: /private\n" })
  slow = await startCrawlSite({ pages: chainPages(40, { delayMs: 200 }) })
  // One document per status page, so every finished job is read through `next` links.
  api = await serveApi([KEY], {
    engine: { jobs: { statusPageBytes: 1 } },
    observe: (handler) => (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`)
      return handler(request)
    },
  })
  app = new FirecrawlApp({ apiKey: KEY, apiUrl: api.url })
})
afterAll(async () => {
  await api?.close()
  await Promise.all([site?.close(), slow?.close()])
})

const pathsOf = (documents: ReadonlyArray<{ metadata?: { sourceURL?: string } }>) =>
  documents.map((document) => new URL(document.metadata?.sourceURL ?? "").pathname).sort()

/** Runs `action` and hands back what it threw (the test fails if it did not throw). */
const thrown = async (action: () => Promise<unknown>): Promise<Error & { statusCode?: number }> => {
  try {
    await action()
  } catch (error) {
    return error as Error & { statusCode?: number }
  }
  throw new Error("expected the SDK to throw")
}

describe("v1 routes with the 1.x SDK", () => {
  it("scrapes markdown by default, and html, rawHtml and links when asked, with the page's metadata", async () => {
    const plain = await app.scrapeUrl(`${site.url}/docs`)
    if (!plain.success) throw new Error(plain.error)
    expect(plain.markdown).toContain("This is the content of the page at /docs")
    expect(plain).not.toHaveProperty("html")
    expect(plain.metadata).toMatchObject({ title: "Docs", sourceURL: `${site.url}/docs`, statusCode: 200 })

    const page = await app.scrapeUrl(`${site.url}/docs`, { formats: ["markdown", "html", "rawHtml", "links"] })
    if (!page.success) throw new Error(page.error)
    expect(page.markdown).toContain("This is the content of the page at /docs")
    expect(page.html).toContain("<p>This is the content of the page at /docs.")
    // rawHtml is the page as served, head and all; html is the cleaned body.
    expect(page.rawHtml).toContain("<title>Docs</title>")
    expect(page.html).not.toContain("<title>")
    expect(page.links).toEqual(expect.arrayContaining([`${site.url}/docs/a`, `${site.url}/docs/a/deep`]))
    expect(page.links?.every((link) => typeof link === "string")).toBe(true)
    expect(page.metadata).toMatchObject({ title: "Docs", sourceURL: `${site.url}/docs`, statusCode: 200 })
    expect(page).not.toHaveProperty("extract")
    expect(seen).toContain("POST /v1/scrape")
  })

  it("maps a site into URL strings, narrowed by `search`", async () => {
    const mapped = await app.mapUrl(site.url, { ignoreSitemap: true })
    if (!mapped.success) throw new Error(mapped.error)
    expect(mapped.links).toEqual(expect.arrayContaining([`${site.url}/docs`, `${site.url}/blog`, `${site.url}/docs/a`]))
    expect(mapped.links?.every((link) => typeof link === "string")).toBe(true)

    const searched = await app.mapUrl(site.url, { ignoreSitemap: true, search: "blog" })
    if (!searched.success) throw new Error(searched.error)
    expect(searched.links?.[0]).toBe(`${site.url}/blog`)
  })

  it("crawls to completion with limit, maxDepth and excludePaths, leaving out the robots.txt-disallowed page", async () => {
    const job = await app.crawlUrl(site.url, { ignoreSitemap: true, maxDepth: 2, limit: 20, excludePaths: ["^/blog"] })
    if (!job.success) throw new Error(job.error)
    expect(job.status).toBe("completed")
    // maxDepth 2 leaves out /docs/a/deep, excludePaths /blog, robots.txt /private/plans; `next` pages were followed.
    expect(pathsOf(job.data)).toEqual(["/", "/docs", "/docs/a"])
    expect(job.completed).toBe(3)
    const root = job.data.find((document) => new URL(document.metadata?.sourceURL ?? "").pathname === "/")
    expect(root?.markdown).toContain("This is the content of the page at /.")
    expect(root?.metadata?.title).toBe("Home")
    expect(site.hits("/private/plans")).toBe(0)

    const limited = await app.crawlUrl(site.url, { ignoreSitemap: true, limit: 2 })
    if (!limited.success) throw new Error(limited.error)
    expect(limited.data.length).toBe(2)
    expect(limited.total).toBe(2)
  })

  it("starts a crawl with asyncCrawlUrl and reads it with checkCrawlStatus until it completes", async () => {
    const started = await app.asyncCrawlUrl(site.url, { ignoreSitemap: true, limit: 10 })
    if (!started.success || started.id === undefined) throw new Error(started.error)
    expect(started.url).toBe(`${api.url}/v1/crawl/${started.id}`)
    let status = await app.checkCrawlStatus(started.id, true)
    for (const deadline = Date.now() + 20_000; status.success && status.status === "scraping"; ) {
      if (Date.now() > deadline) throw new Error("the crawl did not finish")
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await app.checkCrawlStatus(started.id, true)
    }
    if (!status.success) throw new Error(status.error)
    expect(status.status).toBe("completed")
    expect(pathsOf(status.data)).toEqual(["/", "/blog", "/docs", "/docs/a", "/docs/a/deep"])
    expect(status.expiresAt).toBeInstanceOf(Date)
    expect(Number.isNaN(status.expiresAt.getTime())).toBe(false)

    // Without getAllData the SDK hands back one status page and its `next` link.
    const first = await app.checkCrawlStatus(started.id)
    if (!first.success) throw new Error(first.error)
    expect(first.data.length).toBe(1)
    expect(first.next).toBe(`${api.url}/v1/crawl/${started.id}?skip=1`)

    // The 1.x SDK asks for a crawl's errors with DELETE, not GET; the server answers it all the same.
    expect(await app.checkCrawlErrors(started.id)).toEqual({ errors: [], robotsBlocked: [`${site.url}/private/plans`] })
    expect(seen).toContain(`DELETE /v1/crawl/${started.id}/errors`)
  })

  it("cancels a crawl of a slow site", async () => {
    const started = await app.asyncCrawlUrl(slow.url, { ignoreSitemap: true })
    if (!started.success || started.id === undefined) throw new Error(started.error)
    expect(await app.cancelCrawl(started.id)).toEqual({ status: "cancelled" })
    const status = await app.checkCrawlStatus(started.id)
    if (!status.success) throw new Error(status.error)
    expect(status.status).toBe("cancelled")
    expect(slow.hits("/p/39")).toBe(0)
    expect(seen).toContain(`DELETE /v1/crawl/${started.id}`)
  })

  it("batch-scrapes with batchScrapeUrls, and with asyncBatchScrapeUrls and checkBatchScrapeStatus", async () => {
    const urls = [`${site.url}/docs`, `${site.url}/blog`, `${site.url}/docs/a`]
    const job = await app.batchScrapeUrls(urls, { formats: ["markdown", "links"] })
    if (!job.success) throw new Error(job.error)
    expect(job.status).toBe("completed")
    expect(pathsOf(job.data)).toEqual(["/blog", "/docs", "/docs/a"])
    const blog = job.data.find((document) => document.metadata?.sourceURL === `${site.url}/blog`)
    expect(blog?.markdown).toContain("This is the content of the page at /blog")
    expect(blog?.links).toEqual(expect.arrayContaining([`${site.url}/docs`]))

    const started = await app.asyncBatchScrapeUrls(urls, { formats: ["html"] })
    if (!started.success || started.id === undefined) throw new Error(started.error)
    expect(started.url).toBe(`${api.url}/v1/batch/scrape/${started.id}`)
    let status = await app.checkBatchScrapeStatus(started.id, true)
    for (const deadline = Date.now() + 20_000; status.success && status.status === "scraping"; ) {
      if (Date.now() > deadline) throw new Error("the batch did not finish")
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await app.checkBatchScrapeStatus(started.id, true)
    }
    if (!status.success) throw new Error(status.error)
    expect(status).toMatchObject({ status: "completed", completed: 3, total: 3 })
    expect(pathsOf(status.data)).toEqual(["/blog", "/docs", "/docs/a"])
    expect(status.data.every((document) => document.html?.includes("This is the content of the page at"))).toBe(true)
    expect(seen).toContain(`GET /v1/batch/scrape/${started.id}`)
  })

  it("throws the SDK's error, quoting our message, for a bad URL", async () => {
    const scrape = await thrown(() => app.scrapeUrl("not a url"))
    expect(scrape.statusCode).toBe(400)
    expect(scrape.message).toMatch(/^Failed to scrape URL\. Status code: 400\. Error: \S/)
    const ours = await fetch(`${api.url}/v1/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ url: "not a url" }),
    })
    const answer = (await ours.json()) as { success: boolean; error: string }
    expect(ours.status).toBe(400)
    expect(answer.success).toBe(false)
    expect(scrape.message).toContain(`Error: ${answer.error}`)

    const crawl = await thrown(() => app.crawlUrl("not a url"))
    expect(crawl.statusCode).toBe(400)
    expect(crawl.message).toMatch(/^Request failed with status code 400\. Error: \S/)
    // mapUrl keeps only the HTTP client's message, in a FirecrawlError of status 500: our text does not reach it.
    const map = await thrown(() => app.mapUrl("not a url"))
    expect(map).toMatchObject({ statusCode: 500, message: "Request failed with status code 400" })
    expect(seen).toContain("POST /v1/map")
  })

  it("throws the SDK's 401 error for a wrong key", async () => {
    const wrong = new FirecrawlApp({ apiKey: "not-the-key", apiUrl: api.url })
    const before = site.hits("/docs")
    const scrape = await thrown(() => wrong.scrapeUrl(`${site.url}/docs`))
    expect(scrape.statusCode).toBe(401)
    expect(scrape.message).toBe("Unexpected error occurred while trying to scrape URL. Status code: 401")
    const crawl = await thrown(() => wrong.asyncCrawlUrl(site.url))
    expect(crawl.statusCode).toBe(401)
    expect(crawl.message).toMatch(/^Request failed with status code 401\. Error: \S/)
    // Refused before any work: the site was not fetched.
    expect(site.hits("/docs")).toBe(before)
  })
})
