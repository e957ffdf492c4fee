/**
 * The status polls, `GET /v2/crawl/{id}` and `GET /v2/batch/scrape/{id}`, answered without the API's generic request
 * path: every client of a job polls it, so they are most of a busy server's requests. HttpApi's router and a web
 * `Request`/`Response` pair cost ~0.5 ms of CPU per request on a small machine, several times the status read itself
 * (bench/README.md, "Server under load"); here a host hands the request over as plain data and gets the answer back
 * as plain data.
 *
 * The answer is the API's: the same key check and limits (`Auth.makeAuthorize`), the same status body, the same
 * envelope for errors, the same request id, metrics and log line (`Observe.observed`), the same CORS headers. A
 * request with anything unusual (another query parameter, a malformed number, a path that is not a UUID) is left to
 * the API, which answers it as it answers every request.
 */
import type { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import type { JobControl } from "../Jobs/JobControl.js"
import type { JobKind } from "../Jobs/JobStore.js"
import type { KeyRing } from "../Tenants/KeyRing.js"
import type { Quotas } from "../Tenants/Quotas.js"
import { Caller } from "./Api.js"
import * as Auth from "./Auth.js"
import { ClientAddress } from "./ClientAddress.js"
import { failureResponse } from "./ErrorResponse.js"
import { jobStatus } from "./JobHandlers.js"
import { observed, REQUEST_ID_HEADER } from "./Observe.js"
import { publicBaseOf } from "./PublicUrl.js"
import type { ServerConfig } from "./ServerConfig.js"

/** A request as a host has it before building a web `Request`. */
export interface PlainRequest {
  readonly method: string
  /** The absolute URL, on the connection's scheme and the `Host` the client sent. */
  readonly url: string
  /** Lower-case names, as Node gives them; forwarding headers only from proxies the host trusts. */
  readonly headers: Readonly<Record<string, string | undefined>>
}

export interface PlainResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | string
}

/** A status poll: the kind of job, its id, and the page asked for. */
interface StatusPoll {
  readonly kind: JobKind
  readonly id: string
  readonly skip: number | undefined
  readonly limit: number | undefined
}

const STATUS_PATH =
  /^\/v2\/(crawl|batch\/scrape)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\?(.*))?$/i
const PAGE_PARAMETER = /^(skip|limit)=(\d{1,9})$/

/** The path and query of an absolute URL, without parsing it whole (the host built it). */
const pathAndQuery = (url: string): string => {
  const start = url.indexOf("/", url.indexOf("//") + 2)
  return start < 0 ? "/" : url.slice(start)
}

/** The status poll `request` is, when it is a plain one (else the API answers it). */
export const statusPoll = (request: PlainRequest): StatusPoll | undefined => {
  if (request.method !== "GET") return undefined
  const match = STATUS_PATH.exec(pathAndQuery(request.url))
  if (match === null) return undefined
  const page: { skip?: number; limit?: number } = {}
  for (const parameter of match[3] === undefined || match[3] === "" ? [] : match[3].split("&")) {
    const found = PAGE_PARAMETER.exec(parameter)
    if (found === null || page[found[1] as "skip" | "limit"] !== undefined) return undefined
    page[found[1] as "skip" | "limit"] = Number(found[2])
  }
  return { kind: match[1] === "crawl" ? "crawl" : "batch", id: match[2] as string, skip: page.skip, limit: page.limit }
}

const bearerToken = (authorization: string | undefined): string =>
  /^\s*bearer\s+(.*)$/i.exec(authorization ?? "")?.[1] ?? ""

/** The headers the API's CORS middleware adds to an answer of a request that is not a preflight. */
export const corsHeaders = (exposedHeaders: ReadonlyArray<string>): Readonly<Record<string, string>> => ({
  "access-control-allow-origin": "*",
  "access-control-expose-headers": exposedHeaders.join(","),
})

const toPlain = (
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

/** Answers a hot route's request; undefined when the request is not one (the API answers it). */
export type AnswerHot = (
  request: PlainRequest,
  clientAddress: string | undefined,
) => Effect.Effect<PlainResponse, never, JobControl> | undefined

/** The answerer of the hot routes, over the services of the API. */
export const make = (options: {
  readonly exposedHeaders: ReadonlyArray<string>
}): Effect.Effect<AnswerHot, never, KeyRing | Quotas | ServerConfig> =>
  Effect.map(Auth.makeAuthorize, ({ authorize }): AnswerHot => {
    const cors = corsHeaders(options.exposedHeaders)
    return (request, clientAddress) => {
      const poll = statusPoll(request)
      if (poll === undefined) return undefined
      const { headers } = request
      const pathname = pathAndQuery(request.url).replace(/\?.*$/, "")
      const respond = Effect.flatMap(
        authorize(
          { method: "GET", pathname, authorization: headers.authorization },
          bearerToken(headers.authorization),
        ),
        (caller) =>
          Effect.provideService(
            jobStatus(poll.kind, poll.id, () => publicBaseOf(headers, request.url), poll.skip, poll.limit),
            Caller,
            caller,
          ),
      ).pipe(Effect.catchAllCause(failureResponse))
      return observed(
        {
          method: request.method,
          pathname,
          requestId: headers[REQUEST_ID_HEADER],
          authorization: headers.authorization,
        },
        clientAddress === undefined ? respond : Effect.provideService(respond, ClientAddress, clientAddress),
      ).pipe(Effect.map((response) => toPlain(response, cors)))
    }
  })
