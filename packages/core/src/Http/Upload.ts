/**
 * Reading a multipart upload (`file` and `options`) with a size cap that holds while the body streams in: a body
 * past the cap is answered 413 as soon as it crosses it, without reading the rest (a declared length past it, at
 * once).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Chunk, Effect, Stream } from "effect"
import { RequestError } from "../Errors.js"
import type { UploadedFile } from "../Parse.js"

export interface Upload {
  readonly file: UploadedFile
  readonly options: string | undefined
}

const invalid = (message: string) => new RequestError({ reason: "Validation", code: "BAD_REQUEST", message })

export const readUpload = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
): Effect.Effect<Upload, RequestError> =>
  Effect.gen(function* () {
    const tooLarge = new RequestError({
      reason: "BodyTooLarge",
      message: `The upload is larger than the ${maxBytes} bytes allowed (WEBDATA_MAX_UPLOAD_BYTES).`,
    })
    const contentType = request.headers["content-type"] ?? ""
    if (!/^multipart\/form-data/i.test(contentType))
      return yield* invalid("Invalid multipart form-data request: send the file as the multipart field `file`.")
    if (Number(request.headers["content-length"] ?? "0") > maxBytes) return yield* tooLarge
    let received = 0
    const chunks = yield* request.stream.pipe(
      Stream.mapError(() => invalid("The upload could not be read.")),
      Stream.mapEffect((chunk) => {
        received += chunk.length
        return received > maxBytes ? Effect.fail(tooLarge) : Effect.succeed(chunk)
      }),
      Stream.runCollect,
    )
    const form = yield* Effect.tryPromise({
      try: () =>
        new Response(Buffer.concat(Chunk.toArray(chunks)), { headers: { "content-type": contentType } }).formData(),
      catch: () => invalid("Invalid multipart form-data request."),
    })
    const file = form.get("file")
    if (file === null || typeof file === "string")
      return yield* invalid("The multipart field `file` is missing or is not a file.")
    const options = form.get("options")
    return {
      file: {
        bytes: new Uint8Array(yield* Effect.promise(() => file.arrayBuffer())),
        name: file.name || "upload",
        contentType: file.type || undefined,
      },
      options:
        typeof options === "string"
          ? options
          : options === null
            ? undefined
            : yield* Effect.promise(() => options.text()),
    }
  })
