/**
 * A request and its answer as plain data, for the routes a host hands over without building a web `Request` and
 * `Response` (`HotRoutes.ts`): what they share with each other and with the API's answers.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** A request as a host has it before building a web `Request`. */
export interface PlainRequest {
  readonly method: string
  /** The absolute URL, on the connection's scheme and the `Host` the client sent. */
  readonly url: string
  /** Lower-case names, as Node gives them; forwarding headers only from proxies the host trusts. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /**
   * Reads the body, at most `maxBytes` of it (else "too-large", without holding more); a host that does not give it
   * leaves requests with a body to the API. Read only by a route that takes the request.
   */
  readonly body?: ((maxBytes: number) => Promise<Uint8Array | "too-large">) | undefined
  /** Aborts when the client goes away: the answer's work stops, as the API's does. */
  readonly signal?: AbortSignal | undefined
}

export interface PlainResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | string
}

/** The answer to a client that went away (as the API's path logs it: 499); nobody reads it. */
export const CLIENT_GONE: PlainResponse = { status: 499, headers: {}, body: "" }

/** The path and query of an absolute URL, without parsing it whole (the host built it). */
export const pathAndQuery = (url: string): string => {
  const start = url.indexOf("/", url.indexOf("//") + 2)
  return start < 0 ? "/" : url.slice(start)
}

export const bearerToken = (authorization: string | undefined): string =>
  /^\s*bearer\s+(.*)$/i.exec(authorization ?? "")?.[1] ?? ""

/** The headers the API's CORS middleware adds to an answer of a request that is not a preflight. */
export const corsHeaders = (exposedHeaders: ReadonlyArray<string>): Readonly<Record<string, string>> => ({
  "access-control-allow-origin": "*",
  "access-control-expose-headers": exposedHeaders.join(","),
})

/** An answer of the API's handlers as plain data, with `extra` headers. */
export const toPlain = (
  response: HttpServerResponse.HttpServerResponse,
  extra: Readonly<Record<string, string>>,
): PlainResponse => {
  const { body } = response
  // The answers here are JSON or empty (a 499); no stream or form.
  const content = body._tag === "Uint8Array" ? body.body : ""
  return {
    status: response.status,
    headers: {
      ...(body._tag === "Uint8Array" ? { "content-type": body.contentType } : {}),
      ...response.headers,
      ...extra,
    },
    body: content,
  }
}
