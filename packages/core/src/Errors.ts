/**
 * The error family of the engine. Every failure that crosses a service boundary is one of these tagged errors; the
 * HTTP layer maps them to Firecrawl's status codes and envelopes in one place (`Http/ErrorResponse.ts`).
 */
import { Schema } from "effect"

/** A request the caller must fix: bad body, unsupported option, missing auth, unknown job. */
export class RequestError extends Schema.TaggedError<RequestError>()("RequestError", {
  reason: Schema.Literal(
    "InvalidJson",
    "Validation",
    "BodyTooLarge",
    "Unsupported",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    /** What the request names existed and has ended (a destroyed session). */
    "Gone",
    "RateLimited",
  ),
  message: Schema.String,
  /** Machine-readable code for the envelope (for example `SCRAPE_ACTIONS_NOT_SUPPORTED`); defaults per reason. */
  code: Schema.optional(Schema.String),
  /** Zod-like issue list for validation errors, as Firecrawl's clients expect. */
  details: Schema.optional(Schema.Unknown),
}) {}

/** A scrape that could not produce a document. */
export class ScrapeError extends Schema.TaggedError<ScrapeError>()("ScrapeError", {
  reason: Schema.Literal(
    /** The whole scrape exceeded its `timeout`. */
    "Timeout",
    /** The host name did not resolve. */
    "DnsResolution",
    /** The URL guard refused the target (private, loopback, metadata address or a scheme other than http/https). */
    "BlockedAddress",
    /** TLS handshake or certificate failure. */
    "Tls",
    /** Connection refused, reset, or closed before a response. */
    "Connection",
    /** More redirects than allowed, or a redirect loop. */
    "TooManyRedirects",
    /** The body (compressed or decompressed) exceeded its cap. */
    "ResponseTooLarge",
    /** The response is of a type this engine cannot turn into a document. */
    "UnsupportedContent",
    /** A file of a supported type that cannot be read: corrupt, encrypted, or larger than allowed once unpacked. */
    "ParseFailed",
    /** `minAge` asked for a cached copy and there is none. */
    "NoCachedData",
    /** A browser action failed (its selector matched nothing, its script threw, ...). */
    "ActionFailed",
    /** Anything else that went wrong in an engine. */
    "EngineFailed",
  ),
  message: Schema.String,
  url: Schema.optional(Schema.String),
}) {
  /** Whether trying the same request again may succeed (used by job retries). */
  get isRetryable(): boolean {
    return this.reason === "Timeout" || this.reason === "Connection" || this.reason === "EngineFailed"
  }
}

/** A map that could not produce its list of links. */
export class MapError extends Schema.TaggedError<MapError>()("MapError", {
  reason: Schema.Literal(
    /** The map's `timeout` passed before any link was found. */
    "Timeout",
    /** The site could not be mapped at all (its start page unreachable and no sitemap). */
    "Failed",
  ),
  message: Schema.String,
}) {}

/** A language model that could not give what was asked of it. */
export class LlmError extends Schema.TaggedError<LlmError>()("LlmError", {
  reason: Schema.Literal(
    /** The provider could not be reached, or answered 5xx / 429 after retries. */
    "Unavailable",
    /** The provider did not answer within the time allowed. */
    "Timeout",
    /** The provider refused the request (4xx: a bad key, an unknown model, a request it does not support). */
    "ProviderError",
    /** The model's answer did not validate against the schema, even after it was shown its mistakes. */
    "InvalidOutput",
  ),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect),
}) {}

/** A web search that could not be answered (see `Search/SearchProvider.ts`). */
export class SearchError extends Schema.TaggedError<SearchError>()("SearchError", {
  reason: Schema.Literal(
    /** Not reachable, or it answered a server error. */
    "Unavailable",
    /** No answer within the query's budget. */
    "Timeout",
    /** It refused the request: a bad or missing key, a blocked client, a captcha. */
    "Refused",
    /** 429, or the provider's own rate limit. */
    "RateLimited",
    /** An answer that is not the provider's format. */
    "InvalidResponse",
    /** The provider has no such source (DuckDuckGo has no news, the local index no images). */
    "Unsupported",
  ),
  message: Schema.String,
}) {}

export type EngineError = RequestError | ScrapeError | MapError | LlmError | SearchError
