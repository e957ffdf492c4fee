/**
 * The batch scrape request of `/v2/batch/scrape`: URLs plus scrape options flattened at the top level (not under
 * `scrapeOptions`), a webhook, and `appendToId` to add URLs to a running batch.
 */
import { Effect, FiberRef, Schema } from "effect"
import {
  requestMetaFields,
  type ScrapeOptions,
  scrapeOptionFields,
  totalWaitWithinLimit,
  waitForWithinTimeout,
} from "./ScrapeOptions.js"
import { IntranetHosts, urlProblem } from "./Url.js"
import { Webhook } from "./Webhook.js"

/**
 * Invalid URLs fail the whole request unless the body says `ignoreInvalidURLs: true` literally (Firecrawl decides
 * on the raw body); with it they are dropped and listed in the answer's `invalidURLs`.
 */
const urlsValidUnlessIgnored = (request: {
  readonly urls: ReadonlyArray<string>
  readonly ignoreInvalidURLs?: boolean | undefined
}) =>
  Effect.map(FiberRef.get(IntranetHosts), (intranet) => {
    if (request.ignoreInvalidURLs === true) return true
    const issues = request.urls.flatMap((url, index) => {
      const problem = urlProblem(url, intranet)
      return problem === undefined ? [] : [{ path: ["urls", index], message: problem }]
    })
    return issues.length === 0 || issues
  })

/** The most URLs one batch request may carry (more are sent with `appendToId`). */
export const MAX_BATCH_URLS = 10_000

export const BatchScrapeRequest = Schema.Struct({
  urls: Schema.Array(Schema.String).pipe(
    Schema.minItems(1),
    Schema.maxItems(MAX_BATCH_URLS, {
      message: () =>
        `Too many URLs: at most ${MAX_BATCH_URLS.toLocaleString("en")} per request (add more with appendToId)`,
    }),
  ),
  ...scrapeOptionFields,
  webhook: Schema.optional(Webhook),
  appendToId: Schema.optional(Schema.UUID),
  ignoreInvalidURLs: Schema.optional(Schema.Boolean),
  maxConcurrency: Schema.optional(Schema.Int.pipe(Schema.positive())),
  ...requestMetaFields,
}).pipe(
  Schema.filterEffect(urlsValidUnlessIgnored),
  Schema.filter(waitForWithinTimeout),
  Schema.filter(totalWaitWithinLimit),
  Schema.annotations({ identifier: "BatchScrapeRequest" }),
)
export type BatchScrapeRequest = typeof BatchScrapeRequest.Type
export type BatchScrapeRequestInput = typeof BatchScrapeRequest.Encoded

/** The scrape options part of a batch request (its cross-field rules were checked with the request). */
export const batchScrapeOptions = (request: BatchScrapeRequest): typeof ScrapeOptions.Type => {
  const {
    urls: _urls,
    webhook: _webhook,
    appendToId: _append,
    ignoreInvalidURLs: _ignore,
    maxConcurrency: _max,
    origin: _origin,
    integration: _integration,
    zeroDataRetention: _zdr,
    ...options
  } = request
  return options
}
