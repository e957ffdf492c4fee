/**
 * A site's own files that guide a crawl or a map: robots.txt and its sitemaps, fetched through the guarded Fetcher.
 * Neither ever fails: a site without them, or one that serves them badly, just gives fewer hints (and robots.txt
 * follows the policy of `robotsFromFetch`).
 */
import { Effect } from "effect"
import { getDomain } from "tldts"
import { decodeBody } from "../Content/Charset.js"
import { Fetcher } from "../Engines/Fetcher.js"
import { MAX_ROBOTS_CHARS, type RobotsRules, robotsFromFetch, robotsUrlFor } from "./Robots.js"
import { MAX_SITEMAPS_PER_CRAWL, readSitemap, sitemapCandidates } from "./Sitemap.js"

export interface SiteFileOptions {
  /** Budget of one file's fetch. */
  readonly timeoutMs: number
  /** Request headers (a crawl's `scrapeOptions.headers`). */
  readonly headers?: Readonly<Record<string, string>>
}

const fetchFile = (url: string, options: SiteFileOptions) =>
  Effect.flatMap(Fetcher, (fetcher) =>
    fetcher.fetch({ url, headers: options.headers ?? {}, timeoutMs: options.timeoutMs, skipTlsVerification: true }),
  )

/** The robots.txt rules of the origin of `url`. */
export const fetchRobots = Effect.fn("SiteFiles.fetchRobots")(function* (url: string, options: SiteFileOptions) {
  const robotsUrl = robotsUrlFor(url)
  return yield* fetchFile(robotsUrl, options).pipe(
    Effect.map((page) =>
      robotsFromFetch(robotsUrl, {
        _tag: "Response",
        status: page.status,
        ...(page.contentType !== undefined ? { contentType: page.contentType } : {}),
        text: decodeBody(page.body, page.contentType).slice(0, MAX_ROBOTS_CHARS),
      }),
    ),
    // No answer, or redirects the Fetcher gave up on (a loop, too many hops: a leftover 3xx, RFC 9309 §2.3.1.2).
    Effect.orElseSucceed(() => robotsFromFetch(robotsUrl, { _tag: "Unreachable" })),
  )
})

export interface SitemapOptions extends SiteFileOptions {
  /** Stop once this many page URLs are known. */
  readonly limit: number
}

/** Sitemap fetches tried per crawl or map, refused ones included: a robots.txt listing thousands stays cheap. */
export const MAX_SITEMAP_ATTEMPTS = 100

/** The registrable domain (public-suffix aware), or the host name when there is none (an IP address, `localhost`). */
const siteOf = (url: URL): string => getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.hostname

/**
 * Page URLs listed by the site's sitemaps: the robots.txt `Sitemap:` lines, `/sitemap.xml` and `/sitemap_index.xml`,
 * sitemap indexes followed, at most `MAX_SITEMAPS_PER_CRAWL` sitemaps read. A sitemap that is missing or broken is
 * skipped; one past `MAX_SITEMAP_BYTES` gives the URLs read up to there. Only sitemaps fetched count against that
 * budget: not one the URL guard refuses (at most `MAX_SITEMAP_ATTEMPTS` are tried in all), nor an index entry on
 * another site than the index's or the seed's, which is not read (the protocol allows such entries only in
 * robots.txt). Each is read streaming and only as far as `limit` needs.
 */
export const sitemapUrls = Effect.fn("SiteFiles.sitemapUrls")(function* (
  seed: string,
  robots: RobotsRules,
  options: SitemapOptions,
) {
  const seedUrl = new URL(seed)
  const seedSite = siteOf(seedUrl)
  const pending = sitemapCandidates(seedUrl, robots.sitemaps)
  const tried = new Set<string>()
  const urls = new Set<string>()
  let read = 0
  while (pending.length > 0 && read < MAX_SITEMAPS_PER_CRAWL && tried.size < MAX_SITEMAP_ATTEMPTS) {
    if (urls.size >= options.limit) break
    const sitemapUrl = pending.shift() as string
    if (tried.has(sitemapUrl)) continue
    tried.add(sitemapUrl)
    const fetched = yield* Effect.either(fetchFile(sitemapUrl, options))
    if (fetched._tag === "Left") {
      if (fetched.left.reason !== "BlockedAddress") read++
      continue
    }
    read++
    const page = fetched.right
    if (page.status < 200 || page.status >= 300) continue
    const parsed = yield* Effect.tryPromise(() =>
      readSitemap(page.body, page.contentType, options.limit - urls.size),
    ).pipe(Effect.orElseSucceed(() => undefined))
    if (parsed === undefined) continue
    for (const entry of parsed.urls) {
      if (urls.size >= options.limit) break
      urls.add(entry.loc)
    }
    const sites = new Set([seedSite, siteOf(new URL(page.url))])
    pending.push(...parsed.sitemaps.filter((next) => !tried.has(next) && sites.has(siteOf(new URL(next)))))
  }
  return [...urls]
})
