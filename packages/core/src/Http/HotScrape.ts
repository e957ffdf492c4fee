/**
 * `POST /v2/scrape` answered without the API's generic request path (see `HotRoutes.ts`): the router, the web
 * `Request`/`Response` pair, their body streams and the host's conversion to them cost ~1.5 ms of CPU per scrape of a
 * 100 KB page on one core, a seventh of it (bench/README.md, "Scrapes: the hot route").
 *
 * The answer is the API's: the same key check and limits, body limit and JSON errors, the same handler
 * (`ScrapeAnswer.ts`), the same envelope, request id, metrics, log line, CORS headers and server span. Only the
 * route's own path with no query is taken, and only from a host that gives the body; anything else is the API's.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Effect, FiberRef, Option } from "effect"
import type { JobControl } from "../Jobs/JobControl.js"
import type { Scrape } from "../Scrape.js"
import type { KeyRing } from "../Tenants/KeyRing.js"
import type { Quotas } from "../Tenants/Quotas.js"
import type { Usage } from "../Tenants/Usage.js"
import { Caller } from "./Api.js"
import * as Auth from "./Auth.js"
import { jsonOfBody } from "./Body.js"
import { ClientAddress } from "./ClientAddress.js"
import { failureResponse } from "./ErrorResponse.js"
import { type ObservedRequest, observed, REQUEST_ID_HEADER } from "./Observe.js"
import { bearerToken, type PlainRequest, type PlainResponse, pathAndQuery, toPlain } from "./Plain.js"
import { respond } from "./Respond.js"
import { makeScrapeAnswer } from "./ScrapeAnswer.js"
import type { ServerConfig } from "./ServerConfig.js"

const PATH = "/v2/scrape"
const SPAN_NAME = `POST ${PATH}`

/** A request the hot route takes: it has a body to read. */
type ScrapeRequest = PlainRequest & { readonly body: NonNullable<PlainRequest["body"]> }

/** Whether the hot route takes `request`. */
export const isHotScrape = (request: PlainRequest): request is ScrapeRequest =>
  request.method === "POST" && request.body !== undefined && pathAndQuery(request.url) === PATH

/**
 * The server span the API's tracing middleware makes for a request (`HttpMiddleware.tracer`): named by route, under
 * the caller's trace when its headers carry one, with the request's and the answer's attributes.
 */
const traced = <E, R>(
  request: PlainRequest,
  clientAddress: string | undefined,
  answer: Effect.Effect<PlainResponse, E, R>,
): Effect.Effect<PlainResponse, E, R> =>
  Effect.flatMap(FiberRef.get(Headers.currentRedactedNames), (redactedNames) => {
    const headers = Headers.unsafeFromRecord(request.headers as Record<string, string>)
    return Effect.useSpan(
      SPAN_NAME,
      {
        parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(headers)),
        kind: "server",
        captureStackTrace: false,
      },
      (span) => {
        const url = new URL(request.url)
        span.attribute("http.request.method", request.method)
        span.attribute("url.full", url.toString())
        span.attribute("url.path", url.pathname)
        span.attribute("url.scheme", url.protocol.slice(0, -1))
        if (headers["user-agent"] !== undefined) span.attribute("user_agent.original", headers["user-agent"])
        for (const [name, value] of Object.entries(Headers.redact(headers, redactedNames)))
          span.attribute(`http.request.header.${name}`, String(value))
        if (clientAddress !== undefined) span.attribute("client.address", clientAddress)
        return Effect.tap(Effect.withParentSpan(answer, span), (response) => {
          span.attribute("http.response.status_code", response.status)
          for (const [name, value] of Object.entries(
            Headers.redact(Headers.unsafeFromRecord(response.headers), redactedNames),
          ))
            span.attribute(`http.response.header.${name}`, String(value))
        })
      },
    )
  })

/** The answerer of `POST /v2/scrape` from plain data, over the services of the API. */
export const make = (options: {
  readonly cors: Readonly<Record<string, string>>
}): Effect.Effect<
  (request: ScrapeRequest, clientAddress: string | undefined) => Effect.Effect<PlainResponse>,
  never,
  JobControl | KeyRing | Quotas | Scrape | ServerConfig | Usage
> =>
  Effect.gen(function* () {
    const { authorize } = yield* Auth.makeAuthorize
    const scrapeAnswer = yield* makeScrapeAnswer
    return (request, clientAddress) => {
      const { headers } = request
      const asked: ObservedRequest = {
        method: request.method,
        pathname: PATH,
        requestId: headers[REQUEST_ID_HEADER],
        authorization: headers.authorization,
      }
      const answer = Effect.flatMap(authorize(asked, bearerToken(headers.authorization)), (caller) =>
        Effect.provideService(
          respond(Effect.flatMap(jsonOfBody(headers["content-length"], request.body), scrapeAnswer)),
          Caller,
          caller,
        ),
      ).pipe(Effect.catchAllCause(failureResponse))
      return traced(
        request,
        clientAddress,
        observed(
          asked,
          clientAddress === undefined ? answer : Effect.provideService(answer, ClientAddress, clientAddress),
        ).pipe(Effect.map((response) => toPlain(response, options.cors))),
      )
    }
  })
