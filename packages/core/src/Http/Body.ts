/** Reading a JSON request body with a size cap; failures are the 400/413 of Firecrawl's body parser. */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { RequestError } from "../Errors.js"

/** Firecrawl's limit for JSON bodies. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024

const tooLarge = new RequestError({ reason: "BodyTooLarge", message: "Request body is too large" })
const malformed = new RequestError({ reason: "InvalidJson", message: "Bad request, malformed JSON" })

export const readJsonBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number = MAX_BODY_BYTES,
): Effect.Effect<unknown, RequestError> =>
  Effect.gen(function* () {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > maxBytes) return yield* tooLarge
    const text = yield* request.text.pipe(Effect.mapError(() => malformed))
    if (Buffer.byteLength(text) > maxBytes) return yield* tooLarge
    if (text.trim() === "") return {}
    return yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => malformed })
  })
