/**
 * The `webhook` option of crawl and batch scrape: a URL string, or an object with headers, metadata and an event
 * filter. Both forms decode to one `WebhookSpec`, so delivery code sees a single shape.
 */
import { Schema } from "effect"

export const WEBHOOK_EVENTS = ["started", "page", "completed", "failed"] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

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

const WebhookObject = Schema.Struct({
  url: WebhookUrl,
  headers: Schema.optionalWith(WebhookHeaders, { default: () => ({}) }),
  metadata: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), {
    default: () => ({}),
  }),
  events: Schema.optionalWith(Schema.Array(Schema.Literal(...WEBHOOK_EVENTS)), {
    default: () => [...WEBHOOK_EVENTS],
  }),
})

/** A webhook as the request sent it (string or object), decoded to the object form with defaults applied. */
export const Webhook = Schema.Union(
  WebhookObject,
  Schema.transform(WebhookUrl, Schema.typeSchema(WebhookObject), {
    strict: true,
    decode: (url) => ({ url, headers: {}, metadata: {}, events: [...WEBHOOK_EVENTS] }),
    encode: (spec) => spec.url,
  }),
).annotations({ identifier: "Webhook" })
export type WebhookSpec = typeof Webhook.Type
