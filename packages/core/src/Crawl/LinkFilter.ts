/**
 * Which discovered links a crawl follows: Firecrawl v2's rules (`_filter_links` in `apps/api/native/src/crawler.rs`),
 * with the refusal reasons it reports. robots.txt is not judged here (see `Robots.ts`), and a `#section` link is
 * followed because the frontier strips the fragment (`UrlKey.ts`) and so sees it as the page it is on.
 *
 * Patterns are RE2 expressions (re2js), as Firecrawl's are (the Rust `regex` crate): matching takes time linear in
 * the URL's length whatever the pattern, so a caller's pattern cannot stall the process (a backtracking `RegExp` such
 * as `^/(a+)+$` takes seconds on a 30-character path). No look-around and no back-references.
 *
 * Where we depart from Firecrawl, on purpose:
 * - every scheme but http(s) is `NON_WEB_PROTOCOL` (Firecrawl lists mailto, tel, ftp, ...; `javascript:` then falls
 *   through to `EXTERNAL_LINK`);
 * - social sites are recognised by host, not by a substring anywhere in the URL, and never when they share the
 *   seed's registrable domain (a crawl of github.com may follow gist.github.com with `allowSubdomains`);
 * - office documents (docx, xlsx, pptx, ...) are followed since the scrape pipeline parses them; Firecrawl skips
 *   pptx and xlsx;
 * - a subdomain link honours `includePaths` even when `allowExternalLinks` is on.
 */
import { RE2JS } from "re2js"
import { getDomain } from "tldts"

export interface LinkFilterOptions {
  /** Regexes (unanchored `test`) a followed URL must match one of; empty means no restriction. */
  readonly includePaths: ReadonlyArray<string>
  /** Regexes (unanchored `test`) that refuse a URL. */
  readonly excludePaths: ReadonlyArray<string>
  /** Match the patterns against the whole URL instead of its pathname. */
  readonly regexOnFullURL: boolean
  /** Follow the whole site, not only the part under the seed's path. */
  readonly crawlEntireDomain: boolean
  /** Follow other hosts of the seed's registrable domain (public-suffix list). */
  readonly allowSubdomains: boolean
  /** Follow links from the crawl's pages to other sites (one hop: their own links are not followed). */
  readonly allowExternalLinks: boolean
  /** Link hops from the seed; the seed and sitemap URLs have depth 0. */
  readonly maxDiscoveryDepth?: number | undefined
}

/** No patterns, nothing widened: the seed's host, under the seed's path (Firecrawl's defaults). */
export const SEED_PATH_ONLY: LinkFilterOptions = {
  includePaths: [],
  excludePaths: [],
  regexOnFullURL: false,
  crawlEntireDomain: false,
  allowSubdomains: false,
  allowExternalLinks: false,
}

export type DenyReason =
  | "URL_PARSE_ERROR"
  | "NON_WEB_PROTOCOL"
  | "DEPTH_LIMIT"
  | "FILE_TYPE"
  | "BACKWARD_CRAWLING"
  | "EXCLUDE_PATTERN"
  | "INCLUDE_PATTERN"
  | "EXTERNAL_LINK"
  | "SOCIAL_MEDIA"

export type LinkVerdict = { readonly follow: true } | { readonly follow: false; readonly reason: DenyReason }

/**
 * Where a link was found: the page's absolute URL (relative links resolve against it) and that page's discovery depth. The
 * link itself is one hop deeper; for sitemap URLs, which have depth 0, pass the seed and depth -1.
 */
export interface LinkContext {
  readonly fromUrl: string
  readonly depth: number
}

export type LinkFilter = (candidate: string, context: LinkContext) => LinkVerdict

/** A compiled `includePaths` / `excludePaths` pattern: `test` finds a match anywhere in the text. */
export interface PathPattern {
  readonly test: (text: string) => boolean
}

/**
 * Bounds on one list of patterns. Matching is linear in the URL, but compiling a pattern and each match's constant
 * grow with the pattern: these keep both to milliseconds.
 */
export const PATTERN_LIMITS = { count: 100, length: 2048, programSize: 10_000 } as const

