/** The body of `POST /v1/scrape`, read into the v2 scrape body it stands for. */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import {
  type LlmField,
  llmFieldOf,
  sameInV2,
  toV2ScrapeOptions,
  v1ScrapeOptionFields,
  v1ScrapeRules,
} from "./ScrapeOptions.js"

/** Keys every v1 POST body accepts besides its own. */
export const v1RequestMetaFields = {
  origin: sameInV2,
  integration: sameInV2,
  zeroDataRetention: sameInV2,
}

const V1ScrapeRequest = Schema.Struct({ url: sameInV2, ...v1ScrapeOptionFields, ...v1RequestMetaFields }).pipe(
  Schema.filter(v1ScrapeRules),
)

/** v1's scrape timeout when none is given (v2's is 60 s). */
const V1_SCRAPE_TIMEOUT_MS = 30_000

export interface V2Scrape {
  /** The body for v2's scrape decoder. */
  readonly body: Record<string, unknown>
  /** Where the answer puts the LLM output. */
  readonly llmField: LlmField
}

const decode = decodeStrict(V1ScrapeRequest)

export const toV2Scrape = (input: unknown): Effect.Effect<V2Scrape, RequestError> =>
  Effect.map(decode(input), (request) => ({
    body: toV2ScrapeOptions(request, { timeout: V1_SCRAPE_TIMEOUT_MS }),
    llmField: llmFieldOf(request.formats),
  }))
