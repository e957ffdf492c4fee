/**
 * `POST /v2/scrape` answered without the API's generic request path (see `HotRoutes.ts`): the router, the web
 * `Request`/`Response` pair, their body streams and the host's conversion to them cost ~1.5 ms of CPU per scrape of a
 * 100 KB page on one core, a seventh of it (bench/README.md, "Scrapes: the hot route").
 *
 * The answer is the API's: the same key check and limits, body limit and JSON errors, the same handler
 * (`ScrapeAnswer.ts`), the same envelope, request id, metrics, log line, CORS headers and server span. Only the
 * route's own path with no query is taken, and only from a host that gives the body; anything else is the API's.
 *
 * A caller known without the store (an open server, a fixed key with no limit to count for a scrape: `authorizeNow`) is
 * answered on a runtime made for the request, its caller, client address, request record and log annotation set
 * before its fiber starts, and observed in plain code after it: the effects that set them one by one, the key check's
 * and the observation's own were ~130 of a scrape's ~600 operations of Effect's runtime (bench/README.md, "Scrapes:
 * the request's own runtime"). Every other caller goes through `authorize` and `observed`.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Cause, Context, Effect, Exit, FiberId, FiberRef, FiberRefs, HashMap, Option, Runtime } from "effect"
import type { JobControl } from "../Jobs/JobControl.js"
import * as RequestLog from "../Observability/RequestLog.js"
import type { Scrape } from "../Scrape.js"
import type { KeyRing } from "../Tenants/KeyRing.js"
import type { Quotas } from "../Tenants/Quotas.js"
import type { Usage } from "../Tenants/Usage.js"
import { Caller, type CallerShape } from "./Api.js"
import * as Auth from "./Auth.js"
import { jsonOfBody } from "./Body.js"
import { ClientAddress } from "./ClientAddress.js"
import { failureResponse } from "./ErrorResponse.js"
import {
  type Answered,
  type ObservedRequest,
  observed,
  REQUEST_ID_HEADER,
  requestIdOf,
  withRequestId,
} from "./Observe.js"
import { bearerToken, CLIENT_GONE, type PlainRequest, type PlainResponse, pathAndQuery, toPlain } from "./Plain.js"
import { respond } from "./Respond.js"
import { templateOf } from "./Routes.js"
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
  /** `observed`'s count and log line, in plain code (`Observe.makeObserveNow`). */
  readonly observeNow: (request: ObservedRequest, answered: Answered) => void
}): Effect.Effect<
  (request: ScrapeRequest, clientAddress: string | undefined) => Effect.Effect<PlainResponse> | Promise<PlainResponse>,
  never,
  JobControl | KeyRing | Quotas | Scrape | ServerConfig | Usage
> =>
  Effect.gen(function* () {
    const { authorize, authorizeNow } = yield* Auth.makeAuthorize
    const scrapeAnswer = yield* makeScrapeAnswer
    const base = yield* Effect.runtime<never>()
    const route = templateOf(PATH) ?? PATH
    const body = (request: ScrapeRequest) =>
      respond(Effect.flatMap(jsonOfBody(request.headers["content-length"], request.body), scrapeAnswer))

    /** The runtime of one request: what `authorize`, `provideService` and `observed` would set in its fiber. */
    const runtimeOf = (
      caller: CallerShape,
      clientAddress: string | undefined,
      record: RequestLog.RequestFields,
      requestId: string,
    ) => {
      const withCaller = Context.add(base.context, Caller, caller)
      const annotations = FiberRefs.getOrDefault(base.fiberRefs, FiberRef.currentLogAnnotations)
      return Runtime.make({
        context: clientAddress === undefined ? withCaller : Context.add(withCaller, ClientAddress, clientAddress),
        fiberRefs: RequestLog.withRecordIn(
          FiberRefs.updateAs(base.fiberRefs, {
            fiberId: FiberId.none,
            fiberRef: FiberRef.currentLogAnnotations,
            value: HashMap.set(annotations, "requestId", requestId),
          }),
          record,
        ),
        runtimeFlags: base.runtimeFlags,
      })
    }

    /** The answer to a caller known without the store (see above), as `observed` answers it. */
    const answerAs = async (
      caller: CallerShape,
      request: ScrapeRequest,
      clientAddress: string | undefined,
      asked: ObservedRequest,
    ): Promise<PlainResponse> => {
      const started = performance.now()
      const requestId = requestIdOf(asked.requestId)
      const record: RequestLog.RequestFields = {}
      const answer = body(request).pipe(
        Effect.catchAllCause(failureResponse),
        Effect.map((response) => toPlain(withRequestId(response, requestId), options.cors)),
      )
      const { signal } = request
      const exit = await Runtime.runPromiseExit(runtimeOf(caller, clientAddress, record, requestId))(
        traced(request, clientAddress, answer),
        signal === undefined ? undefined : { signal },
      )
      const status = Exit.isSuccess(exit) ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
      options.observeNow(asked, {
        requestId,
        route,
        status,
        seconds: (performance.now() - started) / 1000,
        fields: record,
      })
      if (Exit.isSuccess(exit)) return exit.value
      // A client that went away stops the work; nobody is left to read its answer (as `WebHandler.handlePlain`).
      if (signal?.aborted === true) return CLIENT_GONE
      throw Cause.squash(exit.cause)
    }

    return (request, clientAddress) => {
      const { headers } = request
      const asked: ObservedRequest = {
        method: request.method,
        pathname: PATH,
        requestId: headers[REQUEST_ID_HEADER],
        authorization: headers.authorization,
      }
      const token = bearerToken(headers.authorization)
      const known = authorizeNow(asked, token)
      if (known !== undefined) return answerAs(known, request, clientAddress, asked)
      const answer = Effect.flatMap(authorize(asked, token), (caller) =>
        Effect.provideService(body(request), Caller, caller),
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