type Compiled = PathPattern[] | { readonly invalid: string; readonly message: string }

const compileOne = (pattern: string): PathPattern | string => {
  if (pattern.length > PATTERN_LIMITS.length) return `longer than ${PATTERN_LIMITS.length} characters`
  try {
    const compiled = RE2JS.compile(pattern)
    return compiled.programSize() > PATTERN_LIMITS.programSize
      ? "too complex (its compiled program is too large); split it or simplify its repetitions"
      : compiled
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return /unsupported|escape/.test(message)
      ? `${message} (patterns use RE2 syntax: no look-around, no back-references)`
      : message
  }
}

/**
 * Compiles path patterns, skipping blank ones (an empty exclude would refuse everything; Firecrawl drops them too).
 * The first invalid pattern is returned with the engine's message, for the API's 400 answer.
 */
export const compilePatterns = (patterns: ReadonlyArray<string>): Compiled => {
  if (patterns.length > PATTERN_LIMITS.count)
    return { invalid: `${patterns.length} patterns`, message: `at most ${PATTERN_LIMITS.count} patterns are allowed` }
  const compiled: PathPattern[] = []
  for (const pattern of patterns) {
    if (pattern.trim() === "") continue
    const result = compileOne(pattern)
    if (typeof result === "string") return { invalid: pattern, message: result }
    compiled.push(result)
  }
  return compiled
}

/**
 * Extensions of files that are not pages: images, video, audio, archives and disk images, installers and
 * executables, fonts, style sheets and scripts (and Firecrawl's `.inc`). Everything else is followed, notably HTML
 * under any extension, PDF, office documents (doc, docx, xls, xlsx, ppt, pptx, odt, ods, odp, rtf, epub), text, CSV,
 * JSON and XML.
 */
const SKIPPED_EXTENSIONS = new Set(
  [
    "png jpg jpeg gif webp avif svg ico bmp tif tiff heic heif psd",
    "mp4 m4v mov avi wmv flv mkv webm mpg mpeg 3gp",
    "mp3 wav ogg oga opus flac aac m4a wma mid midi",
    "zip rar 7z tar gz tgz bz2 xz zst iso dmg",
    "exe msi apk ipa deb rpm bin jar dll so wasm",
    "woff woff2 ttf otf eot",
    "css js mjs map inc",
  ]
    .join(" ")
    .split(" "),
)

const isFile = (pathname: string): boolean => {
  const segment = pathname.slice(pathname.lastIndexOf("/") + 1)
  const dot = segment.lastIndexOf(".")
  return dot > 0 && SKIPPED_EXTENSIONS.has(segment.slice(dot + 1).toLowerCase())
}

/** Firecrawl's list of social and chat sites (plus x.com, Twitter's current name). */
const SOCIAL_HOSTS = [
  "facebook.com",
  "twitter.com",
  "x.com",
  "linkedin.com",
  "instagram.com",
  "pinterest.com",
  "github.com",
  "calendly.com",
  "discord.gg",
  "discord.com",
]

const isSocial = (hostname: string): boolean =>
  SOCIAL_HOSTS.some((host) => hostname === host || hostname.endsWith(`.${host}`))

/** Host and port without a leading `www.`: `www.example.com` and `example.com` are one site. */
const siteOf = (url: URL): string => url.host.replace(/^www\./, "")

const registrableDomain = (url: URL): string | null => getDomain(url.hostname, { allowPrivateDomains: true })

/**
 * The part of the seed's site a crawl without `crawlEntireDomain` stays in (Firecrawl's `crawl_scope`):
 * `/blog/` → everything under `/blog/`; `/blog` → `/blog` itself and everything under `/blog/` (not `/blogroll`);
 * `/docs/guide.html` (a file-like last segment) → everything under `/docs/`.
 */
