/**
 * Which URLs a map reports, and under which spelling: Firecrawl's map rules on top of the crawl's link filter.
 * - Same site only: external links are never reported (`allowExternalLinks` only lifts the path filter, as in
 *   Firecrawl); other hosts of the registrable domain count when `includeSubdomains` (public-suffix aware).
 * - `filterByPath`: only URLs under the start URL's path, on every admitted host (a map of `example.com/docs` does not
 *   report `blog.example.com/`); off with `crawlEntireDomain` or `allowExternalLinks`.
 * - include/exclude patterns and `maxDiscoveryDepth` as in a crawl.
 * - Reported URLs are normalized (fragment dropped, query dropped with `ignoreQueryParameters`) and deduplicated by
 *   the crawl's key (`deduplicateSimilarURLs` collapses www, scheme, trailing slash and index files).
 */
import { type LinkContext, type LinkFilter, makeLinkFilter, SEED_PATH_ONLY } from "../Crawl/LinkFilter.js"
import { dedupKey, normalizeUrl } from "../Crawl/UrlKey.js"

export interface MapScopeOptions {
  readonly includeSubdomains: boolean
  readonly filterByPath: boolean
  readonly crawlEntireDomain?: boolean | undefined
  readonly allowExternalLinks: boolean
  readonly includePaths: ReadonlyArray<string>
  readonly excludePaths: ReadonlyArray<string>
  readonly regexOnFullURL: boolean
  readonly maxDiscoveryDepth?: number | undefined
  readonly ignoreQueryParameters: boolean
  readonly deduplicateSimilarURLs: boolean
}

export interface MapScope {
  /**
   * The URL to report for a link found on `context.fromUrl` (at `context.depth`), or undefined when it is out of
   * scope. Sitemap URLs and the start URL are judged from the seed at depth -1.
   */
  readonly admit: (candidate: string, context: LinkContext) => string | undefined
  /** The identity of a reported URL: two URLs with one key are one entry. */
  readonly key: (url: string) => string
}

/**
 * @throws TypeError when `seed` is not an absolute URL, SyntaxError when a pattern is invalid (the request schema
 * refuses those first).
 */
export const makeMapScope = (seed: string, options: MapScopeOptions): MapScope => {
  const seedUrl = new URL(seed)
  const byPath = options.filterByPath && !options.allowExternalLinks && options.crawlEntireDomain !== true
  const filter = makeLinkFilter(seed, {
    includePaths: options.includePaths,
    excludePaths: options.excludePaths,
    regexOnFullURL: options.regexOnFullURL,
    crawlEntireDomain: !byPath,
    allowSubdomains: options.includeSubdomains,
    allowExternalLinks: false,
    maxDiscoveryDepth: options.maxDiscoveryDepth,
  })
  // The link filter scopes paths on the seed's own host only; this one judges another host's path as if it were
  // on the seed's host.
  const underSeedPath: LinkFilter | undefined = byPath ? makeLinkFilter(seed, SEED_PATH_ONLY) : undefined
  const inPath = (url: URL): boolean => {
    if (underSeedPath === undefined || url.host === seedUrl.host) return true
    const rehomed = new URL(url.pathname, seedUrl.origin)
    return underSeedPath(rehomed.href, { fromUrl: seedUrl.href, depth: -1 }).follow
  }

  return {
    admit: (candidate, context) => {
      if (!filter(candidate, context).follow) return undefined
      // The filter resolved the same candidate against the same base, so this cannot throw.
      const url = new URL(candidate.trim(), context.fromUrl)
      if (!inPath(url)) return undefined
      return normalizeUrl(url.href, options)
    },
    key: (url) => dedupKey(url, options),
  }
}
