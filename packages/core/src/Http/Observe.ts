/**
 * Every request once: its id (the caller's `x-request-id` when it sends a usable one, else a new one, echoed in the
 * response), its count and latency by route template and status class, and one log line with what it did.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Exit, FiberRef, Layer, LogLevel, type MetricLabel, Runtime } from "effect"
import { v7 as uuidv7 } from "uuid"
import { ownerOf } from "../Jobs/Owner.js"
import { httpDuration, httpRequests, labelled } from "../Observability/Metrics.js"
import * as RequestLog from "../Observability/RequestLog.js"
import { hasSecretParameter, requestLogLevel } from "../Process/Logging.js"
import { templateOf } from "./Routes.js"

export const REQUEST_ID_HEADER = "x-request-id"

/** An id a caller may choose: short and plain, so that it cannot forge or break a log line. */
const USABLE_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/

/** Probes that run every few seconds: logged at debug level, so that they do not drown the requests. */
const PROBES = new Set(["/v2/health", "/v2/ready", "/metrics"])

/** Routes whose `:id` is a job's. */
const JOB_ROUTE = /^\/v2\/(?:crawl|batch\/scrape|extract|agent)\/:id(?:\/|$)/

/** A short digest that tells keys apart in the logs without revealing them (the owner digest's first characters). */
const keyHash = (authorization: string | undefined): string | undefined => {
  const token = authorization?.replace(/^\s*bearer\s+/i, "").trim()
  return token === undefined || token === "" ? undefined : ownerOf(token)?.slice(0, 12)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The job id of a job route's path, when it is one (not whatever a caller put there). */
const jobIdOf = (route: string, pathname: string): string | undefined => {
  if (!JOB_ROUTE.test(route)) return undefined
  const id = pathname.split("/")[route.split("/").indexOf(":id")]
  return id !== undefined && UUID.test(id) ? id : undefined
}

/** Methods as label values: a host that passes any method through (a Lambda event) cannot grow the label set. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The request metrics of each label set, made once (a bounded set: route templates × methods × status classes). */
const requestMetrics = new Map<string, { readonly count: typeof httpRequests; readonly latency: typeof httpDuration }>()
const requestMetricsOf = (route: string, method: string, statusClass: string) => {
  const key = `${method} ${route} ${statusClass}`
  let metrics = requestMetrics.get(key)
  if (metrics === undefined) {
    const labels = { route, method, status_class: statusClass }
    metrics = { count: labelled(httpRequests, labels), latency: labelled(httpDuration, labels) }
    requestMetrics.set(key, metrics)
  }
  return metrics
}

const outcomeOf = (status: number) => (status < 400 ? "ok" : status < 500 ? "rejected" : "failed")

/** What observing a request needs of it. */
export interface ObservedRequest {
  readonly method: string
  readonly pathname: string
  /** The caller's `x-request-id`, if any. */
  readonly requestId: string | undefined
  readonly authorization: string | undefined
}

/** The request's id: the caller's when usable, else a new one. */
export const requestIdOf = (offered: string | undefined): string =>
  offered !== undefined && USABLE_ID.test(offered) ? offered : uuidv7()

/** The request's count and latency, under `tags` (the fiber's metric labels, as `Metric.update` adds them). */
export const countRequest = (
  answered: { readonly route: string; readonly method: string; readonly status: number; readonly seconds: number },
  tags: ReadonlyArray<MetricLabel.MetricLabel>,
): void => {
  const metrics = requestMetricsOf(
    answered.route,
    methodLabel(answered.method),
    `${Math.floor(answered.status / 100)}xx`,
  )
  metrics.count.unsafeUpdate(1, tags)
  metrics.latency.unsafeUpdate(answered.seconds, tags)
}

const methodLabel = (method: string) => (METHODS.has(method) ? method : "other")

/** The level of a request's log line, given the level the server logs requests at (`requestLogLevel`). */
export const requestLineLevel = (route: string, status: number, requestLevel: LogLevel.LogLevel): LogLevel.LogLevel =>
  status >= 500 ? LogLevel.Error : PROBES.has(route) ? LogLevel.Debug : requestLevel

/** A request's log line at `level`: what it was, how it ended, how long it took, whose it was. */
export const requestLine = (
  level: LogLevel.LogLevel,
  request: ObservedRequest,
  answered: Answered,
): Effect.Effect<void> => {
  const { requestId, route, status, seconds, fields } = answered
  const method = methodLabel(request.method)
  const jobId = fields.jobId ?? jobIdOf(route, request.pathname)
  const key = keyHash(request.authorization)
  return Effect.logWithLevel(level, `${method} ${route} ${status}`).pipe(
    Effect.annotateLogs({
      requestId,
      method,
      route,
      status,
      outcome: outcomeOf(status),
      durationMs: Math.round(seconds * 10_000) / 10,
      ...(key !== undefined ? { keyHash: key } : {}),
      ...(jobId !== undefined ? { jobId } : {}),
      ...(fields.host !== undefined ? { host: fields.host } : {}),
    }),
  )
}

/**
 * Runs `respond` as the request `request`: its id in the response and the log annotations, its metrics, its log line.
 * Shared by the API's middleware and the hot read routes (`HotRoutes.ts`), whose fast path does the same with the
 * functions above.
 */
export const observed = <E, R>(
  request: ObservedRequest,
  respond: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.gen(function* () {
    const started = performance.now()
    const requestId = requestIdOf(request.requestId)
    const route = templateOf(request.pathname) ?? "unmatched"
    const fields: RequestLog.RequestFields = {}
    const exit = yield* respond.pipe(
      RequestLog.withRecord(fields),
      Effect.annotateLogs("requestId", requestId),
      Effect.exit,
    )
    const answered = Exit.map(exit, (response) => withRequestId(response, requestId))
    const status = Exit.isSuccess(exit) ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
    const seconds = (performance.now() - started) / 1000
    countRequest({ route, method: request.method, status, seconds }, yield* FiberRef.get(FiberRef.currentMetricLabels))
    const level = requestLineLevel(route, status, yield* FiberRef.get(requestLogLevel))
    // Most requests' lines are below the level written (debug, in the pretty format): nothing to prepare for them.
    if (LogLevel.greaterThanEqual(level, yield* FiberRef.get(FiberRef.currentMinimumLogLevel)))
      yield* requestLine(level, request, { requestId, route, status, seconds, fields })
    return yield* answered
  })

/** `response` as sent: its request id, and its length when its body is in memory. */
export const withRequestId = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.setHeader(withLength(response), REQUEST_ID_HEADER, requestId)

/** What a request's count and log line record of its answer. */
export interface Answered {
  readonly requestId: string
  readonly route: string
  readonly status: number
  readonly seconds: number
  readonly fields: RequestLog.RequestFields
}

/**
 * `observed`'s count and log line for a request answered outside it (the hot routes' plain paths), with what `observed`
 * reads from its fiber fixed for the runtime they run in.
 */
export const makeObserveNow: Effect.Effect<(request: ObservedRequest, answered: Answered) => void> = Effect.gen(
  function* () {
    const runSync = Runtime.runSync(yield* Effect.runtime<never>())
    const requestLevel = yield* FiberRef.get(requestLogLevel)
    const minimumLevel = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
    const metricTags = yield* FiberRef.get(FiberRef.currentMetricLabels)
    return (request, answered) => {
      countRequest({ ...answered, method: request.method }, metricTags)
      const level = requestLineLevel(answered.route, answered.status, requestLevel)
      if (LogLevel.greaterThanEqual(level, minimumLevel)) runSync(requestLine(level, request, answered))
    }
  },
)

/**
 * A body already in memory (every JSON answer) states its length, so that an adapter writes it in one piece: piping
 * the web `Response`'s stream into Node's response cost ~1-2 ms of CPU per 100 KB scrape under load (measured).
 */
const withLength = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
  response.body._tag === "Uint8Array" && response.headers["content-length"] === undefined
    ? HttpServerResponse.setHeader(response, "content-length", String(response.body.body.length))
    : response

export const observe = (app: HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    observed(
      {
        method: request.method,
        pathname: pathOf(request),
        requestId: request.headers[REQUEST_ID_HEADER],
        authorization: request.headers.authorization,
      },
      app,
    ),
  )

const pathOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://localhost").pathname

/**
 * The HTTP server spans: named by route template (`POST /v2/crawl`), and not made for a URL whose query carries a
 * credential (a live view's token), since a span records the full URL for whoever reads the traces.
 */
export const tracing: Layer.Layer<never> = Layer.merge(
  Layer.succeed(
    HttpMiddleware.SpanNameGenerator,
    (request) => `${request.method} ${templateOf(pathOf(request)) ?? "unmatched"}`,
  ),
  Layer.scopedDiscard(
    Effect.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, (request: HttpServerRequest.HttpServerRequest) =>
      hasSecretParameter(request.url),
    ),
  ),
)
