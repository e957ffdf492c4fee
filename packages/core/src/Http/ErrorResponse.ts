/** Engine errors as HTTP responses: the status and codes of `ErrorCodes.ts` in Firecrawl's error envelope. */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Option } from "effect"
import { v7 as uuidv7 } from "uuid"
import { parameterError } from "../Domain/Decode.js"
import { mapError } from "../ErrorCodes.js"
import type { EngineError } from "../Errors.js"
import { QuotaExceeded, quotaStatus } from "../Tenants/Quotas.js"
import { Unauthorized } from "./Api.js"

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

/** 429 (or 402 for credits) in Firecrawl's envelope, with `Retry-After` when waiting helps. */
export const quotaResponse = (refusal: QuotaExceeded): HttpServerResponse.HttpServerResponse => {
  const [status, code] = quotaStatus[refusal.reason]
  return HttpServerResponse.unsafeJson(
    { success: false, code, error: refusal.message },
    { status, headers: refusal.retryAfter === undefined ? {} : { "retry-after": String(refusal.retryAfter) } },
  )
}

/**
 * The answer to a request that failed outside its handler: a refused key or limit and a malformed path or query
 * parameter in the envelope, nothing for a client that went away, a logged 500 for anything else.
 */
export const failureResponse = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof Unauthorized) {
    const { success, code, error } = failure.value
    return Effect.succeed(HttpServerResponse.unsafeJson({ success, code, error }, { status: 401 }))
  }
  if (Option.isSome(failure) && failure.value instanceof QuotaExceeded)
    return Effect.succeed(quotaResponse(failure.value))
  // Path and query parameters are decoded by the contract (`?limit=abc`): the caller's mistake, not a defect.
  if (Option.isSome(failure) && failure.value instanceof HttpApiError.HttpApiDecodeError)
    return Effect.succeed(errorResponse(parameterError(failure.value.issues)))
  // The client went away (the request's signal aborted): normal, and nobody is left to answer.
  if (Cause.isInterruptedOnly(cause))
    return Effect.as(
      Effect.logDebug("Request interrupted: the client went away"),
      HttpServerResponse.empty({ status: 499 }),
    )
  return defectResponse(cause)
}
