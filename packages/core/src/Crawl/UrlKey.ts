/**
 * URL identity for the crawl frontier. `normalizeUrl` is the form a URL is queued and reported under; `dedupKey` is
 * the key of the crawl's seen set, so that variants of one page are visited once (Firecrawl's `normalizeURL` and
 * `generateURLPermutations` in `lib/crawl-redis.ts`).
 *
 * Both take an absolute URL and throw a `TypeError` (from `new URL`) when it is not one: they run on links the link
 * filter has already resolved and accepted.
 */

export interface NormalizeOptions {
  /** Drop the query string (`ignoreQueryParameters`, Firecrawl default false for crawl). */
  readonly ignoreQueryParameters: boolean
}

export interface DedupOptions extends NormalizeOptions {
  /** Collapse www/non-www, http/https, a trailing slash and `/index.(html|htm|php)` (Firecrawl default true). */
  readonly deduplicateSimilarURLs: boolean
}

/** `#/route` and `#!/route` address pages of single-page apps; any other fragment is a place within one page. */
const SPA_ROUTE = /^#!?\/./

/** `%2f` and `%2F` are the same octet (RFC 3986 §6.2.2.1); one spelling keeps them one key. */
const upperEscapes = (text: string): string => text.replace(/%[0-9a-f]{2}/gi, (octet) => octet.toUpperCase())

/**
 * The WHATWG parser already lower-cases scheme and host, drops default ports, resolves dot segments and keeps the
 * path's case; on top of that the fragment goes unless it is an SPA route, the query goes when asked, and an empty
 * `?` goes.
 */
export const normalizeUrl = (url: string, options: NormalizeOptions): string => {
  const parsed = new URL(url)
  if (!SPA_ROUTE.test(parsed.hash)) parsed.hash = ""
  // Reassigning an empty search removes a bare "?" as well.
  parsed.search = options.ignoreQueryParameters ? "" : parsed.search
  parsed.pathname = upperEscapes(parsed.pathname)
  parsed.search = upperEscapes(parsed.search)
  return parsed.href
}

const INDEX_FILE = /\/index\.(?:html?|php)$/

/**
 * The seen-set key. With `deduplicateSimilarURLs` an http(s) URL becomes `host[:port]/path?query#route` with no
 * scheme, no leading `www.`, no `/index.html|htm|php` and no trailing slash, so all those variants share one key.
 * Without it the key is the normalized URL itself.
 */
export const dedupKey = (url: string, options: DedupOptions): string => {
  const normalized = normalizeUrl(url, options)
  const parsed = new URL(normalized)
  if (!options.deduplicateSimilarURLs || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    return normalized
  const host = /^www\.[^.]+\./.test(parsed.host) ? parsed.host.slice(4) : parsed.host
  const path = parsed.pathname.replace(INDEX_FILE, "/").replace(/\/+$/, "")
  return `${host}${path === "" ? "/" : path}${parsed.search}${parsed.hash}`
}
