import { describe, expect, it } from "vitest"
import {
  allowAll,
  disallowAll,
  MAX_ROBOTS_CHARS,
  parseRobots,
  robotsFromFetch,
  robotsUrlFor,
} from "../../src/Crawl/Robots.js"

const ROBOTS_URL = "https://example.com/robots.txt"
const at = (path: string) => `https://example.com${path}`

describe("parseRobots", () => {
  it("applies Allow/Disallow with wildcards, longest match first, Allow winning ties", () => {
    const rules = parseRobots(
      ROBOTS_URL,
      [
        "User-agent: *",
        "Disallow: /private",
        "Allow: /private/public",
        "Disallow: /*.pdf$",
        "Disallow: /search?",
        "Disallow: /tie",
        "Allow: /tie",
      ].join("\n"),
    )
    expect(rules.isAllowed(at("/"))).toBe(true)
    expect(rules.isAllowed(at("/private"))).toBe(false)
    expect(rules.isAllowed(at("/private/x"))).toBe(false)
    expect(rules.isAllowed(at("/private/public/page"))).toBe(true)
    expect(rules.isAllowed(at("/files/a.pdf"))).toBe(false)
    expect(rules.isAllowed(at("/files/a.pdf?download=1"))).toBe(true)
    expect(rules.isAllowed(at("/search?q=x"))).toBe(false)
    expect(rules.isAllowed(at("/search"))).toBe(true)
    expect(rules.isAllowed(at("/tie"))).toBe(true)
  })

  it("obeys the webdata group first, then Firecrawl's, then *", () => {
    const groups = {
      webdata: "User-agent: webdata\nDisallow: /w\n",
      firecrawl: "User-agent: FirecrawlAgent\nDisallow: /f\n",
      star: "User-agent: *\nDisallow: /s\n",
    }
    const all = parseRobots(ROBOTS_URL, groups.star + groups.firecrawl + groups.webdata)
    expect([all.isAllowed(at("/w")), all.isAllowed(at("/f")), all.isAllowed(at("/s"))]).toEqual([false, true, true])

    const firecrawl = parseRobots(ROBOTS_URL, groups.star + groups.firecrawl)
    expect([firecrawl.isAllowed(at("/f")), firecrawl.isAllowed(at("/s"))]).toEqual([false, true])

    const star = parseRobots(ROBOTS_URL, `${groups.star}User-agent: Googlebot\nDisallow: /\n`)
    expect([star.isAllowed(at("/s")), star.isAllowed(at("/other"))]).toEqual([false, true])
  })

  it("matches group names case-insensitively and without a version", () => {
    const rules = parseRobots(ROBOTS_URL, "User-agent: *\nDisallow:\n\nUser-Agent: WebData/2.1\nDisallow: /x\n")
    expect(rules.isAllowed(at("/x"))).toBe(false)
    const fireCrawl = parseRobots(ROBOTS_URL, "user-agent: FIRECRAWLAGENT\ndisallow: /y\n")
    expect(fireCrawl.isAllowed(at("/y"))).toBe(false)
  })

  it("gives each agent of a multi-agent group the group's rules", () => {
    const rules = parseRobots(ROBOTS_URL, "User-agent: Googlebot\nUser-agent: webdata\nDisallow: /both\n")
    expect(rules.isAllowed(at("/both/x"))).toBe(false)
  })

  it("refuses /path when /path/ is disallowed, as Firecrawl does", () => {
    const rules = parseRobots(ROBOTS_URL, "User-agent: *\nDisallow: /admin/\n")
    expect(rules.isAllowed(at("/admin"))).toBe(false)
    expect(rules.isAllowed(at("/admin/users"))).toBe(false)
    expect(rules.isAllowed(at("/administration"))).toBe(true)
  })

  it("judges a URL of another origin by its path, and keeps `//host` paths as paths", () => {
    const rules = parseRobots(ROBOTS_URL, "User-agent: *\nDisallow: /private\nDisallow: //evil\n")
    expect(rules.isAllowed("http://www.example.com:8080/private/x")).toBe(false)
    expect(rules.isAllowed("https://example.com//evil.test/x")).toBe(false)
    expect(rules.isAllowed("not a url")).toBe(false)
  })

  it("matches percent-encoded and non-ASCII paths", () => {
    const rules = parseRobots(ROBOTS_URL, "User-agent: *\nDisallow: /caf%C3%A9\nDisallow: /über\n")
    expect(rules.isAllowed(at("/café/menu"))).toBe(false)
    expect(rules.isAllowed(at("/%C3%BCber"))).toBe(false)
  })

  it("reads Crawl-delay of the group that applies", () => {
    const text = "User-agent: *\nCrawl-delay: 10\n\nUser-agent: webdata\nCrawl-delay: 2.5\nDisallow:\n"
    expect(parseRobots(ROBOTS_URL, text).crawlDelaySeconds()).toBe(2.5)
    expect(parseRobots(ROBOTS_URL, "User-agent: *\nCrawl-delay: 10\n").crawlDelaySeconds()).toBe(10)
    expect(parseRobots(ROBOTS_URL, "User-agent: *\nCrawl-delay: soon\n").crawlDelaySeconds()).toBeUndefined()
    expect(parseRobots(ROBOTS_URL, "User-agent: *\nCrawl-delay: -3\n").crawlDelaySeconds()).toBeUndefined()
    expect(parseRobots(ROBOTS_URL, "User-agent: *\nDisallow: /\n").crawlDelaySeconds()).toBeUndefined()
  })

  it("lists Sitemap lines as absolute http(s) URLs without duplicates", () => {
    const rules = parseRobots(
      ROBOTS_URL,
      [
        "Sitemap: https://example.com/sitemap.xml",
        "User-agent: *",
        "Disallow:",
        "sitemap: /news-sitemap.xml.gz",
        "Sitemap: https://example.com/sitemap.xml",
        "Sitemap: ftp://example.com/s.xml",
        "Sitemap: https://cdn.example.net/s2.xml # comment",
      ].join("\r\n"),
    )
    expect(rules.sitemaps).toEqual([
      "https://example.com/sitemap.xml",
      "https://example.com/news-sitemap.xml.gz",
      "https://cdn.example.net/s2.xml",
    ])
  })

  it("ignores a byte-order mark and comments", () => {
    const rules = parseRobots(ROBOTS_URL, "\uFEFFUser-agent: * # everyone\nDisallow: /x # not this\n")
    expect(rules.isAllowed(at("/x"))).toBe(false)
  })

  it("reads only the first 500 KiB and drops the line cut in half", () => {
    const filler = `# ${"x".repeat(100)}\n`.repeat(Math.ceil(MAX_ROBOTS_CHARS / 103))
    const rules = parseRobots(ROBOTS_URL, `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`)
    expect(rules.isAllowed(at("/early"))).toBe(false)
    expect(rules.isAllowed(at("/late"))).toBe(true)

    // A rule straddling the cap must not survive as a shorter, broader rule (`Disallow: /` here).
    const head = `User-agent: *\n${"#".repeat(MAX_ROBOTS_CHARS - 26)}\n`
    const straddling = parseRobots(ROBOTS_URL, `${head}Disallow: /only-this-long-path\n`)
    expect(head.length + "Disallow: /".length).toBe(MAX_ROBOTS_CHARS)
    expect(straddling.isAllowed(at("/anything"))).toBe(true)
  })

  it("allows everything for an empty file", () => {
    expect(parseRobots(ROBOTS_URL, "").isAllowed(at("/any"))).toBe(true)
  })
})