const inScopeOf = (seedPath: string): ((path: string) => boolean) => {
  if (seedPath.endsWith("/")) return (path) => path.startsWith(seedPath)
  const directory = seedPath.slice(0, seedPath.lastIndexOf("/") + 1)
  if (/\.[A-Za-z0-9]{2,}$/.test(seedPath.slice(directory.length))) return (path) => path.startsWith(directory)
  return (path) => path === seedPath || path.startsWith(`${seedPath}/`)
}

/** An external site's home page (no path segment); Firecrawl does not follow those even with `allowExternalLinks`. */
const isHomePage = (url: URL): boolean => url.pathname.split("/").every((segment) => segment === "")

const resolve = (candidate: string, base?: string): URL | undefined => {
  try {
    return new URL(candidate.trim(), base)
  } catch {
    return undefined
  }
}

const deny = (reason: DenyReason): LinkVerdict => ({ follow: false, reason })
const FOLLOW: LinkVerdict = { follow: true }

/**
 * Builds the filter of one crawl.
 *
 * @throws TypeError when `seed` is not an absolute URL, SyntaxError when a pattern is invalid (validate them first
 * with `compilePatterns`).
 */
export const makeLinkFilter = (seed: string, options: LinkFilterOptions): LinkFilter => {
  const seedUrl = new URL(seed)
  const compile = (patterns: ReadonlyArray<string>): PathPattern[] => {
    const compiled = compilePatterns(patterns)
    if (Array.isArray(compiled)) return compiled
    throw new SyntaxError(`Invalid pattern ${JSON.stringify(compiled.invalid)}: ${compiled.message}`)
  }
  const includes = compile(options.includePaths)
  const excludes = compile(options.excludePaths)
  const seedSite = siteOf(seedUrl)
  const seedDomain = registrableDomain(seedUrl)
  const inScope = inScopeOf(seedUrl.pathname)

  const isInternal = (url: URL): boolean => siteOf(url) === seedSite
  const sharesDomain = (url: URL): boolean => seedDomain !== null && registrableDomain(url) === seedDomain
  const inCrawl = (url: URL): boolean => isInternal(url) || (options.allowSubdomains && sharesDomain(url))
  const target = (url: URL): string => (options.regexOnFullURL ? url.href : url.pathname)
  const matchesAny = (patterns: ReadonlyArray<PathPattern>, text: string): boolean =>
    patterns.some((pattern) => pattern.test(text))
  const passesPatterns = (text: string): LinkVerdict => {
    if (matchesAny(excludes, text)) return deny("EXCLUDE_PATTERN")
    if (includes.length > 0 && !matchesAny(includes, text)) return deny("INCLUDE_PATTERN")
    return FOLLOW
  }

  return (candidate, context) => {
    const from = resolve(context.fromUrl)
    const url = from === undefined ? undefined : resolve(candidate, from.href)
    if (from === undefined || url === undefined) return deny("URL_PARSE_ERROR")
    if (url.protocol !== "http:" && url.protocol !== "https:") return deny("NON_WEB_PROTOCOL")
    if (options.maxDiscoveryDepth !== undefined && context.depth + 1 > options.maxDiscoveryDepth)
      return deny("DEPTH_LIMIT")
    if (isFile(url.pathname)) return deny("FILE_TYPE")
    // A page outside the crawl (reached as an external link) is a leaf: nothing found on it is followed.
    if (!inCrawl(from)) return deny("EXTERNAL_LINK")

    if (isInternal(url)) {
      if (!options.crawlEntireDomain && !inScope(url.pathname)) return deny("BACKWARD_CRAWLING")
      return passesPatterns(target(url))
    }
    const sameDomain = sharesDomain(url)
    if (!sameDomain && isSocial(url.hostname)) return deny("SOCIAL_MEDIA")
    // Firecrawl tests excludes against the whole URL for other hosts, so a pattern can name a site.
    if (matchesAny(excludes, url.href)) return deny("EXCLUDE_PATTERN")
    if (options.allowSubdomains && sameDomain)
      return includes.length > 0 && !matchesAny(includes, target(url)) ? deny("INCLUDE_PATTERN") : FOLLOW
    if (options.allowExternalLinks && !isHomePage(url)) return FOLLOW
    return deny("EXTERNAL_LINK")
  }
}
