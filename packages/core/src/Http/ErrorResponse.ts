/** Engine errors as HTTP responses: the status and codes of `ErrorCodes.ts` in Firecrawl's error envelope. */
import { HttpServerResponse } from "@effect/platform"
import { type Cause, Effect } from "effect"
import { v7 as uuidv7 } from "uuid"
import { mapError } from "../ErrorCodes.js"
import type { EngineError } from "../Errors.js"

export const errorResponse = (error: EngineError): HttpServerResponse.HttpServerResponse => {
  const { status, code, message } = mapError(error)
  const details = error._tag === "RequestError" ? error.details : undefined
  return HttpServerResponse.unsafeJson(
    { success: false, code, error: message, ...(details !== undefined ? { details } : {}) },
    { status },
  )
}

/** A bug or an unexpected failure: logged with an id the caller can quote, never leaked. */
export const defectResponse = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const id = uuidv7()
  return Effect.logError(`Unhandled error ${id}`, cause).pipe(
    Effect.as(
      HttpServerResponse.unsafeJson(
        {
          success: false,
          code: "UNKNOWN_ERROR",
          error: `An error occurred. Please check your logs for more details. Error ID: ${id}`,
        },
        { status: 500 },
      ),
    ),
  )
}
