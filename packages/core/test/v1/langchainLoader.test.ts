/**
 * LangChain's FireCrawlLoader against the server over real HTTP on 127.0.0.1, in its three modes.
 *
 * The loader calls `scrapeUrl` / `crawlUrl` / `mapUrl` on the default export of `@mendable/firecrawl-js` and reads the
 * 1.x SDK's results (`success`, `data`, `links`). With the installed SDK 4.x those names are aliases of the v2 client's
 * `scrape` / `crawl` / `map`: the requests go to `/v2/*` and the results carry no `success`, so the loader throws on
 * every mode whatever the server answers. The first block pins that. The second hands the loader's three calls to
 * the 1.x SDK (the client the loader was written for, installed as `firecrawl-js-v1`), so it runs through `/v1`.
 */

import { FireCrawlLoader } from "@langchain/community/document_loaders/web/firecrawl"
import Firecrawl from "@mendable/firecrawl-js"
import FirecrawlApp1 from "firecrawl-js-v1"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { serveApi } from "../support/apiOnLoopback.js"
import { type CrawlSite, startCrawlSite } from "../support/crawlSite.js"
import type { Listening } from "../support/loopback.js"

const KEY = "langchain-loader-key"

const pages = {
  "/": { links: ["/guide", "/news", "/private/notes"], title: "Welcome" },
  "/guide": { links: ["/guide/install"], title: "Guide" },
  "/guide/install": { title: "Install" },
  "/news": { links: ["/"], title: "News" },
  "/private/notes": { title: "Notes" },
}

let site: CrawlSite
let api: Listening
/** Method and path of every request the API received and the status it answered. */
let seen: Array<string> = []

beforeAll(async () => {
  site = await startCrawlSite({ pages, robots: "User-agent: *\nDisallow: /private\n" })
  api = await serveApi([KEY], {
    observe: (handler) => async (request) => {
      const response = await handler(request)
      seen.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`)
      return response
    },
  })
})
afterAll(async () => {
  await api?.close()
  await site?.close()
})
afterEach(() => {
  seen = []
})

const loader = (mode: "scrape" | "crawl" | "map", params?: Record<string, unknown>) =>
  new FireCrawlLoader({ url: site.url, apiKey: KEY, apiUrl: api.url, mode, ...(params ? { params } : {}) })

const pathOf = (url: unknown) => new URL(String(url)).pathname

describe("FireCrawlLoader with the installed SDK 4.x", () => {
  it("reaches the v2 routes, which answer 200, and the loader rejects the SDK's results in every mode", async () => {
    await expect(loader("scrape").load()).rejects.toThrow("Firecrawl: Failed to scrape URL. Error: undefined")
    expect(seen).toEqual(["POST /v2/scrape 200"])
    await expect(loader("map").load()).rejects.toThrow("Firecrawl: Failed to map URL. Error: undefined")
    expect(seen).toEqual(["POST /v2/scrape 200", "POST /v2/map 200"])
    await expect(loader("crawl", { limit: 2, pollInterval: 1 }).load()).rejects.toThrow(
      "Firecrawl: Failed to crawl URL. Error: undefined",
    )
    expect(seen.slice(2, 3)).toEqual(["POST /v2/crawl 200"])
    expect(seen.slice(3).every((line) => /^GET \/v2\/crawl\/[^/]+ 200$/.test(line))).toBe(true)
    expect(seen.some((line) => line.includes("/v1/"))).toBe(false)
  })
})

describe("FireCrawlLoader through the v1 routes", () => {
  const prototype = Firecrawl.prototype as unknown as Record<string, unknown>
  const names = ["scrapeUrl", "crawlUrl", "mapUrl"] as const
  const originals = Object.fromEntries(names.map((name) => [name, prototype[name]]))

  beforeAll(() => {
    const legacy = () =>
      new FirecrawlApp1({ apiKey: KEY, apiUrl: api.url }) as unknown as Record<
        string,
        (...args: Array<unknown>) => unknown
      >
    for (const name of names)
      prototype[name] = (...args: Array<unknown>) => {
        const client = legacy()
        return client[name]?.apply(client, args)
      }
  })
  afterAll(() => {
    for (const name of names) prototype[name] = originals[name]
  })

  it("scrape: one Document with the page's markdown, title and sourceURL", async () => {
    const documents = await loader("scrape").load()
    expect(documents).toHaveLength(1)
    const [document] = documents
    expect(document?.pageContent).toContain("# Page /")
    expect(document?.pageContent).toContain("This is the content of the page at /.")
    // v1's onlyMainContent default: the footer is left out.
    expect(document?.pageContent).not.toContain("Footer text")
    expect(document?.metadata).toMatchObject({ title: "Welcome", sourceURL: site.url, statusCode: 200 })
    expect(seen).toEqual(["POST /v1/scrape 200"])
  })

  it("scrape with params: html only, which the loader takes as the page content", async () => {
    const [document] = await loader("scrape", { formats: ["html"] }).load()
    expect(document?.pageContent).toContain("<p>This is the content of the page at /.")
    expect(document?.pageContent).not.toContain("# Page /")
  })

  it("crawl: one Document per crawled page, the robots.txt-disallowed page absent", async () => {
    const documents = await loader("crawl", { limit: 10, ignoreSitemap: true }).load()
    const byPath = new Map(documents.map((document) => [pathOf(document.metadata.sourceURL), document]))
    expect([...byPath.keys()].sort()).toEqual(["/", "/guide", "/guide/install", "/news"])
    expect(documents).toHaveLength(4)
    expect(byPath.get("/guide/install")?.pageContent).toContain("This is the content of the page at /guide/install.")
    expect(byPath.get("/news")?.metadata.title).toBe("News")
    expect(byPath.get("/guide")?.metadata.title).toBe("Guide")
    expect(site.hits("/private/notes")).toBe(0)
    expect(seen[0]).toBe("POST /v1/crawl 200")
    expect(seen.slice(1).every((line) => /^GET \/v1\/crawl\/[^/]+ 200$/.test(line))).toBe(true)
  })

  it("crawl with limit: as many Documents as the limit", async () => {
    const documents = await loader("crawl", { limit: 2, ignoreSitemap: true }).load()
    expect(documents).toHaveLength(2)
    expect(documents.map((document) => pathOf(document.metadata.sourceURL))).toContain("/")
    for (const document of documents) expect(document.pageContent).toContain("This is the content of the page at /")
  })

  it("map: one Document per link, its content the link as a JSON string", async () => {
    const documents = await loader("map", { ignoreSitemap: true }).load()
    const links = documents.map((document) => JSON.parse(document.pageContent) as unknown)
    expect(links).toEqual(
      expect.arrayContaining([`${site.url}/guide`, `${site.url}/news`, `${site.url}/guide/install`]),
    )
    expect(links.every((link) => typeof link === "string")).toBe(true)
    expect(seen).toEqual(["POST /v1/map 200"])
  })
})
