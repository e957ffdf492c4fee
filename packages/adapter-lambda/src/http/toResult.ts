/**
 * A web `Response`, or a plain answer of `handlePlain`, as the result the event's integration expects: API Gateway
 * REST (v1), HTTP API and function URLs (v2) or ALB, and within Lambda's limit for buffered responses.
 */
import { STATUS_CODES } from "node:http"
import { type EncodedBody, encodeBody, encodeBytes } from "./bodyEncoding.js"
import { tooLarge } from "./envelope.js"
import { type EventShape, eventShape } from "./eventShape.js"
import type { LambdaHttpResult } from "./events.js"
import type { PlainResponse } from "./plain.js"

export interface ResultOptions {
  /**
   * The largest result, as the JSON Lambda sends (headers and encoded body); larger ones answer 502
   * `RESPONSE_TOO_LARGE` instead of failing in the runtime. Default 6 000 000: Lambda refuses results over 6 291 556
   * bytes (6 MiB + 100).
   */
  readonly maxResponseBytes?: number
}

export const DEFAULT_MAX_RESPONSE_BYTES = 6_000_000

/** Every header but `Set-Cookie`, repeated ones comma-joined; each integration carries cookies its own way. */
export const singleHeaders = (headers: Headers): Record<string, string> => {
  const single: Record<string, string> = {}
  for (const [name, value] of headers) if (name !== "set-cookie") single[name] = value
  return single
}

/** What precedes the body, in the form every integration (and a streamed response's prelude) starts from. */
export interface ResultHead {
  readonly statusCode: number
  /** Lower-case names, without `Set-Cookie`. */
  readonly headers: Record<string, string>
  readonly cookies: ReadonlyArray<string>
}

export const responseHead = (response: Response): ResultHead => ({
  statusCode: response.status,
  headers: singleHeaders(response.headers),
  cookies: response.headers.getSetCookie(),
})

/** A plain answer's head as `responseHead` gives a `Response`'s; a map holds at most one `Set-Cookie`. */
export const plainHead = (plain: PlainResponse): ResultHead => {
  const headers: Record<string, string> = {}
  const cookies: Array<string> = []
  for (const [name, value] of Object.entries(plain.headers)) {
    const lower = name.toLowerCase()
    if (lower === "set-cookie") cookies.push(value)
    else headers[lower] = value
  }
  return { statusCode: plain.status, headers, cookies }
}

/** A plain answer's body as bytes, as a `Response` would carry it. */
export const plainBytes = (plain: PlainResponse): Uint8Array =>
  typeof plain.body === "string" ? Buffer.from(plain.body) : plain.body

const shaped = (shape: EventShape | undefined, head: ResultHead, encoded: EncodedBody): LambdaHttpResult => {
  const { statusCode, headers, cookies } = head
  const { body, isBase64Encoded } = encoded
  const statusDescription = `${statusCode} ${STATUS_CODES[statusCode] ?? "Unknown"}`
  switch (shape) {
    case "apiGatewayV1":
      return {
        statusCode,
        headers,
        multiValueHeaders: cookies.length > 0 ? { "set-cookie": cookies } : {},
        body,
        isBase64Encoded,
      }
    case "apiGatewayV2":
      return { statusCode, headers, cookies, body, isBase64Encoded }
    case "albMultiValue": {
      const multiValueHeaders: Record<string, ReadonlyArray<string>> = {}
      for (const [name, value] of Object.entries(headers)) multiValueHeaders[name] = [value]
      if (cookies.length > 0) multiValueHeaders["set-cookie"] = cookies
      return { statusCode, statusDescription, multiValueHeaders, body, isBase64Encoded }
    }
    case "alb": {
      // One value per name: only the first cookie fits (multi-value headers on the target group carry them all).
      const [cookie] = cookies
      return {
        statusCode,
        statusDescription,
        headers: cookie !== undefined ? { ...headers, "set-cookie": cookie } : headers,
        body,
        isBase64Encoded,
      }
    }
    case undefined:
      return { statusCode, headers, body, isBase64Encoded }
  }
}

const encodedResponse = async (response: Response) => ({
  head: responseHead(response),
  encoded: await encodeBody(response),
})

/** The result in the event's shape, or the 502 that says it is over the limit. */
const fitted = async (
  head: ResultHead,
  encoded: EncodedBody,
  event: unknown,
  options: ResultOptions,
): Promise<LambdaHttpResult> => {
  const shape = eventShape(event)
  const result = shaped(shape, head, encoded)
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const size = Buffer.byteLength(JSON.stringify(result))
  if (size <= limit) return result
  const refusal = await encodedResponse(tooLarge(size, limit))
  return shaped(shape, refusal.head, refusal.encoded)
}

export const toResult = async (
  response: Response,
  event: unknown,
  options: ResultOptions = {},
): Promise<LambdaHttpResult> => {
  const { head, encoded } = await encodedResponse(response)
  return fitted(head, encoded, event, options)
}

/** A plain answer (`handlePlain`'s) as the result `toResult` gives for the same `Response`. */
export const plainToResult = (
  plain: PlainResponse,
  event: unknown,
  options: ResultOptions = {},
): Promise<LambdaHttpResult> => {
  const head = plainHead(plain)
  return fitted(head, encodeBytes(plainBytes(plain), head.headers["content-type"]), event, options)
}
