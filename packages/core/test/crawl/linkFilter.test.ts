import { describe, expect, it } from "vitest"
import {
  compilePatterns,
  type LinkFilterOptions,
  makeLinkFilter,
  PATTERN_LIMITS,
  SEED_PATH_ONLY,
} from "../../src/Crawl/LinkFilter.js"

const defaults = SEED_PATH_ONLY

/** The verdict's reason, or "follow". */
const judge =
  (seed: string, options: Partial<LinkFilterOptions> = {}) =>
  (candidate: string, fromUrl = seed, depth = 0): string => {
    const verdict = makeLinkFilter(seed, { ...defaults, ...options })(candidate, { fromUrl, depth })
    return verdict.follow ? "follow" : verdict.reason
  }

describe("compilePatterns", () => {
  it("compiles valid patterns and skips blank ones", () => {
    const compiled = compilePatterns(["^/blog", "", "  ", "post-\\d+$"])
    if (!Array.isArray(compiled)) throw new Error(compiled.message)
    expect(compiled).toHaveLength(2)
    expect(compiled.map((pattern) => pattern.test("/blog/post-12"))).toEqual([true, true])
    expect(compiled.map((pattern) => pattern.test("/news/blog"))).toEqual([false, false])
  })

  it("matches in linear time: a pattern that makes a backtracking engine hang answers at once", () => {
    const compiled = compilePatterns(["^/(a+)+$", "(x+x+)+y", "(.*a){20}"])
    if (!Array.isArray(compiled)) throw new Error(compiled.message)
    const hostile = `/${"a".repeat(5000)}!`
    const started = performance.now()
    for (const pattern of compiled) pattern.test(hostile)
    compiled[1]?.test("x".repeat(5000))
    // A backtracking RegExp does not finish the first of these within minutes (2^5000 paths).
    expect(performance.now() - started).toBeLessThan(1000)
    expect(compiled[0]?.test("/aaaa")).toBe(true)
  })

  it("refuses syntax a linear-time engine cannot run, and patterns past the limits", () => {
    expect(compilePatterns(["^/(?!admin)"])).toMatchObject({
      invalid: "^/(?!admin)",
      message: expect.stringContaining("no look-around"),
    })
    expect(compilePatterns(["(a)\\1"])).toMatchObject({ message: expect.stringContaining("back-references") })
    const long = `/${"x".repeat(PATTERN_LIMITS.length)}`
    expect(compilePatterns([long])).toMatchObject({ invalid: long, message: expect.stringContaining("longer than") })
    expect(compilePatterns(["[ab]{0,999}[ab]{0,999}[ab]{0,999}[ab]{0,999}[ab]{0,999}[ab]{0,999}"])).toMatchObject({
      message: expect.stringContaining("too complex"),
    })
    expect(compilePatterns(Array.from({ length: PATTERN_LIMITS.count + 1 }, (_, i) => `/p${i}`))).toMatchObject({
      message: `at most ${PATTERN_LIMITS.count} patterns are allowed`,
    })
  })

  it("returns the first invalid pattern with the engine's message", () => {
    const invalid = "([unclosed"
    const result = compilePatterns(["^/ok", invalid, "*bad"])
    expect(result).toEqual({
      invalid,
      message: "error parsing regexp: missing closing ]: `[unclosed`",
    })
  })

  it("makeLinkFilter refuses invalid patterns", () => {
    expect(() => makeLinkFilter("https://example.com/", { ...defaults, excludePaths: ["("] })).toThrow(SyntaxError)
  })
})

describe("makeLinkFilter: basics", () => {
  const check = judge("https://example.com/")

  it("refuses what is not a web URL", () => {
    expect(check("http://")).toBe("URL_PARSE_ERROR")
    expect(check("https://exa mple.com/")).toBe("URL_PARSE_ERROR")
    expect(check("/page", "not a url")).toBe("URL_PARSE_ERROR")
    for (const link of [
      "mailto:a@example.com",
      "tel:+331234",
      "javascript:void(0)",
      "ftp://example.com/f",
      "data:text/html,x",
    ])
      expect(check(link)).toBe("NON_WEB_PROTOCOL")
  })

  it("resolves relative links against the page they were found on", () => {
    const blog = judge("https://example.com/blog/")
    expect(blog("../blog/other", "https://example.com/blog/a/b")).toBe("follow")
    expect(blog("../../about", "https://example.com/blog/a/b")).toBe("BACKWARD_CRAWLING")
    expect(blog("  post-2  ", "https://example.com/blog/")).toBe("follow")
  })

  it("follows a section link (the frontier dedups it to its page)", () => {
    expect(check("#top")).toBe("follow")
  })

  it("treats www and the other scheme as the same site", () => {
    expect(check("http://www.example.com/x")).toBe("follow")
    expect(judge("https://www.example.com/")("https://example.com/x")).toBe("follow")
  })

  it("tells ports apart", () => {
    const local = judge("http://127.0.0.1:8080/")
    expect(local("http://127.0.0.1:8080/a")).toBe("follow")
    expect(local("http://127.0.0.1:9090/a")).toBe("EXTERNAL_LINK")
  })
})

