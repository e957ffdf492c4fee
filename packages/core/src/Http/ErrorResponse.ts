/** The one place where engine errors become HTTP statuses and Firecrawl's error envelope. */
import { HttpServerResponse } from "@effect/platform"
import { type Cause, Effect } from "effect"
import { v7 as uuidv7 } from "uuid"
import type { EngineError, MapError, RequestError, ScrapeError } from "../Errors.js"

interface Mapped {
  readonly status: number
  readonly code: string
  readonly message: string
}

const requestStatus: Record<RequestError["reason"], readonly [number, string]> = {
  InvalidJson: [400, "BAD_REQUEST_INVALID_JSON"],
  Validation: [400, "BAD_REQUEST"],
  BodyTooLarge: [413, "PAYLOAD_TOO_LARGE"],
  Unsupported: [400, "BAD_REQUEST"],
  Unauthorized: [401, "UNAUTHORIZED"],
  Forbidden: [403, "FORBIDDEN"],
  NotFound: [404, "NOT_FOUND"],
  Conflict: [409, "CONFLICT"],
  RateLimited: [429, "RATE_LIMITED"],
}

// DNS failures answer 200 with `success: false`, as Firecrawl's current API does; its clients expect that.
const scrapeStatus: Record<ScrapeError["reason"], readonly [number, string]> = {
  Timeout: [408, "SCRAPE_TIMEOUT"],
  DnsResolution: [200, "SCRAPE_DNS_RESOLUTION_ERROR"],
  BlockedAddress: [403, "SCRAPE_BLOCKED_ADDRESS"],
  Tls: [500, "SCRAPE_SSL_ERROR"],
  Connection: [500, "SCRAPE_SITE_ERROR"],
  TooManyRedirects: [500, "SCRAPE_TOO_MANY_REDIRECTS"],
  ResponseTooLarge: [500, "SCRAPE_RESPONSE_TOO_LARGE"],
  UnsupportedContent: [500, "SCRAPE_UNSUPPORTED_FILE_ERROR"],
  NoCachedData: [404, "SCRAPE_NO_CACHED_DATA"],
  EngineFailed: [500, "SCRAPE_ALL_ENGINES_FAILED"],
}

const mapStatus: Record<MapError["reason"], readonly [number, string]> = {
  Timeout: [408, "MAP_TIMEOUT"],
  Failed: [500, "MAP_FAILED"],
}

const statusOf = (error: EngineError): readonly [number, string] => {
  switch (error._tag) {
    case "RequestError":
      return requestStatus[error.reason]
    case "ScrapeError":
      return scrapeStatus[error.reason]
    case "MapError":
      return mapStatus[error.reason]
  }
}

export const mapError = (error: EngineError): Mapped => {
  const [status, code] = statusOf(error)
  return { status, code: (error._tag === "RequestError" ? error.code : undefined) ?? code, message: error.message }
}

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
