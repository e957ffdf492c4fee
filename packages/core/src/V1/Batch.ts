/** The body of `POST /v1/batch/scrape`: v1 scrape options at the top level beside the URLs. */
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import type { RequestError } from "../Errors.js"
import { v1RequestMetaFields } from "./Scrape.js"
import { sameInV2, toV2ScrapeOptions, v1ScrapeOptionFields, v1ScrapeRules } from "./ScrapeOptions.js"

const V1BatchRequest = Schema.Struct({
  urls: sameInV2,
  ...v1ScrapeOptionFields,
  webhook: sameInV2,
  appendToId: sameInV2,
  ignoreInvalidURLs: sameInV2,
  maxConcurrency: sameInV2,
  ...v1RequestMetaFields,
}).pipe(Schema.filter(v1ScrapeRules))

const decode = decodeStrict(V1BatchRequest)

/** The v2 batch body (for `BatchScrape.start`) a v1 body stands for. */
export const toV2Batch = (input: unknown): Effect.Effect<Record<string, unknown>, RequestError> =>
  Effect.map(decode(input), (request) => toV2ScrapeOptions(request))
