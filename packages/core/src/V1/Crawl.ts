/**
 * The body of `POST /v1/crawl`, read into the v2 crawl body it stands for.
 *
 * v1's `maxDepth` is not v2's `maxDiscoveryDepth` (link hops): it bounds a page's path depth, counted in path
 * segments beyond the start URL's own (v1 default 10, and a start URL deeper than `maxDepth` is a 400). v2 has no
 * such option, so it becomes an `excludePaths` pattern refusing deeper paths.
 */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import { v1ValidationError } from "./Errors.js"
import { sitemapMode } from "./Map.js"
import { v1RequestMetaFields } from "./Scrape.js"
import { defined, sameInV2, toV2ScrapeOptions, V1ScrapeOptions } from "./ScrapeOptions.js"

const V1CrawlRequest = Schema.Struct({
  url: sameInV2,
  includePaths: sameInV2,
  excludePaths: sameInV2,
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  maxDiscoveryDepth: sameInV2,
  limit: sameInV2,
  /** v2's `crawlEntireDomain` (which wins when both are given, as in v1). */
  allowBackwardLinks: Schema.optional(Schema.Boolean),
  crawlEntireDomain: sameInV2,
  allowExternalLinks: sameInV2,
  allowSubdomains: sameInV2,
  ignoreRobotsTxt: sameInV2,
  /** v2's `sitemap: "skip"`. */
  ignoreSitemap: Schema.optional(Schema.Boolean),
  deduplicateSimilarURLs: sameInV2,
  ignoreQueryParameters: sameInV2,
  regexOnFullURL: sameInV2,
  delay: sameInV2,
  scrapeOptions: Schema.optional(V1ScrapeOptions),
  webhook: sameInV2,
  maxConcurrency: sameInV2,
  ...v1RequestMetaFields,
})

const decode = decodeStrict(V1CrawlRequest)

/** v1's path depth of a URL: its path segments, `index.html` and `index.php` not counted. */
export const urlDepth = (url: string): number =>
  new URL(url).pathname.split("/").filter((part) => part !== "" && part !== "index.php" && part !== "index.html").length

/** A pattern (RE2) matching a path, or a whole URL, of more than `depth` segments. */
export const deeperThan = (depth: number, fullUrl: boolean): string =>
  `${fullUrl ? "^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]+/" : "^/+"}(?:[^/?#]+/+){${depth}}[^/?#]+`

const parsable = (url: unknown): url is string => typeof url === "string" && URL.canParse(url)

/** The v2 crawl body (for `Crawl.start`) a v1 body stands for. */
export const toV2Crawl = (input: unknown): Effect.Effect<Record<string, unknown>, RequestError> =>
  Effect.flatMap(decode(input), (request) => {
    const { maxDepth, allowBackwardLinks, ignoreSitemap, scrapeOptions, ...same } = request
    // An unparsable URL is v2's 400 to give.
    const startDepth = parsable(same.url) ? urlDepth(same.url) : undefined
    if (maxDepth !== undefined && startDepth !== undefined && startDepth > maxDepth)
      return Effect.fail(v1ValidationError("URL depth exceeds the specified maxDepth", ["url"]))
    const excludePaths =
      maxDepth === undefined ||
      startDepth === undefined ||
      !(same.excludePaths === undefined || Array.isArray(same.excludePaths))
        ? same.excludePaths
        : [...(same.excludePaths ?? []), deeperThan(startDepth + maxDepth, same.regexOnFullURL === true)]
    return Effect.succeed(
      defined({
        ...same,
        excludePaths,
        crawlEntireDomain: same.crawlEntireDomain ?? allowBackwardLinks,
        sitemap: sitemapMode(ignoreSitemap),
        // v1 scrape defaults (no cache reads) apply to a crawl that gives no scrape options too.
        scrapeOptions: toV2ScrapeOptions(scrapeOptions ?? {}),
      }),
    )
  })
