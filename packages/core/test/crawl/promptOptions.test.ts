import { describe, expect, it } from "vitest"
import { type CrawlOptionsLike, optionsFromPrompt } from "../../src/Crawl/PromptOptions.js"

const SEED = "https://example.com/guide/"
const under = (path: string) => `^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:/|$)`

const table: ReadonlyArray<readonly [string, Partial<CrawlOptionsLike>]> = [
  // include paths
  ["only the blog", { includePaths: [under("/blog")] }],
  ["Only crawl the docs section", { includePaths: [under("/docs")] }],
  ["only pages under /docs", { includePaths: [under("/docs")] }],
  ["only URLs under /docs/ and /api", { includePaths: [under("/docs"), under("/api")] }],
  ["only pages in /products/*", { includePaths: [under("/products")] }],
  ["just the /changelog", { includePaths: [under("/changelog")] }],
  ["only blog posts", { includePaths: [under("/blog")] }],
  ["/docs only", { includePaths: [under("/docs")] }],
  ["restrict it to the help section", { includePaths: [under("/help")] }],
  ["stay within /learn/course-1.", { includePaths: [under("/learn/course-1")] }],
  ["only pages under this section", { includePaths: [under("/guide")] }],
  ["only https://www.example.com/docs", { includePaths: [under("/docs")] }],
  ['only "/Docs"', { includePaths: [under("/Docs")] }],
  ["only the blog and news sections", { includePaths: [under("/blog"), under("/news")] }],
  ["crawl pages in the docs section", { includePaths: [under("/docs")] }],
  ["the German pages under /de", { includePaths: [under("/de")] }],
  // exclude paths
  ["skip /tags", { excludePaths: [under("/tags")] }],
  ["exclude /tag and /author pages", { excludePaths: [under("/tag"), under("/author")] }],
  ["skip tags, authors and categories", { excludePaths: [under("/tags"), under("/authors"), under("/categories")] }],
  ["don't crawl the login page", { excludePaths: [under("/login")] }],
  ["everything except /admin or /cart", { excludePaths: [under("/admin"), under("/cart")] }],
  ["ignore the careers section", { excludePaths: [under("/careers")] }],
  ["avoid pages under /v1", { excludePaths: [under("/v1")] }],
  ["skip pages under /v1", { excludePaths: [under("/v1")] }],
  // limit
  ["no more than 50 pages", { limit: 50 }],
  ["at most 200 pages", { limit: 200 }],
  ["limit to 10 pages", { limit: 10 }],
  ["Limit it to 25 URLs", { limit: 25 }],
  ["max 1,000 pages", { limit: 1000 }],
  ["up to 5k pages", { limit: 5000 }],
  ["crawl 30 pages", { limit: 30 }],
  ["just the first 20 pages", { limit: 20 }],
  ["100 pages max", { limit: 100 }],
  ["ten pages at most", { limit: 10 }],
  ["limit: 40", { limit: 40 }],
  ["limit 40", { limit: 40 }],
  // depth
  ["up to 2 levels deep", { maxDiscoveryDepth: 2 }],
  ["depth 3", { maxDiscoveryDepth: 3 }],
  ["maximum depth of 4", { maxDiscoveryDepth: 4 }],
  ["max depth: 1", { maxDiscoveryDepth: 1 }],
  ["three clicks from the home page", { maxDiscoveryDepth: 3 }],
  ["no deeper than 2 levels", { maxDiscoveryDepth: 2 }],
  ["only the start page", { maxDiscoveryDepth: 0 }],
  ["don't follow links", { maxDiscoveryDepth: 0 }],
  // switches
  ["include subdomains", { allowSubdomains: true }],
  ["crawl docs.example.com and other subdomains too", { allowSubdomains: true }],
  ["no subdomains", { allowSubdomains: false }],
  ["follow external links", { allowExternalLinks: true }],
  ["don't follow external links", { allowExternalLinks: false }],
  ["stay on the same domain", { allowExternalLinks: false }],
  ["crawl the entire domain", { crawlEntireDomain: true }],
  ["the whole website please", { crawlEntireDomain: true }],
  ["ignore query parameters", { ignoreQueryParameters: true }],
  ["strip the query string", { ignoreQueryParameters: true }],
  ["ignore URL params", { ignoreQueryParameters: true }],
  ["ignore the sitemap", { sitemap: "skip" }],
  ["don't use the sitemap.xml", { sitemap: "skip" }],
  ["only the sitemap", { sitemap: "only" }],
  ["only URLs from the sitemap", { sitemap: "only" }],
  ["sitemap only", { sitemap: "only" }],
  ["use the sitemap", { sitemap: "include" }],
  // unknown phrasings: nothing
  ["only English pages", {}],
  ["only about 50 pages", {}],
  ["just help me crawl this", {}],
  ["summarize the pricing", {}],
  ["get the important stuff", {}],
  ["only pages under this section", { includePaths: [under("/guide")] }],
  ["", {}],
]

