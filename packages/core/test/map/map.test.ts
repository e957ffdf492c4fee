import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeMapRequest, type MapRequestInput } from "../../src/Domain/MapRequest.js"
import * as HttpFetcher from "../../src/Engines/HttpFetcher.js"
import { mapError } from "../../src/ErrorCodes.js"
import { MapError, type RequestError, type ScrapeError } from "../../src/Errors.js"
import { rankByRelevance, tokenize } from "../../src/Map/Relevance.js"
import { type MapScopeOptions, makeMapScope } from "../../src/Map/Scope.js"
import { MAX_PAGES, type MapResult, MapService, layer as mapLayer } from "../../src/Map.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"
import { Webdata, WebdataError } from "../../src/Webdata.js"

// ---------------------------------------------------------------------------------------------------------------
// A fixture web of several host names on one loopback server. `*.localhost` names resolve (through the guard's
// injectable resolver) to 127.0.0.1 only, so no traffic can leave the machine.
// ---------------------------------------------------------------------------------------------------------------

let server: Server
let port: number
/** `host/path?query` of every request the server answered, in order. */
const requests: string[] = []

const at = (host: string, path = "/") => `http://${host}.localhost:${port}${path}`

const page = (title: string, links: ReadonlyArray<string>, description?: string) =>
  `<!doctype html><html><head><title>${title}</title>${
    description !== undefined ? `<meta name="description" content="${description}">` : ""
  }</head><body><h1>${title}</h1>${links.map((href) => `<a href="${href}">${href}</a>`).join(" ")}</body></html>`

const urlset = (urls: ReadonlyArray<string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((url) => `<url><loc>${url}</loc></url>`)
    .join("")}</urlset>`

type Answer = { status?: number; type?: string; headers?: Record<string, string>; body: string | Buffer } | "hang"
type Site = (path: string) => Answer | undefined

/** `site`: robots.txt with a Sitemap: line to an index of a gzip sitemap and a plain one, and a small link graph. */
const site: Site = (path) => {
  const html = (body: string): Answer => ({ type: "text/html; charset=utf-8", body })
  switch (path) {
    case "/robots.txt":
      return {
        type: "text/plain",
        body: `User-agent: *\nDisallow: /private\n\nSitemap: ${at("site", "/sitemaps/index.xml")}\n`,
      }
    case "/sitemaps/index.xml":
      return {
        type: "application/xml",
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${at(
          "site",
          "/sitemaps/pages.xml.gz",
        )}</loc></sitemap><sitemap><loc>${at("site", "/sitemaps/blog.xml")}</loc></sitemap></sitemapindex>`,
      }
    case "/sitemaps/pages.xml.gz":
      return {
        type: "application/gzip",
        body: gzipSync(
          urlset([at("site", "/about"), at("site", "/pricing"), at("site", "/docs/intro"), at("other", "/elsewhere")]),
        ),
      }
    case "/sitemaps/blog.xml":
      return {
        type: "application/xml",
        body: urlset([at("site", "/blog/first-post"), at("site", "/blog/second-post")]),
      }
    case "/":
      return html(
        page(
          "Acme Home",
          [
            "/about",
            "/docs/",
            "/blog/",
            "/private/secret",
            "/contact?ref=nav",
            "/contact?ref=footer#form",
            "/gone",
            "/logo.png",
            "mailto:hello@acme.test",
            "#top",
            at("docs.site"),
            at("other", "/page"),
          ],
          "Acme makes anvils.",
        ),
      )
    case "/about":
      return html(page("About Acme", ["/team", "/"], "Who we are and why we build anvils."))
    case "/team":
      return html(page("Our Team", ["/team/alice"]))
    case "/docs/":
      return html(page("Documentation", ["/docs/intro", "/docs/install", "/about"]))
    case "/docs/intro":
      return html(page("Introduction", ["/docs/"]))
    case "/docs/install":
      return html(page("Installing Acme", [], "How to install the anvil toolkit on Linux, macOS and Windows."))
    case "/blog/":
      return html(page("Blog", ["/blog/first-post"]))
    case "/blog/first-post":
      return html(page("First post", []))
    case "/contact":
      return html(page("Contact us", []))
    case "/pricing":
      return html(page("Pricing plans", [], "What Acme costs."))
    default:
      return undefined
  }
}

