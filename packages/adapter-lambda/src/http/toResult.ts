/**
 * A web `Response` as the result the event's integration expects: API Gateway REST (v1), HTTP API and function URLs
 * (v2) or ALB, and within Lambda's limit for buffered responses.
 */
import { STATUS_CODES } from "node:http"
import { encodeBody } from "./bodyEncoding.js"
import { tooLarge } from "./envelope.js"
import { type EventShape, eventShape } from "./eventShape.js"
import type { LambdaHttpResult } from "./events.js"

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

const shaped = async (shape: EventShape | undefined, response: Response): Promise<LambdaHttpResult> => {
  const { body, isBase64Encoded } = await encodeBody(response)
  const statusCode = response.status
  const headers = singleHeaders(response.headers)
  const cookies = response.headers.getSetCookie()
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

export const toResult = async (
  response: Response,
  event: unknown,
  options: ResultOptions = {},
): Promise<LambdaHttpResult> => {
  const shape = eventShape(event)
  const result = await shaped(shape, response)
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const size = Buffer.byteLength(JSON.stringify(result))
  return size <= limit ? result : shaped(shape, tooLarge(size, limit))
}
