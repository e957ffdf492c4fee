/**
 * The web handler's answerer of its hottest requests (status polls, scrapes) from plain data
 * (`WebHandler.handlePlain`): no web `Request` and `Response` to build, which cost more than the answer.
 */
import type { PlainRequest, PlainResponse } from "@webdata/core"

export type { PlainRequest, PlainResponse }

/** The answer to the requests it knows; undefined for the others, which go to the web handler. */
export type PlainHandlerFunction = (
  request: PlainRequest,
  origin?: { readonly clientAddress?: string | undefined },
) => PromiseLike<PlainResponse | undefined> | undefined
