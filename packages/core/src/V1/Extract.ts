/**
 * The body of `POST /v1/extract`, read into v2's: the same fields, but v1 scrape options, and invalid URLs refused
 * unless `ignoreInvalidURLs` (v2 drops them by default). v1 had no extract webhook.
 */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import { v1RequestMetaFields } from "./Scrape.js"
import { sameInV2, toV2ScrapeOptions, V1ScrapeOptions } from "./ScrapeOptions.js"

const V1ExtractRequest = Schema.Struct({
  urls: sameInV2,
  prompt: sameInV2,
  systemPrompt: sameInV2,
  schema: sameInV2,
  limit: sameInV2,
  ignoreSitemap: sameInV2,
  includeSubdomains: sameInV2,
  allowExternalLinks: sameInV2,
  enableWebSearch: sameInV2,
  scrapeOptions: Schema.optional(V1ScrapeOptions),
  urlTrace: sameInV2,
  timeout: sameInV2,
  showSources: sameInV2,
  __experimental_showSources: sameInV2,
  __experimental_streamSteps: sameInV2,
  __experimental_llmUsage: sameInV2,
  __experimental_showCostTracking: sameInV2,
  __experimental_cacheKey: sameInV2,
  __experimental_cacheMode: sameInV2,
  agent: sameInV2,
  ignoreInvalidURLs: Schema.optional(Schema.Boolean),
  origin: v1RequestMetaFields.origin,
  integration: v1RequestMetaFields.integration,
})

const decode = decodeStrict(V1ExtractRequest)

/** The v2 extract body (for `Extract.start`) a v1 body stands for. */
export const toV2Extract = (input: unknown): Effect.Effect<Record<string, unknown>, RequestError> =>
  Effect.map(decode(input), ({ scrapeOptions, ignoreInvalidURLs, ...same }) => ({
    ...same,
    ignoreInvalidURLs: ignoreInvalidURLs ?? false,
    // v1's scrape defaults (no cache reads) hold for the pages it reads.
    scrapeOptions: toV2ScrapeOptions(scrapeOptions ?? {}),
  }))
