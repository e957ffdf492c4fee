/**
 * The body of `POST /v1/llmstxt`, as Firecrawl's v1 API takes it: the site, how many of its pages the file lists,
 * whether the answer carries the full text too, and whether cached pages may be used.
 */
import { Schema } from "effect"
import { requestMetaFields } from "./ScrapeOptions.js"
import { TargetUrl } from "./Url.js"

export const MAX_LLMSTXT_URLS = 100
export const DEFAULT_LLMSTXT_URLS = 10

export const LlmsTxtRequest = Schema.Struct({
  url: TargetUrl,
  /** Pages the file lists at most, the start page included. */
  maxUrls: Schema.optionalWith(
    Schema.Int.pipe(
      Schema.between(1, MAX_LLMSTXT_URLS, { message: () => `maxUrls must be between 1 and ${MAX_LLMSTXT_URLS}` }),
    ),
    {
      default: () => DEFAULT_LLMSTXT_URLS,
    },
  ),
  /** Also build llms-full.txt: every listed page's markdown. */
  showFullText: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Pages scraped in the last two days may be reused; `false` reads every page afresh. */
  cache: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Firecrawl streamed partial files with it; accepted, and the answer comes whole. */
  __experimental_stream: Schema.optional(Schema.Boolean),
  origin: requestMetaFields.origin,
  integration: requestMetaFields.integration,
}).annotations({ identifier: "LlmsTxtRequest" })

export type LlmsTxtRequest = typeof LlmsTxtRequest.Type
export type LlmsTxtRequestInput = typeof LlmsTxtRequest.Encoded
