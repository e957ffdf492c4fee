/**
 * v1's error body is v2's envelope (`{ success: false, code?, error, details? }`); only the message of an unknown
 * body key names the API version whose documentation to review.
 */
import { RequestError } from "../Errors.js"

const V2_DOCS = "the v2 API documentation"
const V1_DOCS = "the v1 API documentation"

/** A v2 failure as the v1 route reports it. */
export const toV1Error = <E>(error: E): E | RequestError =>
  error instanceof RequestError && error.message.includes(V2_DOCS)
    ? new RequestError({
        reason: error.reason,
        message: error.message.replace(V2_DOCS, V1_DOCS),
        ...(error.code !== undefined ? { code: error.code } : {}),
        ...(error.details !== undefined ? { details: error.details } : {}),
      })
    : error

/** A 400 of a v1 rule that v2 does not have (its body is v2's validation shape). */
export const v1ValidationError = (message: string, path: ReadonlyArray<PropertyKey> = []): RequestError =>
  new RequestError({
    reason: "Validation",
    code: "BAD_REQUEST",
    message,
    details: [{ code: "custom", path, message }],
  })
