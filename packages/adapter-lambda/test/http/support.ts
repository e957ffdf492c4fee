/**
 * Fixtures (AWS's sample events, as JSON under `fixtures/`), helpers to aim them at a local page, and a response stream
 * that records what a streaming handler writes.
 */
import { readFileSync } from "node:fs"
import { Writable } from "node:stream"
import { expect } from "vitest"
import type { LambdaHttpEvent, StreamMetadata } from "../../src/http/index.js"

export type FixtureName =
  | "api-gateway-rest-v1"
  | "http-api-v2-named-stage"
  | "http-api-v2-default-stage"
  | "function-url"
  | "alb"
  | "alb-multi-value"

export const FIXTURES: ReadonlyArray<FixtureName> = [
  "api-gateway-rest-v1",
  "http-api-v2-named-stage",
  "http-api-v2-default-stage",
  "function-url",
  "alb",
  "alb-multi-value",
]

/** A fresh copy of a fixture event, typed as the kind it is. */
export const fixture = <Event extends LambdaHttpEvent = LambdaHttpEvent>(name: FixtureName): Event =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")) as Event

/** Drops `content-length` from a header map (the fixture's is for its own body). */
const withoutLength = <Map extends Readonly<Record<string, unknown>> | null | undefined>(map: Map): Map => {
  if (map === null || map === undefined) return map
  return Object.fromEntries(Object.entries(map).filter(([name]) => name.toLowerCase() !== "content-length")) as Map
}

/** The event with another body, plain or base64-encoded as API Gateway sends binary bodies. */
export const withBody = <Event extends LambdaHttpEvent>(
  event: Event,
  body: string | Uint8Array,
  base64 = typeof body !== "string",
): Event => ({
  ...event,
  headers: withoutLength(event.headers),
  ...("multiValueHeaders" in event ? { multiValueHeaders: withoutLength(event.multiValueHeaders) } : {}),
  body: base64 ? Buffer.from(body).toString("base64") : String(body),
  isBase64Encoded: base64,
})

/** The event as a POST of `value` as JSON. */
export const withJson = <Event extends LambdaHttpEvent>(event: Event, value: unknown, base64 = false): Event =>
  withBody(event, JSON.stringify(value), base64)

/** The event aimed at another path, keeping its kind's stage or base path where it has one. */
export const withPath = <Event extends LambdaHttpEvent>(event: Event, path: string, method?: string): Event => {
  if ("rawPath" in event) {
    const stage = event.requestContext.stage
    const rawPath = stage !== undefined && stage !== "$default" ? `/${stage}${path}` : path
    const http = { ...event.requestContext.http, ...(method ? { method } : {}) }
    return { ...event, rawPath, rawQueryString: "", requestContext: { ...event.requestContext, http } }
  }
  const base = { ...event, path, ...(method ? { httpMethod: method } : {}) }
  if ("elb" in event.requestContext)
    return "multiValueQueryStringParameters" in event
      ? { ...base, multiValueQueryStringParameters: {} }
      : { ...base, queryStringParameters: {} }
  const context = event.requestContext as { readonly stage?: string }
  return {
    ...base,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { ...event.requestContext, path: `/${context.stage}${path}` },
  }
}

/** The JSON body of a buffered result. */
export const json = (result: { readonly body: string; readonly isBase64Encoded: boolean }): unknown =>
  JSON.parse(result.isBase64Encoded ? Buffer.from(result.body, "base64").toString("utf8") : result.body)

/** A response stream like the runtime's: records what it is sent; each write completes after `delayMs` (0: at once). */
export class Collector extends Writable {
  readonly chunks: Array<Buffer> = []
  contentType: string | undefined
  constructor(private readonly delayMs = 0) {
    super({ highWaterMark: 64 * 1024 })
  }
  setContentType(contentType: string) {
    this.contentType = contentType
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.chunks.push(Buffer.from(chunk))
    if (this.delayMs === 0) callback()
    else setTimeout(callback, this.delayMs)
  }
  /** The metadata before the 8 NUL bytes and the body after them. */
  parsed(): { metadata: StreamMetadata; body: Buffer } {
    const all = Buffer.concat(this.chunks)
    const end = all.indexOf(Buffer.alloc(8))
    expect(end).toBeGreaterThan(0)
    return { metadata: JSON.parse(all.subarray(0, end).toString("utf8")), body: all.subarray(end + 8) }
  }
}