const sites: Record<string, Site> = {
  site,
  "docs.site": (path) =>
    path === "/"
      ? { type: "text/html", body: page("Docs portal", ["/api"]) }
      : path === "/api"
        ? { type: "text/html", body: page("API reference", []) }
        : undefined,
  // No robots.txt, no sitemap: discovery only.
  plain: (path) =>
    path === "/"
      ? { type: "text/html", body: page("Plain", ["/one", "/two?x=1"]) }
      : path === "/one"
        ? { type: "text/html", body: page("One", ["/three"]) }
        : path === "/two" || path === "/three"
          ? { type: "text/html", body: page(path.slice(1), []) }
          : undefined,
  // Its start page moved to another site.
  moved: (path) => (path === "/" ? { status: 301, headers: { location: at("plain") }, body: "" } : undefined),
  hang: () => "hang",
  // robots.txt redirects to itself forever: no rules (RFC 9309), so the site is walked.
  loop: (path) =>
    path === "/robots.txt"
      ? { status: 302, headers: { location: "/robots.txt" }, body: "" }
      : path === "/"
        ? { type: "text/html", body: page("Loop home", ["/a"]) }
        : path === "/a"
          ? { type: "text/html", body: page("Page A", []) }
          : undefined,
  // An endless tree: every page links to ten more.
  big: (path) => {
    const id = /^\/p\/(\d+)$/.exec(path)?.[1] ?? (path === "/" ? "0" : undefined)
    if (id === undefined) return undefined
    const children = Array.from({ length: 10 }, (_, k) => `/p/${Number(id) * 10 + k + 1}`)
    return { type: "text/html", body: page(`Page ${id}`, children) }
  },
  other: (path) => ({ type: "text/html", body: page(`Other ${path}`, []) }),
}

const handle = (req: IncomingMessage, res: ServerResponse) => {
  const host = (req.headers.host ?? "").replace(/\.localhost:\d+$/, "")
  const url = new URL(req.url ?? "/", "http://x")
  requests.push(`${host}${url.pathname}${url.search}`)
  const answer = sites[host]?.(url.pathname)
  if (answer === "hang") return // never answers; the client gives up
  if (answer === undefined) {
    res.writeHead(404, { "content-type": "text/html" })
    res.end("<title>Not found</title><p>Nothing here.</p>")
    return
  }
  res.writeHead(answer.status ?? 200, { ...(answer.type ? { "content-type": answer.type } : {}), ...answer.headers })
  res.end(answer.body)
}

const resolver: UrlGuard.Resolver = async (hostname) => {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return [{ address: "127.0.0.1", family: 4 }]
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
}

let runtime: ManagedRuntime.ManagedRuntime<MapService, never>

beforeAll(async () => {
  server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  const guard = UrlGuard.layer({ allowPrivateAddresses: true, allow: [], resolver })
  runtime = ManagedRuntime.make(mapLayer.pipe(Layer.provide(HttpFetcher.layer), Layer.provide(guard)))
})