describe("makeLinkFilter: depth", () => {
  it("refuses links one hop past maxDiscoveryDepth", () => {
    const check = judge("https://example.com/", { maxDiscoveryDepth: 2 })
    expect(check("/a", "https://example.com/", 0)).toBe("follow")
    expect(check("/a", "https://example.com/x", 1)).toBe("follow")
    expect(check("/a", "https://example.com/x/y", 2)).toBe("DEPTH_LIMIT")
  })

  it("with maxDiscoveryDepth 0 only the seed and sitemap URLs (depth -1 context) pass", () => {
    const check = judge("https://example.com/", { maxDiscoveryDepth: 0 })
    expect(check("/a", "https://example.com/", 0)).toBe("DEPTH_LIMIT")
    expect(check("/from-sitemap", "https://example.com/", -1)).toBe("follow")
  })

  it("is unlimited without maxDiscoveryDepth", () => {
    expect(judge("https://example.com/")("/a", "https://example.com/", 500)).toBe("follow")
  })
})

describe("makeLinkFilter: file types", () => {
  const check = judge("https://example.com/")

  it.each([
    "/logo.png",
    "/photo.JPG",
    "/a.webp",
    "/icon.svg",
    "/movie.mp4",
    "/song.mp3",
    "/backup.zip",
    "/release.tar.gz",
    "/setup.exe",
    "/app.dmg",
    "/font.woff2",
    "/style.css",
    "/bundle.js",
    "/img.png?size=large",
  ])("skips %s", (path) => {
    expect(check(path)).toBe("FILE_TYPE")
  })

  it.each([
    "/",
    "/page",
    "/page.html",
    "/page.htm",
    "/index.php",
    "/report.pdf",
    "/letter.docx",
    "/sheet.xlsx",
    "/deck.pptx",
    "/notes.txt",
    "/data.csv",
    "/feed.xml",
    "/v1.2/changes",
    "/.well-known/security",
  ])("follows %s", (path) => {
    expect(check(path)).toBe("follow")
  })
})

describe("makeLinkFilter: scope without crawlEntireDomain", () => {
  it("a seed ending in / keeps the crawl under it", () => {
    const check = judge("https://example.com/blog/")
    expect(check("/blog/x")).toBe("follow")
    expect(check("/blog/2024/05/post")).toBe("follow")
    expect(check("/about")).toBe("BACKWARD_CRAWLING")
    expect(check("/blog")).toBe("BACKWARD_CRAWLING")
    expect(check("/")).toBe("BACKWARD_CRAWLING")
  })

  it("a seed without the slash allows itself and what is under it, not siblings sharing the prefix", () => {
    const check = judge("https://example.com/blog")
    expect(check("/blog")).toBe("follow")
    expect(check("/blog/")).toBe("follow")
    expect(check("/blog/x")).toBe("follow")
    expect(check("/blogroll")).toBe("BACKWARD_CRAWLING")
    expect(check("/Blog/x")).toBe("BACKWARD_CRAWLING")
  })

  it("a file-like seed scopes to its directory", () => {
    const check = judge("https://example.com/docs/guide.html")
    expect(check("/docs/other.html")).toBe("follow")
    expect(check("/docs/deep/page")).toBe("follow")
    expect(check("/blog/post")).toBe("BACKWARD_CRAWLING")
  })

  it("a root seed allows the whole site", () => {
    expect(judge("https://example.com")("/any/where")).toBe("follow")
  })

  it("crawlEntireDomain lifts the scope", () => {
    const check = judge("https://example.com/blog/", { crawlEntireDomain: true })
    expect(check("/about")).toBe("follow")
    expect(check("/")).toBe("follow")
  })
})

