/**
 * A Lambda HTTP event (API Gateway REST or HTTP API, function URL, ALB) as a web `Request` for the API's handler, or
 * as the plain data its `handlePlain` takes. An event of another kind, or a malformed one, is an `InvalidEvent`: the
 * caller answers it with a 400.
 */
import { Data } from "effect"
import { type EventShape, eventShape, isRecord } from "./eventShape.js"
import { contextPrefix, normalizeBasePath, type RoutedPath, stripLeading } from "./pathPrefix.js"
import type { PlainRequest } from "./plain.js"

export class InvalidEvent extends Data.TaggedError("InvalidEvent")<{
  /** One line, for the client: `missing httpMethod`. */
  readonly reason: string
}> {}

export interface RequestOptions {
  /**
   * A base path to strip that the event does not reveal (a custom domain's mapping, a path CloudFront forwards):
   * `/firecrawl` routes `/firecrawl/v2/scrape` as `/v2/scrape` and links to the API under `/firecrawl`.
   */
  readonly basePath?: string
}

type Fields = Readonly<Record<string, unknown>>

const invalid = (reason: string): never => {
  throw new InvalidEvent({ reason })
}

const text = (fields: Fields, name: string, where = name): string => {
  const value = fields[name]
  return typeof value === "string" && value !== "" ? value : invalid(`missing ${where}`)
}

const optionalText = (fields: Fields, name: string): string | undefined => {
  const value = fields[name]
  if (value === undefined || value === null) return undefined
  return typeof value === "string" ? value : invalid(`${name} is not a string`)
}

/** The name/value pairs of a header or query map, single-valued (`headers`) or multi-valued (`multiValueHeaders`). */
const pairs = (fields: Fields, name: string): Array<readonly [string, string]> => {
  const map = fields[name]
  if (map === undefined || map === null) return []
  if (!isRecord(map)) return invalid(`${name} is not an object`)
  return Object.entries(map).flatMap(([key, value]) => {
    if (value === undefined || value === null) return []
    const values = Array.isArray(value) ? (value as Array<unknown>) : [value]
    return values.map((item) =>
      typeof item === "string" ? ([key, item] as const) : invalid(`${name}.${key} is not text`),
    )
  })
}

/** The multi-valued map when the event has one (it then holds every value), else the single-valued one. */
const eitherPairs = (fields: Fields, single: string, multi: string) =>
  isRecord(fields[multi]) ? pairs(fields, multi) : pairs(fields, single)

const toHeaders = (entries: ReadonlyArray<readonly [string, string]>): Headers => {
  const headers = new Headers()
  for (const [name, value] of entries) {
    try {
      headers.append(name, value)
    } catch {
      invalid(`malformed header ${JSON.stringify(name)}`)
    }
  }
  return headers
}

/** What each kind of event says, in one form. */
interface HttpParts {
  readonly method: string
  readonly routed: RoutedPath
  /** Percent-encoded, without the `?`. */
  readonly query: string
  readonly headers: Headers
  readonly domainName: string | undefined
}

const fromV1 = (event: Fields, context: Fields): HttpParts => {
  const path = text(event, "path")
  // Values arrive decoded: encoded again here.
  const query = new URLSearchParams()
  for (const [name, value] of eitherPairs(event, "queryStringParameters", "multiValueQueryStringParameters"))
    query.append(name, value)
  return {
    method: text(event, "httpMethod"),
    routed: { prefix: contextPrefix(path, optionalText(context, "path")), path },
    query: query.toString(),
    headers: toHeaders(eitherPairs(event, "headers", "multiValueHeaders")),
    domainName: optionalText(context, "domainName"),
  }
}

const fromV2 = (event: Fields, context: Fields): HttpParts => {
  const http = isRecord(context.http) ? context.http : invalid("missing requestContext.http")
  const stage = optionalText(context, "stage")
  const headers = toHeaders(pairs(event, "headers"))
  const cookies = event.cookies ?? []
  if (!Array.isArray(cookies) || cookies.some((cookie) => typeof cookie !== "string"))
    return invalid("cookies is not a list of strings")
  if (cookies.length > 0) headers.set("cookie", [headers.get("cookie"), ...cookies].filter(Boolean).join("; "))
  return {
    method: text(http, "method", "requestContext.http.method"),
    // `$default` is served at the root; a named stage is the first segment of the path.
    routed: stripLeading(
      { prefix: "", path: text(event, "rawPath") },
      stage && stage !== "$default" ? `/${stage}` : "",
    ),
    query: optionalText(event, "rawQueryString") ?? "",
    headers,
    domainName: optionalText(context, "domainName"),
  }
}

