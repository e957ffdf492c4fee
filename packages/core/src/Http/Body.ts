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
    return yield* jsonOfText(yield* request.text.pipe(Effect.mapError(() => malformed)), maxBytes)
  })

const utf8 = new TextDecoder()

/** The value of a request body's text, as `readJsonBody` reads it: nothing sent is `{}`. */
export const jsonOfText = (text: string, maxBytes: number = MAX_BODY_BYTES): Effect.Effect<unknown, RequestError> => {
  if (Buffer.byteLength(text) > maxBytes) return Effect.fail(tooLarge)
  if (text.trim() === "") return Effect.succeed({})
  return Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => malformed })
}

/** A body the host read of a request with `declaredLength` (its `content-length`), as `readJsonBody` reads it. */
export const jsonOfBody = (
  declaredLength: string | undefined,
  read: (maxBytes: number) => Promise<Uint8Array | "too-large">,
  maxBytes: number = MAX_BODY_BYTES,
): Effect.Effect<unknown, RequestError> =>
  Number(declaredLength ?? "0") > maxBytes
    ? Effect.fail(tooLarge)
    : Effect.flatMap(Effect.tryPromise({ try: () => read(maxBytes), catch: () => malformed }), (bytes) =>
        bytes === "too-large" ? Effect.fail(tooLarge) : jsonOfText(utf8.decode(bytes), maxBytes),
      )
