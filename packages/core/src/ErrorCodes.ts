/**
 * The one place where engine errors get Firecrawl's status codes and error codes. Pure (no HTTP types), so that the
 * engine and the facade use it without loading the HTTP stack; `Http/ErrorResponse.ts` turns it into responses.
 */
import type { EngineError, LlmError, MapError, RequestError, ScrapeError, SearchError } from "./Errors.js"

export interface Mapped {
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
  Gone: [410, "GONE"],
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
  // 415 where Firecrawl answers 500: the file's type is the problem, and retrying will not help.
  UnsupportedContent: [415, "SCRAPE_UNSUPPORTED_FILE_ERROR"],
  ParseFailed: [422, "PARSE_FAILED"],
  NoCachedData: [404, "SCRAPE_NO_CACHED_DATA"],
  ActionFailed: [500, "SCRAPE_ACTION_ERROR"],
  EngineFailed: [500, "SCRAPE_ALL_ENGINES_FAILED"],
}

const mapStatus: Record<MapError["reason"], readonly [number, string]> = {
  Timeout: [408, "MAP_TIMEOUT"],
  Failed: [500, "MAP_FAILED"],
}

// 502/504: the server worked; the model behind it did not.
const llmStatus: Record<LlmError["reason"], readonly [number, string]> = {
  Unavailable: [502, "LLM_UNAVAILABLE"],
  Timeout: [504, "LLM_TIMEOUT"],
  ProviderError: [502, "LLM_PROVIDER_ERROR"],
  InvalidOutput: [502, "LLM_INVALID_OUTPUT"],
}

// Timeout is Firecrawl's 408; the rest are 502: the server worked, the provider behind it did not.
const searchStatus: Record<SearchError["reason"], readonly [number, string]> = {
  Timeout: [408, "SCRAPE_TIMEOUT"],
  Unavailable: [502, "SEARCH_UNAVAILABLE"],
  Refused: [502, "SEARCH_REFUSED"],
  RateLimited: [502, "SEARCH_RATE_LIMITED"],
  InvalidResponse: [502, "SEARCH_INVALID_RESPONSE"],
  Unsupported: [400, "SEARCH_SOURCE_UNSUPPORTED"],
}

const statusOf = (error: EngineError): readonly [number, string] => {
  switch (error._tag) {
    case "RequestError":
      return requestStatus[error.reason]
    case "ScrapeError":
      return scrapeStatus[error.reason]
    case "MapError":
      return mapStatus[error.reason]
    case "LlmError":
      return llmStatus[error.reason]
    case "SearchError":
      return searchStatus[error.reason]
  }
}

/** What a refused private or intranet target needs, in a server and in the library. */
export const PRIVATE_TARGETS_OPT_IN =
  "Private, loopback and intranet targets are refused unless allowed: WEBDATA_ALLOW_PRIVATE_ADDRESSES=1 (server) or allowPrivateAddresses: true (library); WEBDATA_ALLOWED_TARGETS / allowedTargets allow single hosts and ranges."

/** The message a caller sees: a refused address also says how to allow it (a refused scheme cannot be allowed). */
const messageOf = (error: EngineError): string =>
  error._tag === "ScrapeError" && error.reason === "BlockedAddress" && !error.message.includes("only http and https")
    ? `${error.message}. ${PRIVATE_TARGETS_OPT_IN}`
    : error.message

export const mapError = (error: EngineError): Mapped => {
  const [status, code] = statusOf(error)
  return { status, code: (error._tag === "RequestError" ? error.code : undefined) ?? code, message: messageOf(error) }
}
