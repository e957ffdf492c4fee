import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { afterEach, describe, expect, it } from "vitest"
import { type Document, Webdata, WebdataError } from "../../src/index.js"
import { type CrawlSite, chainPages, type SiteSpec, startCrawlSite } from "../support/crawlSite.js"

const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close()
})

const site = async (spec: SiteSpec): Promise<CrawlSite> => {
  const started = await startCrawlSite(spec)
  open.push(started)
  return started
}

const engine = (options: ConstructorParameters<typeof Webdata>[0] = {}) => {
  const webdata = new Webdata({ allowPrivateAddresses: true, ...options })
  open.push(webdata)
  return webdata
}

const paths = (documents: ReadonlyArray<Document>) =>
  documents.map((document) => new URL(document.metadata.sourceURL).pathname).sort()

const waitUntil = async (check: () => Promise<boolean> | boolean, timeoutMs = 10_000) => {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not reached in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe("crawl", () => {
  it("visits exactly the reachable pages robots.txt allows, each once, and lists the blocked ones", async () => {
    const pages = chainPages(30)
    pages["/p/0"] = { links: ["/p/1", "/secret/plans", "/p/1#part", "/p/1/", "/p/1?", "/p/1/index.html"] }
    pages["/secret/plans"] = { links: [] }
    const s = await site({ pages, robots: "User-agent: *\nDisallow: /secret\n" })
    const job = await engine().crawl(s.url, { sitemap: "skip" })
    const expected = ["/", ...Array.from({ length: 30 }, (_, i) => `/p/${i}`)].sort()
    expect(job.status).toBe("completed")
    expect(paths(job.data)).toEqual(expected)
    expect(job.completed).toBe(31)
    expect(job.total).toBe(31)
    for (const path of expected) expect(s.hits(path), path).toBe(1)
    expect(s.hits("/secret/plans")).toBe(0)
    expect(s.hits("/robots.txt")).toBe(1)
    const errors = await (engine()
      .getCrawlErrors(job.id)
      .catch(() => undefined) ?? undefined)
    expect(errors).toBeUndefined() // another engine (another store) does not know the job
  })

  it("holds each link to its own origin's robots.txt, fetching each once", async () => {
    const other = await site({ pages: { "/private/y": {}, "/open": {} }, robots: "User-agent: *\nAllow: /\n" })
    const s = await site({
      pages: { "/": { links: ["/private/x", "/a", `${other.url}/private/y`, `${other.url}/open`] }, "/a": {} },
      robots: "User-agent: *\nDisallow: /private\n",
    })
    const webdata = engine()
    const job = await webdata.crawl(s.url, { sitemap: "skip", allowExternalLinks: true })
    expect(job.data.map((document) => document.metadata.sourceURL).sort()).toEqual(
      [`${s.url}/`, `${s.url}/a`, `${other.url}/private/y`, `${other.url}/open`].sort(),
    )
    expect((await webdata.getCrawlErrors(job.id)).robotsBlocked).toEqual([`${s.url}/private/x`])
    expect(s.hits("/robots.txt")).toBe(1)
    expect(other.hits("/robots.txt")).toBe(1)
  })

  it("reports robots.txt-blocked URLs and keeps markdown only (links were only needed to crawl)", async () => {
    const s = await site({
      pages: { "/": { links: ["/a", "/private/x"] }, "/a": {}, "/private/x": {} },
      robots: "User-agent: *\nDisallow: /private\n",
    })
    const webdata = engine()
    const job = await webdata.crawl(s.url, { sitemap: "skip" })
    expect(paths(job.data)).toEqual(["/", "/a"])
    expect(job.data[0]?.markdown).toContain("This is the content of the page at /.")
    expect(job.data[0]?.links).toBeUndefined()
    const errors = await webdata.getCrawlErrors(job.id)
    expect(errors.robotsBlocked).toEqual([`${s.url}/private/x`])
    expect(errors.errors).toEqual([])
  })

  it("stops at limit and at maxDiscoveryDepth", async () => {
    const s = await site({ pages: chainPages(40) })
    const webdata = engine()
    const limited = await webdata.crawl(s.url, { sitemap: "skip", limit: 7 })
    expect(limited.data).toHaveLength(7)
    expect(limited.completed).toBe(7)
    const shallow = await webdata.crawl(`${s.url}/`, {
      sitemap: "skip",
      maxDiscoveryDepth: 2,
      scrapeOptions: { maxAge: 0 },
    })
    // depth 0: "/", depth 1: /p/0, depth 2: /p/1 and /p/3
    expect(paths(shallow.data)).toEqual(["/", "/p/0", "/p/1", "/p/3"])
  })

  it("follows include and exclude patterns", async () => {
    const pages = {
      "/": { links: ["/blog/a", "/blog/b", "/shop/x", "/blog/tags/t"] },
      "/blog/a": {},
      "/blog/b": {},
      "/shop/x": {},
      "/blog/tags/t": {},
    }
    const s = await site({ pages })
    const job = await engine().crawl(s.url, {
      sitemap: "skip",
      includePaths: ["^/blog"],
      excludePaths: ["/tags/"],
    })
    expect(paths(job.data)).toEqual(["/", "/blog/a", "/blog/b"])
  })

  it("adds sitemap URLs (index and gzip) with sitemap include, and crawls only them with sitemap only", async () => {
    const urlset = (base: string, entries: ReadonlyArray<string>) =>
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
        .map((entry) => `<url><loc>${base}${entry}</loc></url>`)
        .join("")}</urlset>`
    let base = ""
    const files: Record<string, readonly [string, string | Buffer]> = {}
    const s = await site({
      pages: { "/": { links: ["/linked"] }, "/linked": {}, "/hidden-1": {}, "/hidden-2": {} },
      robots: "User-agent: *\nAllow: /\nSitemap: /sitemap-index.xml\n",
      files,
    })
    base = s.url
    files["/sitemap-index.xml"] = [
      "application/xml",
      `<?xml version="1.0"?><sitemapindex><sitemap><loc>${base}/one.xml.gz</loc></sitemap></sitemapindex>`,
    ]
    files["/one.xml.gz"] = ["application/gzip", gzipSync(urlset(base, ["/hidden-1", "/hidden-2"]))]
    const webdata = engine()
    const included = await webdata.crawl(s.url, { sitemap: "include" })
    expect(paths(included.data)).toEqual(["/", "/hidden-1", "/hidden-2", "/linked"])
    const only = await webdata.crawl(s.url, { sitemap: "only", scrapeOptions: { maxAge: 0 } })
    expect(paths(only.data)).toEqual(["/", "/hidden-1", "/hidden-2"])
  })

  it("ends in a terminal state when every page fails, with the errors listed", async () => {
    const s = await site({ pages: { "/": { links: ["/broken"], status: 500 }, "/broken": { status: 500 } } })
    const webdata = engine()
    const started = Date.now()
    const job = await webdata.crawl(`${s.url}/`, { sitemap: "skip" })
    expect(job.status).toBe("completed")
    // A 500 page is retried (3 attempts in all), then recorded as what the site answered.
    expect(s.hits("/")).toBe(3)
    expect(job.data[0]?.metadata.statusCode).toBe(500)
    expect(Date.now() - started).toBeLessThan(15_000)

    const unreachable = createServer()
    await new Promise<void>((resolve) => unreachable.listen(0, "127.0.0.1", resolve))
    const port = (unreachable.address() as AddressInfo).port
    await new Promise<void>((resolve) => unreachable.close(() => resolve()))
    const dead = await webdata.crawl(`http://127.0.0.1:${port}/`, { sitemap: "skip" })
    expect(dead.status).toBe("completed")
    expect(dead.data).toEqual([])
    const errors = await webdata.getCrawlErrors(dead.id)
    expect(errors.errors).toHaveLength(1)
    expect(errors.errors[0]).toMatchObject({ url: `http://127.0.0.1:${port}/`, code: "SCRAPE_SITE_ERROR" })
  }, 30_000)

  it("defers a throttled page by its Retry-After without burning an attempt", async () => {
    const s = await site({
      pages: {
        "/": { links: ["/busy"] },
        "/busy": {
          answers: [
            { status: 429, headers: { "retry-after": "1" } },
            { status: 429, headers: { "retry-after": "1" } },
            { status: 503, headers: { "retry-after": "1" } },
          ],
        },
      },
    })
    const job = await engine().crawl(s.url, { sitemap: "skip" })
    const busy = job.data.find((document) => document.metadata.sourceURL.endsWith("/busy"))
    expect(busy?.metadata.statusCode).toBe(200)
    expect(s.hits("/busy")).toBe(4)
    const times = s.requests.filter((request) => request.path === "/busy").map((request) => request.at)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900)
  }, 20_000)

  it("keeps within maxConcurrency and spaces fetches by delay", async () => {
    const pages: SiteSpec["pages"] = { "/": { links: Array.from({ length: 12 }, (_, i) => `/slow/${i}`) } }
    for (let i = 0; i < 12; i++) pages[`/slow/${i}`] = { delayMs: 80 }
    const s = await site({ pages })
    const webdata = engine()
    const job = await webdata.crawl(s.url, { sitemap: "skip", maxConcurrency: 3 })
    expect(job.data).toHaveLength(13)
    expect(s.maxInFlight()).toBeLessThanOrEqual(3)
    expect(s.maxInFlight()).toBeGreaterThanOrEqual(2)

    const spaced = await site({ pages: { "/": { links: ["/a", "/b", "/c"] }, "/a": {}, "/b": {}, "/c": {} } })
    await webdata.crawl(spaced.url, { sitemap: "skip", delay: 0.2 })
    const times = spaced.requests.filter((request) => request.path !== "/robots.txt").map((request) => request.at)
    expect(times).toHaveLength(4)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(190)
  }, 20_000)

  it("honours robots.txt Crawl-delay for the site's pages", async () => {
    const s = await site({
      pages: { "/": { links: ["/a", "/b"] }, "/a": {}, "/b": {} },
      robots: "User-agent: *\nCrawl-delay: 0.5\n",
    })
    await engine().crawl(s.url, { sitemap: "skip" })
    const times = s.requests.filter((request) => request.path !== "/robots.txt").map((request) => request.at)
    expect(times).toHaveLength(3)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(450)
  })

  it("renews the lease of a page that takes longer than the lease, so it is fetched once", async () => {
    const s = await site({ pages: { "/": { links: ["/slow"] }, "/slow": { delayMs: 1200 } } })
    const job = await engine({ worker: { leaseMs: 300, pollMs: 20 } }).crawl(s.url, { sitemap: "skip" })
    expect(paths(job.data)).toEqual(["/", "/slow"])
    expect(s.hits("/slow")).toBe(1)
  })

  it("purges a job once it expires", async () => {
    const s = await site({ pages: { "/": {} } })
    const webdata = engine({ jobs: { jobTtlMs: 300 }, worker: { purgeEveryMs: 100 } })
    const job = await webdata.crawl(s.url, { sitemap: "skip" })
    expect(job.status).toBe("completed")
    await new Promise((resolve) => setTimeout(resolve, 700))
    const gone = await webdata.getCrawlStatus(job.id).catch((error: unknown) => error)
    expect((gone as WebdataError).status).toBe(404)
  })

  it("stops fetching within a second of a cancel, and aborts fetches in flight", async () => {
    const pages: SiteSpec["pages"] = { "/": { links: Array.from({ length: 200 }, (_, i) => `/slow/${i}`) } }
    for (let i = 0; i < 200; i++) pages[`/slow/${i}`] = { delayMs: 400, links: [`/slow/${(i + 1) % 200}`] }
    const s = await site({ pages })
    const webdata = engine()
    const { id } = await webdata.startCrawl(s.url, { sitemap: "skip" })
    await waitUntil(async () => (await webdata.getCrawlStatus(id)).completed >= 5)
    expect(await webdata.cancelCrawl(id)).toBe(true)
    const cancelledAt = Date.now()
    const status = await webdata.getCrawlStatus(id)
    expect(status.status).toBe("cancelled")
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const late = s.requests.filter((request) => request.at > cancelledAt + 1000)
    expect(late).toEqual([])
    expect(s.maxInFlight()).toBeGreaterThan(1)
    await waitUntil(() => s.requests.length > 0 && s.maxInFlight() >= 0)
    const after = await webdata.getCrawlStatus(id)
    expect(after.completed).toBe(status.completed)
  }, 20_000)

  it("scrapes a batch, reports invalid URLs, and appends to it", async () => {
    const s = await site({ pages: { "/a": {}, "/b": {}, "/c": {} } })
    const webdata = engine()
    const batch = await webdata.batchScrape([`${s.url}/a`, `${s.url}/b`, "not a url"], {
      ignoreInvalidURLs: true,
      formats: ["markdown", "links"],
    })
    expect(batch.status).toBe("completed")
    expect(paths(batch.data)).toEqual(["/a", "/b"])
    expect(batch.data[0]?.links).toBeDefined()
    const appended = await webdata.startBatchScrape([`${s.url}/c`], { appendToId: batch.id })
    expect(appended.id).toBe(batch.id)
    await waitUntil(async () => (await webdata.getBatchScrapeStatus(batch.id)).completed === 3)
    const strict = await webdata.batchScrape([`${s.url}/a`, "not a url"]).catch((error: unknown) => error)
    expect(strict).toBeInstanceOf(WebdataError)
    expect((strict as WebdataError).code).toBe("BAD_REQUEST")
    expect((strict as WebdataError).details).toEqual([expect.objectContaining({ path: ["urls", 1] })])
  })

  it("streams documents as they are recorded and pages status results", async () => {
    const s = await site({ pages: chainPages(25) })
    const webdata = engine()
    const { id } = await webdata.startCrawl(s.url, { sitemap: "skip" })
    const streamed: Array<Document> = []
    for await (const document of webdata.crawlDocuments(id)) streamed.push(document)
    expect(streamed).toHaveLength(26)
    const first = await webdata.getCrawlStatus(id, { limit: 10 })
    expect(first.data).toHaveLength(10)
    expect(first.next).toBe(10)
    const last = await webdata.getCrawlStatus(id, { skip: 20, limit: 10 })
    expect(last.data).toHaveLength(6)
    expect(last.next).toBeUndefined()
    expect(
      paths([...first.data, ...(await webdata.getCrawlStatus(id, { skip: 10, limit: 10 })).data, ...last.data]),
    ).toEqual(paths(streamed))
  })

  it("refuses ignoreRobotsTxt unless the operator allows it, and invalid patterns", async () => {
    const s = await site({
      pages: { "/": { links: ["/private"] }, "/private": {} },
      robots: "User-agent: *\nDisallow: /private\n",
    })
    const refused = await engine()
      .startCrawl(s.url, { ignoreRobotsTxt: true })
      .catch((error: unknown) => error)
    expect((refused as WebdataError).status).toBe(403)
    const allowed = await engine({ jobs: { allowIgnoreRobotsTxt: true } }).crawl(s.url, {
      ignoreRobotsTxt: true,
      sitemap: "skip",
    })
    expect(paths(allowed.data)).toEqual(["/", "/private"])
    const invalid = await engine()
      .startCrawl(s.url, { includePaths: ["(unclosed"] })
      .catch((error: unknown) => error)
    expect((invalid as WebdataError).code).toBe("BAD_REQUEST")
  })

  it("reads a prompt into options that explicit options override", async () => {
    const s = await site({ pages: chainPages(30) })
    const job = await engine().crawl(s.url, { prompt: "no more than 5 pages", sitemap: "skip" })
    expect(job.data).toHaveLength(5)
    const explicit = await engine().crawl(s.url, { prompt: "no more than 5 pages", limit: 8, sitemap: "skip" })
    expect(explicit.data).toHaveLength(8)
  })

  it("deletes a zero-data-retention crawl's documents once delivered and caches nothing", async () => {
    const s = await site({ pages: { "/": { links: ["/a", "/b"] }, "/a": {}, "/b": {} } })
    const webdata = engine()
    const { id } = await webdata.startCrawl(s.url, { sitemap: "skip", zeroDataRetention: true })
    await waitUntil(async () => (await webdata.getCrawlStatus(id, { limit: 1, skip: 1000 })).status === "completed")
    const delivered = await webdata.getCrawlStatus(id, { limit: 2 })
    expect(delivered.data).toHaveLength(2)
    expect(delivered.next).toBe(2)
    const rest = await webdata.getCrawlStatus(id, { skip: 2 })
    expect(rest.data).toHaveLength(1)
    expect((await webdata.getCrawlStatus(id)).data).toEqual([])
    expect((await webdata.getCrawlStatus(id)).completed).toBe(3)
    const again = await webdata.scrape(`${s.url}/a`)
    expect(again.metadata.cacheState).toBe("miss")
  })

  it("delivers started, page and completed webhooks in order", async () => {
    const received: Array<{ type: string; data: unknown[] }> = []
    const receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        received.push(JSON.parse(body))
        res.end("ok")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    open.push({ close: () => new Promise<void>((resolve) => receiver.close(() => resolve())) })
    const s = await site({ pages: { "/": { links: ["/a"] }, "/a": {} } })
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    await engine().crawl(s.url, { sitemap: "skip", webhook: { url: hook, metadata: { run: "t1" } } })
    await waitUntil(() => received.length === 4)
    expect(received.map((event) => event.type)).toEqual([
      "crawl.started",
      "crawl.page",
      "crawl.page",
      "crawl.completed",
    ])
    expect(received[1]?.data).toHaveLength(1)
    expect(received[3]).toMatchObject({ success: true, metadata: { run: "t1" } })
  })
})