describe("makeLinkFilter: include and exclude patterns", () => {
  it("matches the pathname, unanchored, exclusions first", () => {
    const check = judge("https://example.com/", { includePaths: ["^/blog/", "news"], excludePaths: ["/drafts?/"] })
    expect(check("/blog/post")).toBe("follow")
    expect(check("/world/news/today")).toBe("follow")
    expect(check("/blog/draft/x")).toBe("EXCLUDE_PATTERN")
    expect(check("/about")).toBe("INCLUDE_PATTERN")
    expect(check("/about?tag=news")).toBe("INCLUDE_PATTERN")
  })

  it("matches the full URL with regexOnFullURL", () => {
    const check = judge("https://example.com/", { includePaths: ["\\?lang=en"], regexOnFullURL: true })
    expect(check("/about?lang=en")).toBe("follow")
    expect(check("/about?lang=fr")).toBe("INCLUDE_PATTERN")
    const host = judge("https://example.com/", {
      excludePaths: ["^https://example\\.com/private"],
      regexOnFullURL: true,
    })
    expect(host("/private/x")).toBe("EXCLUDE_PATTERN")
    expect(host("/public")).toBe("follow")
  })

  it("is case-sensitive", () => {
    const check = judge("https://example.com/", { excludePaths: ["/Admin"] })
    expect(check("/Admin/x")).toBe("EXCLUDE_PATTERN")
    expect(check("/admin/x")).toBe("follow")
  })

  it("checks scope before patterns", () => {
    expect(judge("https://example.com/blog/", { excludePaths: ["about"] })("/about")).toBe("BACKWARD_CRAWLING")
  })
})

describe("makeLinkFilter: other hosts", () => {
  const seed = "https://example.com/"

  it("refuses other sites unless allowExternalLinks", () => {
    expect(judge(seed)("https://other.org/page")).toBe("EXTERNAL_LINK")
    expect(judge(seed, { allowExternalLinks: true })("https://other.org/page")).toBe("follow")
  })

  it("does not follow an external site's home page", () => {
    const check = judge(seed, { allowExternalLinks: true })
    expect(check("https://other.org")).toBe("EXTERNAL_LINK")
    expect(check("https://other.org/?x=1")).toBe("EXTERNAL_LINK")
  })

  it("follows nothing found on an external page (one hop)", () => {
    const check = judge(seed, { allowExternalLinks: true, crawlEntireDomain: true })
    expect(check("https://other.org/next", "https://other.org/page")).toBe("EXTERNAL_LINK")
    expect(check("https://example.com/back", "https://other.org/page")).toBe("EXTERNAL_LINK")
  })

  it("refuses social sites by host, even with allowExternalLinks", () => {
    const check = judge(seed, { allowExternalLinks: true })
    for (const link of [
      "https://www.facebook.com/example",
      "https://m.facebook.com/example",
      "https://twitter.com/example",
      "https://x.com/example",
      "https://www.linkedin.com/company/example",
      "https://github.com/example/repo",
      "https://discord.gg/invite",
    ])
      expect(check(link)).toBe("SOCIAL_MEDIA")
    expect(check("https://notfacebook.com/page")).toBe("follow")
    expect(check("https://other.org/share?u=facebook.com")).toBe("follow")
  })

  it("tests exclusions against the whole URL of another host", () => {
    const check = judge(seed, { allowExternalLinks: true, excludePaths: ["other\\.org"] })
    expect(check("https://other.org/page")).toBe("EXCLUDE_PATTERN")
    expect(check("https://third.net/page")).toBe("follow")
  })

  it("follows subdomains of the registrable domain with allowSubdomains, honouring includes", () => {
    expect(judge(seed)("https://blog.example.com/x")).toBe("EXTERNAL_LINK")
    const check = judge(seed, { allowSubdomains: true })
    expect(check("https://blog.example.com/x")).toBe("follow")
    expect(check("https://a.b.example.com/")).toBe("follow")
    expect(check("https://example.org/x")).toBe("EXTERNAL_LINK")
    const included = judge(seed, { allowSubdomains: true, allowExternalLinks: true, includePaths: ["^/docs"] })
    expect(included("https://blog.example.com/x")).toBe("INCLUDE_PATTERN")
    expect(included("https://blog.example.com/docs/x")).toBe("follow")
  })

  it("follows links found on an allowed subdomain page, scoping internal ones to the seed", () => {
    const check = judge("https://example.com/docs/", { allowSubdomains: true })
    expect(check("/y", "https://blog.example.com/x")).toBe("follow")
    expect(check("https://example.com/about", "https://blog.example.com/x")).toBe("BACKWARD_CRAWLING")
  })

  it("uses the public-suffix list, private suffixes included", () => {
    const uk = judge("https://shop.example.co.uk/", { allowSubdomains: true })
    expect(uk("https://blog.example.co.uk/x")).toBe("follow")
    expect(uk("https://other.co.uk/x")).toBe("EXTERNAL_LINK")
    const pages = judge("https://alice.github.io/", { allowSubdomains: true })
    expect(pages("https://bob.github.io/x")).toBe("EXTERNAL_LINK")
    expect(pages("https://docs.alice.github.io/x")).toBe("follow")
  })

  it("does not call a seed's own registrable domain social", () => {
    const check = judge("https://github.com/org/", { allowSubdomains: true })
    expect(check("https://gist.github.com/x")).toBe("follow")
  })
})
