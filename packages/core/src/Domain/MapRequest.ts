/**
 * The body of `POST /v2/map`, as Firecrawl v2 validates it (`mapRequestSchema`): its own fields plus the crawl fields
 * it inherits (accepted, and those that shape scope honoured), and the meta keys every request accepts.
 */
import { Schema, Struct } from "effect"
import { crawlerOptionFields, SitemapMode } from "./CrawlRequest.js"
import { decodeStrict } from "./Decode.js"
import { requestMetaFields, scrapeOptionFields } from "./ScrapeOptions.js"
import { TargetUrl } from "./Url.js"

export const MAX_MAP_LIMIT = 100_000
export const DEFAULT_MAP_LIMIT = 5000

/** The crawl fields Firecrawl's map schema inherits (its crawler options minus `limit`, `sitemap` and the query rule). */
const inheritedCrawlFields = Struct.pick(
  crawlerOptionFields,
  "includePaths",
  "excludePaths",
  "regexOnFullURL",
  "allowExternalLinks",
  "allowSubdomains",
  "crawlEntireDomain",
  "maxDiscoveryDepth",
  "deduplicateSimilarURLs",
  "ignoreRobotsTxt",
  "delay",
)

const defaultFalse = { default: () => false } as const
const defaultTrue = { default: () => true } as const

export const MapRequest = Schema.Struct({
  url: TargetUrl,
  /** Ranks the links by relevance to this query (nothing is dropped). */
  search: Schema.optional(Schema.String),
  sitemap: Schema.optionalWith(SitemapMode, { default: () => "include" as const }),
  includeSubdomains: Schema.optionalWith(Schema.Boolean, defaultTrue),
  /** Strip query strings in the answer (and so merge URLs that differ only in them). */
  ignoreQueryParameters: Schema.optionalWith(Schema.Boolean, defaultTrue),
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, MAX_MAP_LIMIT)), {
    default: () => DEFAULT_MAP_LIMIT,
  }),
  /** Budget of the whole map in milliseconds; none by default (an internal budget applies). */
  timeout: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.finite())),
  location: scrapeOptionFields.location,
  /** Request headers for the site's pages, robots.txt and sitemaps. */
  headers: scrapeOptionFields.headers,
  /** There is no sitemap cache to bypass; accepted for compatibility. */
  ignoreCache: Schema.optionalWith(Schema.Boolean, defaultFalse),
  /** Keep only URLs under the start URL's path when it has one. */
  filterByPath: Schema.optionalWith(Schema.Boolean, defaultTrue),
  /** Firecrawl's cloud index; there is none here, accepted for compatibility. */
  useIndex: Schema.optionalWith(Schema.Boolean, defaultTrue),
  useMock: scrapeOptionFields.useMock,
  ...inheritedCrawlFields,
  ...requestMetaFields,
}).annotations({ identifier: "MapRequest" })

export type MapRequest = typeof MapRequest.Type
export type MapRequestInput = typeof MapRequest.Encoded

/** Decodes a request body strictly, failing with Firecrawl's 400 shape. */
export const decodeMapRequest = decodeStrict(MapRequest)
