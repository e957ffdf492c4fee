/**
 * robots.txt rules for a crawl, on top of `robots-parser` (the library Firecrawl uses; it matches paths with Google's
 * algorithm: `*` and `$` wildcards, longest rule wins, Allow wins a tie).
 *
 * One robots.txt governs one origin (scheme, host, port). `isAllowed` judges the path and query of the URL it is given
 * against these rules whatever its origin, so the caller keeps one `RobotsRules` per origin (`robotsUrlFor`).
 *
 * Which group applies: a crawler obeys exactly one group (RFC 9309 §2.2.1). We take the first group that names one of
 * our product tokens, in order `webdata`, then Firecrawl's `FireCrawlAgent` / `FirecrawlAgent` (so sites that already
 * tuned their robots.txt for Firecrawl get the same treatment), and otherwise the `*` group. Names match
 * case-insensitively and ignore a `/version` suffix, as the library does.
 */
import robotsParserModule from "robots-parser"

// The package is CommonJS (`module.exports = fn`) but its typings say `export default`, so under NodeNext TypeScript
// types the default import as the namespace; at run time it is the function.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default

export const ROBOTS_USER_AGENTS = ["webdata", "FireCrawlAgent", "FirecrawlAgent"] as const

/** Google reads the first 500 KiB of a robots.txt and ignores the rest; so do we. */
export const MAX_ROBOTS_CHARS = 500 * 1024

export interface RobotsRules {
  readonly isAllowed: (url: string) => boolean
  /** `Crawl-delay` of the group that applies, in seconds; absent, negative or unparsable values give undefined. */
  readonly crawlDelaySeconds: () => number | undefined
  /** Absolute http(s) `Sitemap:` URLs, in file order, without duplicates. */
  readonly sitemaps: ReadonlyArray<string>
}

/** The robots.txt that governs a URL: its origin's `/robots.txt`. */
export const robotsUrlFor = (url: string | URL): string => new URL("/robots.txt", url).href

const fixed = (allowed: boolean): RobotsRules => ({
  isAllowed: () => allowed,
  crawlDelaySeconds: () => undefined,
  sitemaps: [],
})

/** No robots.txt (4xx), or one that is not a robots.txt at all: everything may be crawled. */
export const allowAll: RobotsRules = fixed(true)

/** A robots.txt the server would not give (5xx, 429): nothing may be crawled yet. */
export const disallowAll: RobotsRules = fixed(false)

/** Cuts at the cap, then drops the cut line so that a truncated rule is not read as a shorter, different rule. */
const capped = (text: string): string => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body.length <= MAX_ROBOTS_CHARS) return body
  const head = body.slice(0, MAX_ROBOTS_CHARS)
  return head.slice(0, Math.max(head.lastIndexOf("\n"), head.lastIndexOf("\r"), 0))
}

/** The group names present, formatted as the library formats them (lower case, no `/version`). */
const groupNames = (text: string): ReadonlySet<string> => {
  const names = new Set<string>()
  for (const match of text.matchAll(/^[ \t]*user-agent[ \t]*:([^#\r\n]*)/gim)) {
    const name = (match[1] ?? "").trim().toLowerCase().split("/")[0]?.trim()
    if (name) names.add(name)
  }
  return names
}

const absoluteSitemaps = (sitemaps: ReadonlyArray<string>, robotsUrl: string): ReadonlyArray<string> => {
  const urls = new Set<string>()
  for (const sitemap of sitemaps) {
    try {
      const url = new URL(sitemap.trim(), robotsUrl)
      if (url.protocol === "http:" || url.protocol === "https:") urls.add(url.href)
    } catch {
      // An unparsable Sitemap: line is skipped like any other malformed line.
    }
  }
  return [...urls]
}

/** Rules of a robots.txt that was fetched with a 2xx status. `robotsUrl` is the absolute URL it was fetched from. */
export const parseRobots = (robotsUrl: string, text: string): RobotsRules => {
  const body = capped(text)
  const robots = robotsParser(robotsUrl, body)
  const present = groupNames(body)
  const agent = ROBOTS_USER_AGENTS.find((name) => present.has(name.toLowerCase())) ?? "*"
  const origin = new URL(robotsUrl).origin
  // The library answers only for URLs of the robots.txt's own origin; we re-home each URL onto it (by concatenation,
  // so that a path like `//other.host/x` stays a path).
  const onOrigin = (url: URL, path: string): string => origin + path + url.search
  const allows = (url: string): boolean => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return false
    }
    if (robots.isAllowed(onOrigin(parsed, parsed.pathname), agent) === false) return false
    // Firecrawl also refuses `/path` when `/path/` is disallowed (`isUrlAllowedByRobots` in lib/robots-txt.ts).
    return parsed.pathname.endsWith("/") || robots.isAllowed(onOrigin(parsed, `${parsed.pathname}/`), agent) !== false
  }
  return {
    isAllowed: allows,
    crawlDelaySeconds: () => {
      const delay = robots.getCrawlDelay(agent)
      return typeof delay === "number" && Number.isFinite(delay) && delay >= 0 ? delay : undefined
    },
    sitemaps: absoluteSitemaps(robots.getSitemaps(), robotsUrl),
  }
}

/** What fetching a robots.txt gave: a final response (after redirects), or no response at all. */
export type RobotsFetch =
  | { readonly _tag: "Response"; readonly status: number; readonly contentType?: string; readonly text: string }
  | { readonly _tag: "Unreachable" }

/**
 * Google's and RFC 9309's policy (§2.3.1): 2xx → parse; 3xx left after following redirects and 4xx (but 429) → no
 * rules, allow all; 5xx and 429 → disallow all, since the site may be down or throttling us (Firecrawl instead
 * allows everything then; we stay on the polite side).
 * No answer at all (connection refused, DNS, TLS) → allow all: the pages fail the same way and their errors say why,
 * where a disallow would report a dead site as "blocked by robots.txt".
 * A 2xx body that is HTML, JSON or XML (a soft-404 page) is not a robots.txt: allow all, as Firecrawl does.
 */
export const robotsFromFetch = (robotsUrl: string, fetched: RobotsFetch): RobotsRules => {
  if (fetched._tag === "Unreachable") return allowAll
  const { status, text } = fetched
  if (status === 429 || status >= 500 || status < 200) return disallowAll
  if (status >= 300) return allowAll
  const contentType = fetched.contentType?.toLowerCase() ?? ""
  if (/json|xml/.test(contentType) || (contentType.includes("html") && text.trimStart().startsWith("<")))
    return allowAll
  return parseRobots(robotsUrl, text)
}
