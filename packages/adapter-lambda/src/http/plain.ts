/**
 * The web handler's answerer of its hottest requests (status polls) from plain data (`WebHandler.handlePlain`): no web
 * `Request` and `Response` to build, which cost more than the answer. Typed here, like `WebHandlerFunction`, so that
 * any handler of that form fits.
 */

/** A request as `handlePlain` takes it: the absolute URL, and the headers with lower-case names. */
export interface PlainRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
}

export interface PlainResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | string
}

/** The answer to the requests it knows; undefined for the others, which go to the web handler. */
export type PlainHandlerFunction = (
  request: PlainRequest,
  origin?: { readonly clientAddress?: string | undefined },
) => PromiseLike<PlainResponse | undefined> | undefined
