/**
 * The body of `POST /v2/extract`, as Firecrawl v2 validates it: URLs (a trailing `/*` stands for every page under
 * that path), what to extract (`prompt` and/or `schema`), how far to look, the scrape options of each page, and a
 * webhook for `extract.started|completed|failed`.
 */
import { Schema } from "effect"
import { JsonSchemaObject } from "./Formats.js"
import { requestMetaFields, ScrapeOptions } from "./ScrapeOptions.js"
import { ExtractWebhook } from "./Webhook.js"

const Prompt = Schema.String.pipe(Schema.maxLength(10_000))

/** Pages one extract reads at most (its wildcards expanded), unless `limit` says fewer. */
export const MAX_EXTRACT_PAGES = 1000
export const DEFAULT_EXTRACT_PAGES = 50

export const ExtractRequest = Schema.Struct({
  urls: Schema.optional(
    Schema.Array(Schema.String).pipe(
      Schema.maxItems(10, { message: () => "Maximum of 10 URLs allowed per request while in beta." }),
    ),
  ),
  prompt: Schema.optional(Prompt),
  systemPrompt: Schema.optional(Prompt),
  schema: Schema.optional(JsonSchemaObject),
  /** Pages read at most, wildcards expanded. */
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_EXTRACT_PAGES))),
  ignoreSitemap: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  includeSubdomains: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  allowExternalLinks: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  enableWebSearch: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  showSources: Schema.optional(Schema.Boolean),
  __experimental_showSources: Schema.optional(Schema.Boolean),
  scrapeOptions: Schema.optional(ScrapeOptions),
  ignoreInvalidURLs: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  timeout: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1000))),
  webhook: Schema.optional(ExtractWebhook),
  /** Firecrawl's v1 agent option; accepted. */
  agent: Schema.optional(Schema.Struct({ model: Schema.optional(Schema.String) })),
  urlTrace: Schema.optional(Schema.Boolean),
  __experimental_streamSteps: Schema.optional(Schema.Boolean),
  __experimental_llmUsage: Schema.optional(Schema.Boolean),
  __experimental_showCostTracking: Schema.optional(Schema.Boolean),
  __experimental_cacheKey: Schema.optional(Schema.String),
  __experimental_cacheMode: Schema.optional(Schema.String),
  ...requestMetaFields,
}).pipe(
  Schema.filter(
    (request) =>
      (request.urls !== undefined && request.urls.length > 0) ||
      request.prompt !== undefined || { path: ["urls"], message: "Either 'urls' or 'prompt' must be provided." },
  ),
  Schema.filter(
    (request) =>
      request.agent?.model?.toLowerCase() !== "v3-beta" || {
        path: ["agent", "model"],
        message: "Use the new /agent endpoint instead of the agent option of /extract.",
      },
  ),
  Schema.annotations({ identifier: "ExtractRequest" }),
)
export type ExtractRequest = typeof ExtractRequest.Type
export type ExtractRequestInput = typeof ExtractRequest.Encoded
