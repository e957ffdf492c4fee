/** A web handler as a buffered Lambda HTTP handler: the whole response goes back in one result. */
import { clientAddress } from "./clientAddress.js"
import { badRequest, internalError } from "./envelope.js"
import type { LambdaHttpEvent, LambdaHttpResult } from "./events.js"
import type { PlainHandlerFunction } from "./plain.js"
import {
  InvalidEvent,
  plainRequest,
  type RequestOptions,
  type RequestParts,
  requestParts,
  webRequest,
} from "./toRequest.js"
import { plainToResult, type ResultOptions, toResult } from "./toResult.js"

/** A web handler; the second argument tells it the client's address (see `clientAddress`). */
export type WebHandlerFunction = (
  request: Request,
  origin?: { readonly clientAddress?: string | undefined },
) => Promise<Response>

export interface HttpHandlerOptions extends RequestOptions, ResultOptions {
  /**
   * Answers the requests it knows (status polls, scrapes) without a web `Request` and `Response`, which cost more than
   * the answer; the others go to the web handler.
   */
  readonly handlePlain?: PlainHandlerFunction
}

export type LambdaHttpHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>

type Origin = Parameters<WebHandlerFunction>[1]

/** What `handlePlain` may take: a GET (a status poll) or a POST (a scrape). */
const PLAIN_METHODS = new Set(["GET", "POST"])

/** `handlePlain`'s answer; undefined when there is none (another method, a request it does not take). */
export const plainAnswer = (parts: RequestParts, origin: Origin, handlePlain: PlainHandlerFunction | undefined) =>
  PLAIN_METHODS.has(parts.method) && handlePlain !== undefined ? handlePlain(plainRequest(parts), origin) : undefined

export const fromWebHandler =
  (handler: WebHandlerFunction, options: HttpHandlerOptions = {}): LambdaHttpHandler =>
  async (event) => {
    const parts = requestParts(event, options)
    if (parts instanceof InvalidEvent) return toResult(badRequest(parts.reason), event, options)
    const origin = { clientAddress: clientAddress(event) }
    try {
      const plain = await plainAnswer(parts, origin, options.handlePlain)
      if (plain !== undefined) return await plainToResult(plain, event, options)
      const request = webRequest(parts)
      if (request instanceof InvalidEvent) return toResult(badRequest(request.reason), event, options)
      return await toResult(await handler(request, origin), event, options)
    } catch (error) {
      // Thrown by either handler or while reading the body it answered.
      return toResult(internalError(error), event, options)
    }
  }
