/**
 * The `webhook` option of crawl, batch scrape, extract and agent: a URL string, or an object with headers, metadata
 * and an event filter. Both forms decode to one `WebhookSpec`, so delivery code sees a single shape.
 */
import { Schema } from "effect"

export const WEBHOOK_EVENTS = ["started", "page", "completed", "failed"] as const
export const EXTRACT_WEBHOOK_EVENTS = ["started", "completed", "failed"] as const
export const AGENT_WEBHOOK_EVENTS = ["started", "action", "completed", "failed", "cancelled"] as const
/** A monitor's events, as `monitor.<event>` (the monitor's webhook lists them by their full names). */
export const MONITOR_WEBHOOK_EVENTS = ["page", "check.completed"] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS | typeof AGENT_WEBHOOK_EVENTS | typeof MONITOR_WEBHOOK_EVENTS)[number]

/** Headers the delivery sets itself; a caller may not forge them. */
const RESERVED_HEADERS = ["x-firecrawl-signature"]

const WebhookUrl = Schema.String.pipe(
  Schema.filter((input) => {
    try {
      const url = new URL(input)
      return url.protocol === "http:" || url.protocol === "https:" || "Webhook URL must use http or https"
    } catch {
      return "Invalid webhook URL"
    }
  }),
)

const WebhookHeaders = Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
  Schema.filter((headers) => {
    const reserved = Object.keys(headers).filter((name) => RESERVED_HEADERS.includes(name.toLowerCase()))
    return reserved.length === 0 || `The following headers are not allowed: ${reserved.join(", ")}`
  }),
)

/** A webhook as the request sent it (string or object) with `events` among `events`, decoded to the object form. */
const webhookOf = <const Events extends ReadonlyArray<WebhookEvent>>(
  events: Events,
  identifier: string,
): Schema.Schema<WebhookSpec, WebhookInput> => {
  const WebhookObject = Schema.Struct({
    url: WebhookUrl,
    headers: Schema.optionalWith(WebhookHeaders, { default: () => ({}) }),
    metadata: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), {
      default: () => ({}),
    }),
    events: Schema.optionalWith(Schema.Array(Schema.Literal(...events)), { default: () => [...events] }),
  })
  return Schema.Union(
    WebhookObject,
    Schema.transform(WebhookUrl, Schema.typeSchema(WebhookObject), {
      strict: true,
      decode: (url) => ({ url, headers: {}, metadata: {}, events: [...events] }),
      encode: (spec) => spec.url,
    }),
  ).annotations({ identifier }) as unknown as Schema.Schema<WebhookSpec, WebhookInput>
}

export interface WebhookSpec {
  readonly url: string
  readonly headers: { readonly [name: string]: string }
  readonly metadata: { readonly [key: string]: unknown }
  readonly events: ReadonlyArray<WebhookEvent>
}

/** A webhook as callers write it. */
export type WebhookInput =
  | string
  | {
      readonly url: string
      readonly headers?: { readonly [name: string]: string }
      readonly metadata?: { readonly [key: string]: unknown }
      readonly events?: ReadonlyArray<WebhookEvent>
    }

/** Crawl and batch scrape webhooks. */
export const Webhook = webhookOf(WEBHOOK_EVENTS, "Webhook")
export const ExtractWebhook = webhookOf(EXTRACT_WEBHOOK_EVENTS, "ExtractWebhook")
export const AgentWebhook = webhookOf(AGENT_WEBHOOK_EVENTS, "AgentWebhook")