describe("robotsFromFetch", () => {
  const response = (status: number, text = "User-agent: *\nDisallow: /x\n", contentType?: string) =>
    robotsFromFetch(ROBOTS_URL, {
      _tag: "Response",
      status,
      text,
      ...(contentType === undefined ? {} : { contentType }),
    })

  it("parses a 2xx robots.txt", () => {
    expect(response(200).isAllowed(at("/x"))).toBe(false)
    expect(response(200, "User-agent: *\nDisallow: /x\n", "text/plain; charset=utf-8").isAllowed(at("/x"))).toBe(false)
  })

  it("allows everything on 4xx and leftover 3xx", () => {
    for (const status of [301, 400, 401, 403, 404, 410]) expect(response(status).isAllowed(at("/x"))).toBe(true)
  })

  it("disallows everything on 5xx and 429", () => {
    for (const status of [429, 500, 502, 503]) expect(response(status).isAllowed(at("/"))).toBe(false)
  })

  it("allows everything when no answer came at all (the pages then fail with their own error)", () => {
    expect(robotsFromFetch(ROBOTS_URL, { _tag: "Unreachable" }).isAllowed(at("/"))).toBe(true)
  })

  it("treats an HTML, JSON or XML body as no robots.txt", () => {
    expect(response(200, "<!doctype html><p>Disallow: /x</p>", "text/html").isAllowed(at("/x"))).toBe(true)
    expect(response(200, '{"Disallow": "/x"}', "application/json").isAllowed(at("/x"))).toBe(true)
    expect(response(200, "User-agent: *\nDisallow: /x\n", "text/html").isAllowed(at("/x"))).toBe(false)
  })
})

describe("helpers", () => {
  it("robotsUrlFor gives the origin's robots.txt", () => {
    expect(robotsUrlFor("https://Example.com:8443/a/b?c#d")).toBe("https://example.com:8443/robots.txt")
    expect(robotsUrlFor(new URL("http://example.com"))).toBe("http://example.com/robots.txt")
  })

  it("allowAll and disallowAll are fixed answers", () => {
    expect([allowAll.isAllowed(at("/x")), allowAll.crawlDelaySeconds(), allowAll.sitemaps]).toEqual([
      true,
      undefined,
      [],
    ])
    expect(disallowAll.isAllowed(at("/"))).toBe(false)
  })
})
