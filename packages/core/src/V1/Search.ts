/** `POST /v1/search`: the v1 body read into v2's, and v2's web results answered as v1's flat list of documents. */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import type { SearchOutcome } from "../Search.js"
import { v1RequestMetaFields } from "./Scrape.js"
import {
  type LlmField,
  llmFieldOf,
  sameInV2,
  toV1Document,
  toV2ScrapeOptions,
  V1ScrapeOptions,
} from "./ScrapeOptions.js"

const V1SearchRequest = Schema.Struct({
  query: sameInV2,
  limit: sameInV2,
  tbs: sameInV2,
  filter: sameInV2,
  lang: sameInV2,
  country: sameInV2,
  location: sameInV2,
  timeout: sameInV2,
  ignoreInvalidURLs: sameInV2,
  /** Firecrawl's website preview token: no meaning here, accepted as v1 did. */
  __searchPreviewToken: Schema.optional(Schema.String),
  scrapeOptions: Schema.optional(V1ScrapeOptions),
  origin: v1RequestMetaFields.origin,
  integration: v1RequestMetaFields.integration,
})

/** v1's result count when none is given (v2's is 10). */
const V1_SEARCH_LIMIT = 5

export interface V2Search {
  /** The body for v2's search decoder. */
  readonly body: Record<string, unknown>
  readonly llmField: LlmField
}

const decode = decodeStrict(V1SearchRequest)

export const toV2Search = (input: unknown): Effect.Effect<V2Search, RequestError> =>
  Effect.map(decode(input), ({ __searchPreviewToken: _, scrapeOptions, ...same }) => ({
    body: {
      ...same,
      limit: same.limit ?? V1_SEARCH_LIMIT,
      // v1's scrape defaults (no cache reads) hold for the results it scrapes.
      scrapeOptions: toV2ScrapeOptions(scrapeOptions ?? {}),
    },
    llmField: llmFieldOf(scrapeOptions?.formats),
  }))

/** v1 had web results only, as documents: no position or category. */
export const toV1Search = (outcome: SearchOutcome, llmField: LlmField) => ({
  success: true as const,
  data: (outcome.data.web ?? []).map(({ position: _p, category: _c, ...result }) => toV1Document(result, llmField)),
  ...(outcome.warning !== undefined ? { warning: outcome.warning } : {}),
})
