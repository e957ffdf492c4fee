/** `POST /v1/map`: the v1 body read into v2's, and v2's answer in v1's shape (`links` as strings). */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import type { MapResult } from "../Map.js"
import { defined, sameInV2 } from "./ScrapeOptions.js"

const V1MapRequest = Schema.Struct({
  url: sameInV2,
  includePaths: sameInV2,
  excludePaths: sameInV2,
  /** v1's map never read it (only crawls limit the path depth): accepted, as v1 did. */
  maxDepth: Schema.optional(Schema.Number),
  maxDiscoveryDepth: sameInV2,
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 30_000))),
  /** v2's `crawlEntireDomain`. */
  allowBackwardLinks: Schema.optional(Schema.Boolean),
  crawlEntireDomain: sameInV2,
  allowExternalLinks: sameInV2,
  allowSubdomains: sameInV2,
  ignoreRobotsTxt: sameInV2,
  /** v2's `sitemap: "skip"`. */
  ignoreSitemap: Schema.optional(Schema.Boolean),
  /** v2's `sitemap: "only"` (it wins over `ignoreSitemap`, as in v1). */
  sitemapOnly: Schema.optional(Schema.Boolean),
  deduplicateSimilarURLs: sameInV2,
  regexOnFullURL: sameInV2,
  delay: sameInV2,
  includeSubdomains: sameInV2,
  search: sameInV2,
  ignoreQueryParameters: sameInV2,
  timeout: sameInV2,
  useMock: sameInV2,
  filterByPath: sameInV2,
  useIndex: sameInV2,
  origin: sameInV2,
  integration: sameInV2,
})

const decode = decodeStrict(V1MapRequest)

/** v1's sitemap flags as v2's mode (undefined: v2's default, "include"). */
export const sitemapMode = (ignoreSitemap?: boolean, sitemapOnly?: boolean): "only" | "skip" | undefined =>
  sitemapOnly === true ? "only" : ignoreSitemap === true ? "skip" : undefined

/** The v2 map body (for v2's map decoder) a v1 body stands for. */
export const toV2Map = (input: unknown): Effect.Effect<Record<string, unknown>, RequestError> =>
  Effect.map(decode(input), ({ maxDepth: _, allowBackwardLinks, ignoreSitemap, sitemapOnly, ...same }) =>
    defined({
      ...same,
      crawlEntireDomain: same.crawlEntireDomain ?? allowBackwardLinks,
      sitemap: sitemapMode(ignoreSitemap, sitemapOnly),
    }),
  )

/** v2's map answer as v1's: the URLs alone. */
export const toV1Map = (result: MapResult) => ({
  success: true as const,
  links: result.links.map((link) => link.url),
  ...(result.warning !== undefined ? { warning: result.warning } : {}),
})
