/** A web handler as a buffered Lambda HTTP handler: the whole response goes back in one result. */
import { clientAddress } from "./clientAddress.js"
import { badRequest, internalError } from "./envelope.js"
import type { LambdaHttpEvent, LambdaHttpResult } from "./events.js"
import { InvalidEvent, type RequestOptions, toRequest } from "./toRequest.js"
import { type ResultOptions, toResult } from "./toResult.js"

/** A web handler; the second argument tells it the client's address (see `clientAddress`). */
export type WebHandlerFunction = (
  request: Request,
  origin?: { readonly clientAddress?: string | undefined },
) => Promise<Response>

export interface HttpHandlerOptions extends RequestOptions, ResultOptions {}

export type LambdaHttpHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>

export const fromWebHandler =
  (handler: WebHandlerFunction, options: HttpHandlerOptions = {}): LambdaHttpHandler =>
  async (event) => {
    const request = toRequest(event, options)
    if (request instanceof InvalidEvent) return toResult(badRequest(request.reason), event, options)
    try {
      return await toResult(await handler(request, { clientAddress: clientAddress(event) }), event, options)
    } catch (error) {
      // Thrown by the handler or while reading the body it answered.
      return toResult(internalError(error), event, options)
    }
  }