describe("optionsFromPrompt", () => {
  it.each(table)("%j", (prompt, expected) => {
    const { options, understood } = optionsFromPrompt(prompt, SEED)
    expect(options).toEqual(expected)
    // One recognised phrase per option in these rows; none for unknown phrasings.
    expect(understood).toHaveLength(Object.keys(expected).length)
  })

  it("reads a whole sentence, each phrase once", () => {
    const { options, understood } = optionsFromPrompt(
      "Crawl only the docs section, at most 100 pages, up to 3 levels deep; skip /docs/legacy, include subdomains and ignore the sitemap.",
      SEED,
    )
    expect(options).toEqual({
      includePaths: [under("/docs")],
      excludePaths: [under("/docs/legacy")],
      limit: 100,
      maxDiscoveryDepth: 3,
      allowSubdomains: true,
      sitemap: "skip",
    })
    expect(understood).toEqual([
      '"ignore the sitemap" → sitemap = "skip"',
      '"include subdomains" → allowSubdomains = true',
      '"up to 3 levels deep" → maxDiscoveryDepth = 3',
      '"at most 100 pages" → limit = 100',
      `"skip /docs/legacy" → excludePaths += ${under("/docs/legacy")}`,
      `"only the docs section" → includePaths += ${under("/docs")}`,
    ])
  })

  it("does not read a consumed phrase twice", () => {
    expect(optionsFromPrompt("ignore query parameters and skip the sitemap", SEED).options).toEqual({
      ignoreQueryParameters: true,
      sitemap: "skip",
    })
    expect(optionsFromPrompt("no external links, no subdomains", SEED).options).toEqual({
      allowExternalLinks: false,
      allowSubdomains: false,
    })
  })

  it("keeps exclusions and inclusions apart in one sentence", () => {
    expect(optionsFromPrompt("only pages under /docs but skip pages under /docs/old", SEED).options).toEqual({
      includePaths: [under("/docs")],
      excludePaths: [under("/docs/old")],
    })
  })

  it("reads a 10 000-character prompt quickly", () => {
    const prompts = [
      `only ${"/a and ".repeat(1_400)}!`,
      `skip ${"/".repeat(10_000)}`,
      `${"only the ".repeat(1_100)}blog`,
      "x".repeat(10_000),
    ]
    for (const prompt of prompts) {
      const started = performance.now()
      optionsFromPrompt(prompt, SEED)
      expect(performance.now() - started).toBeLessThan(1_000)
    }
  })

  it("ignores URLs of other sites and `this section` at the root", () => {
    expect(optionsFromPrompt("only https://other.org/docs", SEED).options).toEqual({})
    expect(optionsFromPrompt("only pages under this section", "https://example.com/").options).toEqual({})
  })

  it("produces patterns that work as path filters", () => {
    const [pattern] = optionsFromPrompt("only pages under /docs", SEED).options.includePaths ?? []
    const regex = new RegExp(pattern ?? "")
    expect(["/docs", "/docs/", "/docs/a/b"].every((path) => regex.test(path))).toBe(true)
    expect(["/docsearch", "/en/docs", "/"].some((path) => regex.test(path))).toBe(false)
    const [glob] = optionsFromPrompt("skip /blog/*/amp", SEED).options.excludePaths ?? []
    expect(new RegExp(glob ?? "").test("/blog/post-1/amp")).toBe(true)
    expect(new RegExp(glob ?? "").test("/blog/a/b/amp")).toBe(false)
  })
})
