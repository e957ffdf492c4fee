/**
 * The body of `POST /v2/agent`: a goal in words, optionally the URLs to start from (or to stay within) and the JSON
 * Schema of the answer, and a budget. Firecrawl's model names and the SDK's newer keys are accepted; the model that
 * runs is the one configured here.
 */
import { Schema } from "effect"
import { JsonSchemaObject } from "./Formats.js"
import { requestMetaFields } from "./ScrapeOptions.js"
import { AgentWebhook } from "./Webhook.js"

export const DEFAULT_AGENT_CREDITS = 2500

export const AgentRequest = Schema.Struct({
  prompt: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)),
  urls: Schema.optional(Schema.Array(Schema.String).pipe(Schema.maxItems(100))),
  schema: Schema.optional(JsonSchemaObject),
  /** The run's budget: one credit per page read, map or search, and one per 1000 model tokens. */
  maxCredits: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.finite())),
  /** Only the given URLs (and the pages under a `/*` one) may be read. */
  strictConstrainToURLs: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Firecrawl's model presets: accepted and reported back; the configured model runs. */
  model: Schema.optional(Schema.String),
  effort: Schema.optional(Schema.Literal("low", "medium", "high")),
  webhook: Schema.optional(AgentWebhook),
  mode: Schema.optional(Schema.Literal("extract", "chat")),
  threadId: Schema.optional(Schema.String),
  exchange: Schema.optional(Schema.Unknown),
  auditMetadata: Schema.optional(Schema.Unknown),
  threatProtection: Schema.optional(Schema.Unknown),
  ...requestMetaFields,
}).annotations({ identifier: "AgentRequest" })
export type AgentRequest = typeof AgentRequest.Type
export type AgentRequestInput = typeof AgentRequest.Encoded
