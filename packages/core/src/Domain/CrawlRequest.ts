/**
 * The crawl request of `/v2/crawl`: crawler options (which pages), `scrapeOptions` (what of each page), a webhook.
 * Defaults and validation messages are Firecrawl v2's.
 */
import { Schema } from "effect"
import { compilePatterns } from "../Crawl/LinkFilter.js"
import { requestMetaFields, ScrapeOptions } from "./ScrapeOptions.js"
import { TargetUrl } from "./Url.js"
import { Webhook } from "./Webhook.js"

export const DEFAULT_CRAWL_LIMIT = 10_000
/** The most pages one crawl may ask for: a bigger site is crawled in parts (a bounded job stays a bounded commit). */
export const MAX_CRAWL_LIMIT = 1_000_000

/** Regex patterns, each checked with the engine that will run it: an invalid one is a 400 with its message. */
const Patterns = Schema.Array(Schema.String).pipe(
  Schema.filter((patterns) => {
    const compiled = compilePatterns(patterns)
    return Array.isArray(compiled) || compiled.message
  }),
)

const PositiveInt = Schema.Int.pipe(Schema.positive())

export const SitemapMode = Schema.Literal("include", "skip", "only")

/** Which pages a crawl visits. Shared with the prompt parser's output and `finalCrawlerOptions`. */
export const crawlerOptionFields = {
  includePaths: Schema.optionalWith(Patterns, { default: () => [] }),
  excludePaths: Schema.optionalWith(Patterns, { default: () => [] }),
  regexOnFullURL: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  maxDiscoveryDepth: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  limit: Schema.optionalWith(
    PositiveInt.pipe(
      Schema.filter(
        (limit) => limit <= MAX_CRAWL_LIMIT || `limit cannot exceed ${MAX_CRAWL_LIMIT.toLocaleString("en")}`,
      ),
    ),
    { default: () => DEFAULT_CRAWL_LIMIT },
  ),
  crawlEntireDomain: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  allowExternalLinks: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  allowSubdomains: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  ignoreRobotsTxt: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  robotsUserAgent: Schema.optional(Schema.String),
  sitemap: Schema.optionalWith(SitemapMode, { default: () => "include" as const }),
  deduplicateSimilarURLs: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  ignoreQueryParameters: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Seconds between two fetches of the crawl (forces one fetch at a time). */
  delay: Schema.optional(
    Schema.Number.pipe(
      Schema.filter(
        (seconds) =>
          (seconds > 0 && seconds <= 60) || "The delay parameter is measured in seconds and cannot exceed 60 seconds.",
      ),
    ),
  ),
  maxConcurrency: Schema.optional(PositiveInt),
}

export const CrawlRequest = Schema.Struct({
  url: TargetUrl,
  prompt: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
  ...crawlerOptionFields,
  scrapeOptions: Schema.optional(ScrapeOptions),
  webhook: Schema.optional(Webhook),
  ...requestMetaFields,
}).annotations({ identifier: "CrawlRequest" })
export type CrawlRequest = typeof CrawlRequest.Type
export type CrawlRequestInput = typeof CrawlRequest.Encoded

/** `/v2/crawl/params-preview`: a prompt read into crawler options without starting a crawl (non-strict body). */
export const ParamsPreviewRequest = Schema.Struct({
  url: TargetUrl,
  prompt: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)),
}).annotations({ identifier: "ParamsPreviewRequest" })
export type ParamsPreviewRequest = typeof ParamsPreviewRequest.Type