afterAll(async () => {
  await runtime.dispose()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const mapEither = (input: MapRequestInput) =>
  runtime.runPromise(
    decodeMapRequest(input).pipe(
      Effect.flatMap((request) => Effect.flatMap(MapService, (service) => service.map(request))),
      Effect.either,
    ),
  )

const map = async (input: MapRequestInput): Promise<MapResult> => {
  const result = await mapEither(input)
  if (Either.isLeft(result)) throw new Error(`map failed: ${result.left.message}`)
  return result.right
}

const failure = async (input: MapRequestInput): Promise<MapError | RequestError | ScrapeError> => {
  const result = await mapEither(input)
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

const urls = (result: MapResult) => result.links.map((link) => link.url)

describe("map over HTTP", () => {
  it("merges the start page, sitemaps (robots Sitemap: line, index, gzip) and links a few levels deep", async () => {
    requests.length = 0
    const result = await map({ url: at("site") })
    const found = urls(result)
    expect(found[0]).toBe(at("site"))
    expect(found).toEqual(
      expect.arrayContaining([
        // sitemap-only pages, from the gzip sitemap and the plain one behind the index
        at("site", "/pricing"),
        at("site", "/blog/second-post"),
        // links of the start page (depth 1), of their pages (depth 2) and of those (depth 3, not fetched)
        at("site", "/about"),
        at("site", "/team"),
        at("site", "/team/alice"),
        at("site", "/docs/install"),
        // a subdomain of the registrable domain (site.localhost) and its own links
        at("docs.site"),
        at("docs.site", "/api"),
        // queries are stripped and the variants merged; fragments dropped
        at("site", "/contact"),
        // disallowed by robots.txt: listed, never fetched
        at("site", "/private/secret"),
      ]),
    )
    for (const absent of [
      at("other", "/page"),
      at("other", "/elsewhere"),
      at("site", "/gone"),
      at("site", "/logo.png"),
    ])
      expect(found).not.toContain(absent)
    expect(found.some((url) => url.includes("?") || url.includes("#") || url.startsWith("mailto:"))).toBe(false)
    expect(new Set(found).size).toBe(found.length)
    expect(result.warning).toBeUndefined()

    // Entries of fetched pages carry their title and description, also when the sitemap listed them first.
    const byUrl = new Map(result.links.map((link) => [link.url, link]))
    expect(byUrl.get(at("site"))).toEqual({ url: at("site"), title: "Acme Home", description: "Acme makes anvils." })
    expect(byUrl.get(at("site", "/about"))).toEqual({
      url: at("site", "/about"),
      title: "About Acme",
      description: "Who we are and why we build anvils.",
    })
    expect(byUrl.get(at("docs.site", "/api"))?.title).toBe("API reference")
    expect(byUrl.get(at("site", "/team/alice"))?.title).toBeUndefined()

    expect(requests).toEqual(
      expect.arrayContaining([
        "site/robots.txt",
        "site/sitemaps/index.xml",
        "site/sitemaps/pages.xml.gz",
        "site/sitemaps/blog.xml",
        "docs.site/robots.txt",
      ]),
    )
    expect(requests.filter((request) => request.startsWith("site/private"))).toEqual([])
    expect(requests).not.toContain("site/team/alice") // depth 3 is reported, not fetched
    expect(requests.filter((request) => request.startsWith("other/"))).toEqual([])
    // robots.txt is read once per host however many pages of it are fetched at once
    expect(requests.filter((request) => request === "site/robots.txt")).toHaveLength(1)
  })

  it("sitemap: only returns the sitemap's in-scope URLs and walks no links", async () => {
    requests.length = 0
    const result = await map({ url: at("site"), sitemap: "only" })
    expect(urls(result).sort()).toEqual(
      [
        at("site", "/about"),
        at("site", "/pricing"),
        at("site", "/docs/intro"),
        at("site", "/blog/first-post"),
        at("site", "/blog/second-post"),
      ].sort(),
    )
    expect(requests).not.toContain("site/about")
  })

  it("sitemap: skip reads no sitemap and finds sitemap-only pages no more", async () => {
    requests.length = 0
    const found = urls(await map({ url: at("site"), sitemap: "skip" }))
    expect(found).toContain(at("site", "/about"))
    expect(found).not.toContain(at("site", "/pricing"))
    expect(requests.filter((request) => request.includes("sitemap"))).toEqual([])
  })

  it("discovers a site that has neither robots.txt nor a sitemap", async () => {
    const result = await map({ url: at("plain") })
    expect(urls(result)).toEqual([at("plain"), at("plain", "/one"), at("plain", "/two"), at("plain", "/three")])
    expect(result.links[1]).toEqual({ url: at("plain", "/one"), title: "One" })
  })

  it("keeps query strings with ignoreQueryParameters: false", async () => {
    const found = urls(await map({ url: at("site"), ignoreQueryParameters: false, sitemap: "skip" }))
    expect(found).toEqual(expect.arrayContaining([at("site", "/contact?ref=nav"), at("site", "/contact?ref=footer")]))
  })

  it("stops at limit", async () => {
    const result = await map({ url: at("site"), limit: 3 })
    expect(result.links).toHaveLength(3)
    expect(urls(result)[0]).toBe(at("site"))
  })

  it("fetches at most MAX_PAGES pages of an endless site and reports the links found on them", async () => {
    requests.length = 0
    const result = await map({ url: at("big"), sitemap: "skip" })
    const pages = requests.filter((request) => request.startsWith("big/") && request !== "big/robots.txt")
    expect(pages).toHaveLength(MAX_PAGES)
    expect(new Set(pages).size).toBe(pages.length)
    // depth 1 and 2 are fetched (1 + 10 + 89 pages); links of depth-2 pages are reported unvisited
    expect(result.links.length).toBeGreaterThan(500)
  })

  it("ranks by relevance to search, the obviously relevant page first", async () => {
    const install = urls(await map({ url: at("site"), search: "how to install" }))
    expect(install[0]).toBe(at("site", "/docs/install"))
    const pricing = urls(await map({ url: at("site"), search: "Pricing" }))
    expect(pricing[0]).toBe(at("site", "/pricing"))
    // nothing is dropped by ranking
    expect(pricing.length).toBe(install.length)
  })

  it("leaves subdomains out with includeSubdomains: false", async () => {
    requests.length = 0
    const found = urls(await map({ url: at("site"), includeSubdomains: false }))
    expect(found).toContain(at("site", "/about"))
    expect(found.filter((url) => url.includes("docs.site"))).toEqual([])
    expect(requests.filter((request) => request.startsWith("docs.site"))).toEqual([])
  })

  it("filterByPath keeps URLs under the start path, on every host; false lifts it", async () => {
    const result = await map({ url: at("site", "/docs/") })
    expect(urls(result).sort()).toEqual([at("site", "/docs/"), at("site", "/docs/install"), at("site", "/docs/intro")])
    expect(result.warning).toBeUndefined()
    const unfiltered = urls(await map({ url: at("site", "/docs/"), filterByPath: false }))
    expect(unfiltered).toEqual(expect.arrayContaining([at("site", "/about"), at("site", "/pricing"), at("docs.site")]))
  })

  it("honours include and exclude patterns and maxDiscoveryDepth", async () => {
    const blog = urls(await map({ url: at("site"), includePaths: ["^/blog"] }))
    expect(blog.sort()).toEqual([at("site", "/blog/"), at("site", "/blog/first-post"), at("site", "/blog/second-post")])
    const noDocs = urls(await map({ url: at("site"), excludePaths: ["docs"], sitemap: "skip" }))
    expect(noDocs.filter((url) => url.includes("docs"))).toEqual([])
    const shallow = urls(await map({ url: at("site"), maxDiscoveryDepth: 1, sitemap: "skip" }))
    expect(shallow).toContain(at("site", "/about"))
    expect(shallow).not.toContain(at("site", "/team"))
  })

  it("fetches robots-disallowed pages with ignoreRobotsTxt", async () => {
    requests.length = 0
    await map({ url: at("site"), ignoreRobotsTxt: true, sitemap: "skip" })
    expect(requests).toContain("site/private/secret")
    expect(requests).not.toContain("site/robots.txt")
  })

  it("reads a robots.txt that redirects in a loop as no rules, not as a closed site", async () => {
    const result = await map({ url: at("loop"), sitemap: "skip" })
    expect(result.links).toEqual([
      { url: at("loop"), title: "Loop home" },
      { url: at("loop", "/a"), title: "Page A" },
    ])
  })

  it("follows a start page that redirects to another site", async () => {
    const found = urls(await map({ url: at("moved") }))
    expect(found).toEqual(expect.arrayContaining([at("plain"), at("plain", "/one")]))
    expect(found.filter((url) => url.includes("moved"))).toEqual([])
  })

  it("warns when a deep URL gives at most one result, like Firecrawl", async () => {
    const result = await map({ url: at("site", "/nothing/here") })
    expect(result.links).toEqual([])
    expect(result.warning).toBe(
      `Only 0 result(s) found. For broader coverage, try mapping the base domain: site.localhost:${port}`,
    )
    expect((await map({ url: at("site", "/nothing/here"), limit: 1 })).warning).toBeUndefined()
  })

  it("fails with MapError Timeout (408 MAP_TIMEOUT) when a hanging site gives nothing within timeout", async () => {
    const started = Date.now()
    const error = await failure({ url: at("hang"), timeout: 700 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(error).toBeInstanceOf(MapError)
    expect(error).toMatchObject({ _tag: "MapError", reason: "Timeout" })
    expect(mapError(error)).toMatchObject({ status: 408, code: "MAP_TIMEOUT" })
    expect(error.message).toMatch(/^The map operation timed out/)
  })

  it("refuses a target the guard refuses with the scrape's code (403 SCRAPE_BLOCKED_ADDRESS)", async () => {
    const guarded = new Webdata()
    try {
      const error = await guarded.map(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(WebdataError)
      expect(error).toMatchObject({ status: 403, code: "SCRAPE_BLOCKED_ADDRESS" })
    } finally {
      await guarded.close()
    }
  })

  it("fails with MapError Failed (500 MAP_FAILED) when the site cannot be reached at all", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const error = await failure({ url: `http://127.0.0.1:${closedPort}/`, timeout: 5000 })
    expect(error).toMatchObject({ _tag: "MapError", reason: "Failed" })
    expect(mapError(error)).toMatchObject({ status: 500, code: "MAP_FAILED" })
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Pure parts: scope (public-suffix aware subdomains, path filter) and ranking.
// ---------------------------------------------------------------------------------------------------------------

const scopeDefaults: MapScopeOptions = {
  includeSubdomains: true,
  filterByPath: true,
  allowExternalLinks: false,
  includePaths: [],
  excludePaths: [],
  regexOnFullURL: false,
  ignoreQueryParameters: true,
  deduplicateSimilarURLs: true,
}

const admitted = (seed: string, options: Partial<MapScopeOptions>, links: ReadonlyArray<string>) => {
  const scope = makeMapScope(seed, { ...scopeDefaults, ...options })
  return links.map((link) => scope.admit(link, { fromUrl: seed, depth: 0 }) ?? null)
}

describe("makeMapScope", () => {
  it("admits subdomains of the registrable domain by the public suffix list, never another domain", () => {
    const links = [
      "https://shop.example.co.uk/cart",
      "https://www.example.co.uk/a",
      "https://other.co.uk/b",
      "https://example.com/c",
    ]
    expect(admitted("https://example.co.uk/", {}, links)).toEqual([
      "https://shop.example.co.uk/cart",
      "https://www.example.co.uk/a",
      null,
      null,
    ])
    expect(admitted("https://example.co.uk/", { includeSubdomains: false }, links)).toEqual([
      null,
      "https://www.example.co.uk/a",
      null,
      null,
    ])
    // Subdomains of a private suffix (github.io) are separate sites.
    expect(admitted("https://alice.github.io/", {}, ["https://bob.github.io/x", "https://alice.github.io/y"])).toEqual([
      null,
      "https://alice.github.io/y",
    ])
  })

  it("applies the path filter to subdomains too, and lifts it with crawlEntireDomain or allowExternalLinks", () => {
    const links = ["/docs/a", "/blog/b", "https://api.example.com/docs/v1", "https://api.example.com/"]
    expect(admitted("https://example.com/docs/", {}, links)).toEqual([
      "https://example.com/docs/a",
      null,
      "https://api.example.com/docs/v1",
      null,
    ])
    expect(admitted("https://example.com/docs/", { crawlEntireDomain: true }, links)).not.toContain(null)
    expect(admitted("https://example.com/docs/", { allowExternalLinks: true }, links)).not.toContain(null)
  })

  it("normalizes and keys URLs so variants are one entry", () => {
    const scope = makeMapScope("https://example.com/", scopeDefaults)
    const a = scope.admit("http://www.example.com/page/?utm=1#x", { fromUrl: "https://example.com/", depth: 0 })
    expect(a).toBe("http://www.example.com/page/")
    expect(scope.key(a ?? "")).toBe(scope.key("https://example.com/page"))
  })
})

describe("rankByRelevance", () => {
  const entries = [
    { url: "https://acme.test/" },
    { url: "https://acme.test/blog/2024/anvil-news", title: "News" },
    { url: "https://acme.test/careers", title: "Jobs at Acme", description: "Work on anvils with us." },
    { url: "https://acme.test/blogs/", title: "Our blogs" },
    { url: "https://docs.acme.test/", title: "Reference" },
  ]

  it("puts the best match first, stems plurals and splits camelCase, and drops nothing", () => {
    expect(rankByRelevance(entries, "blog").map((entry) => entry.url)).toEqual([
      "https://acme.test/blogs/",
      "https://acme.test/blog/2024/anvil-news",
      "https://acme.test/",
      "https://acme.test/careers",
      "https://docs.acme.test/",
    ])
    expect(rankByRelevance(entries, "jobs")[0]?.url).toBe("https://acme.test/careers")
    expect(rankByRelevance(entries, "the docs")[0]?.url).toBe("https://docs.acme.test/")
    expect(tokenize("gettingStarted Café-Menus")).toEqual(["getting", "started", "cafe", "menu"])
  })

  it("keeps the original order when nothing matches", () => {
    expect(rankByRelevance(entries, "zebra")).toEqual(entries)
    expect(rankByRelevance(entries, "  ")).toEqual(entries)
  })
})