const fromAlb = (event: Fields): HttpParts => ({
  method: text(event, "httpMethod"),
  routed: { prefix: "", path: text(event, "path") },
  // Values arrive as the client encoded them: passed on as they are.
  query: eitherPairs(event, "queryStringParameters", "multiValueQueryStringParameters")
    .map(([name, value]) => `${name}=${value}`)
    .join("&"),
  headers: toHeaders(eitherPairs(event, "headers", "multiValueHeaders")),
  domainName: undefined,
})

const read = (shape: EventShape, event: Fields): HttpParts => {
  const context = event.requestContext as Fields
  if (shape === "apiGatewayV2") return fromV2(event, context)
  return shape === "apiGatewayV1" ? fromV1(event, context) : fromAlb(event)
}

/** Standard base64 with padding, as Lambda encodes bodies; Buffer alone would skip invalid characters silently. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const BODYLESS = new Set(["GET", "HEAD"])

const body = (event: Fields, method: string): Uint8Array | undefined => {
  const raw = optionalText(event, "body")
  if (raw === undefined || raw === "" || BODYLESS.has(method.toUpperCase())) return undefined
  if (event.isBase64Encoded !== true) return Buffer.from(raw)
  return BASE64.test(raw) ? Buffer.from(raw, "base64") : invalid("body is not valid base64")
}

/** A host (and port) and nothing more: no path, credentials or spaces that would change what the URL means. */
const plainHost = (host: string): boolean => {
  if (/[\s/\\?#@]/.test(host)) return false
  try {
    new URL(`http://${host}`)
    return true
  } catch {
    return false
  }
}

/** The scheme the client used: the one the load balancer or API Gateway reports, https unless it says http. */
const scheme = (headers: Headers): string =>
  headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "http" ? "http" : "https"

/** What the API is asked, whichever form it is handed over in (a web `Request`, or plain data for `handlePlain`). */
export interface RequestParts {
  readonly method: string
  readonly url: URL
  readonly headers: Headers
  readonly body: Uint8Array | undefined
}

const build = (parts: HttpParts, event: Fields, basePath: string): RequestParts => {
  const { method, query, headers } = parts
  const host = headers.get("host") ?? parts.domainName ?? "localhost"
  if (!plainHost(host)) return invalid(`host ${JSON.stringify(host)} cannot be part of a URL`)
  const { prefix, path } = stripLeading(parts.routed, basePath)
  if (!path.startsWith("/")) return invalid("path does not start with /")
  // The prefix is what was stripped here, and the host the one the client reached (API Gateway, the function URL or
  // the load balancer passes a client's own `X-Forwarded-Host` on): forwarded values of the client's would make the
  // API's links point elsewhere.
  headers.delete("x-forwarded-prefix")
  headers.delete("x-forwarded-host")
  if (prefix !== "") headers.set("x-forwarded-prefix", prefix)
  // `?` and `#` in a decoded path are part of it, not its end.
  const target = `${scheme(headers)}://${host}${path.replace(/[?#]/g, (c) => encodeURIComponent(c))}`
  let url: URL
  try {
    url = new URL(`${target}${query === "" ? "" : `?${query}`}`)
  } catch {
    return invalid("path or query cannot be part of a URL")
  }
  return { method, url, headers, body: body(event, method) }
}

/** The event's request, read once for both forms; an `InvalidEvent` when it is malformed. */
export const requestParts = (event: unknown, options: RequestOptions = {}): RequestParts | InvalidEvent => {
  const shape = eventShape(event)
  if (shape === undefined) return new InvalidEvent({ reason: "not an API Gateway, function URL or ALB event" })
  try {
    const fields = event as Fields
    return build(read(shape, fields), fields, normalizeBasePath(options.basePath))
  } catch (error) {
    if (error instanceof InvalidEvent) return error
    throw error
  }
}

export const webRequest = ({ method, url, headers, body: requestBody }: RequestParts): Request | InvalidEvent => {
  try {
    return new Request(url, {
      method,
      headers,
      // Node accepts a Buffer as a body; the DOM typings only know ArrayBuffer-backed views.
      ...(requestBody !== undefined ? { body: requestBody as unknown as BodyInit } : {}),
    })
  } catch {
    return new InvalidEvent({ reason: `method ${JSON.stringify(method)} is not supported` })
  }
}

/** The request as `handlePlain` takes it: the same URL, headers and body the web `Request` would carry. */
export const plainRequest = ({ method, url, headers, body }: RequestParts): PlainRequest => ({
  method,
  url: url.href,
  headers: Object.fromEntries(headers),
  // The event carries the body whole: read at once, within the route's limit.
  ...(method === "POST"
    ? { body: async (maxBytes: number) => ((body?.length ?? 0) > maxBytes ? "too-large" : (body ?? new Uint8Array())) }
    : {}),
})

export const toRequest = (event: unknown, options: RequestOptions = {}): Request | InvalidEvent => {
  const parts = requestParts(event, options)
  return parts instanceof InvalidEvent ? parts : webRequest(parts)
}
