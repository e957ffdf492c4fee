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
 * `?` goes. Each part is set only when it changes: a setter re-serialises the whole URL, and four of them made this
 * 4-6 µs a link against ~1 µs for the parse (a page of 4 500 links normalises each two or three times).
 */
const normalized = (url: string, options: NormalizeOptions): URL => {
  const parsed = new URL(url)
  // A "#" or "?" in the serialised URL is always a delimiter (in the path and query they are escaped); the getters
  // answer "" for an empty fragment or query, whose delimiter the href still shows.
  if (parsed.hash === "" ? parsed.href.includes("#") : !SPA_ROUTE.test(parsed.hash)) parsed.hash = ""
  const { href, hash, search, pathname } = parsed
  const bareQuery = search === "" && href.slice(0, href.length - hash.length).includes("?")
  if (bareQuery || (options.ignoreQueryParameters && search !== "")) parsed.search = ""
  else if (search !== "") {
    const upper = upperEscapes(search)
    if (upper !== search) parsed.search = upper
  }
  const upperPath = upperEscapes(pathname)
  if (upperPath !== pathname) parsed.pathname = upperPath
  return parsed
}

/** The form a URL is queued and reported under (see `normalized`). */
export const normalizeUrl = (url: string, options: NormalizeOptions): string => normalized(url, options).href

const INDEX_FILE = /\/index\.(?:html?|php)$/

/**
 * The seen-set key. With `deduplicateSimilarURLs` an http(s) URL becomes `host[:port]/path?query#route` with no
 * scheme, no leading `www.`, no `/index.html|htm|php` and no trailing slash, so all those variants share one key.
 * Without it the key is the normalized URL itself.
 */
export const dedupKey = (url: string, options: DedupOptions): string => {
  const parsed = normalized(url, options)
  if (!options.deduplicateSimilarURLs || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    return parsed.href
  const host = /^www\.[^.]+\./.test(parsed.host) ? parsed.host.slice(4) : parsed.host
  const path = parsed.pathname.replace(INDEX_FILE, "/").replace(/\/+$/, "")
  return `${host}${path === "" ? "/" : path}${parsed.search}${parsed.hash}`
}
