/**
 * The whole REST API as one `(Request) => Promise<Response>`. Express, Lambda and any fetch-style host reuse it; the
 * adapters only convert their request and response types. Hosts that can upgrade connections also get the job
 * watcher (`watchJob`), which runs over the same services: same store, same worker.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Context, Effect, Layer, ManagedRuntime, Option, Runtime, Stream } from "effect"
import type { EngineServices } from "../Engine.js"
import type { LiveFrame, LiveInput } from "../Engines/Browser.js"
import { InteractSessions } from "../Interact/InteractSessions.js"
import { intranetPolicy } from "../Net/UrlGuard.js"
import * as Logging from "../Process/Logging.js"
import * as KeyRing from "../Tenants/KeyRing.js"
import * as Quotas from "../Tenants/Quotas.js"
import * as Registration from "../Tenants/Registration.js"
import { WebdataApi } from "./Api.js"
import * as Auth from "./Auth.js"
import { ClientAddress } from "./ClientAddress.js"
import { type WatchEvent, type WatchedKind, watch } from "./CrawlWatch.js"
import { failureResponse } from "./ErrorResponse.js"
import * as Handlers from "./Handlers.js"
import * as HotRoutes from "./HotRoutes.js"
import { observe, tracing } from "./Observe.js"
import { CLIENT_GONE, type PlainRequest, type PlainResponse } from "./Plain.js"
import { publicPrefix } from "./PublicUrl.js"
import { allowedMethods } from "./Routes.js"
import type { ServerConfig } from "./ServerConfig.js"

/** What the host knows of a request besides the request itself. */
export interface RequestOrigin {
  /** The client's address (see `ClientAddress`): the keyless tier limits by it. */
  readonly clientAddress?: string | undefined
}

export interface WebHandler {
  readonly handler: (request: Request, origin?: RequestOrigin) => Promise<Response>
  /**
   * The hottest requests (status polls, scrapes) from their plain data, without a web `Request` (see `HotRoutes.ts`):
   * the same answer as `handler`'s, or undefined for any other request, which the host then gives to `handler`.
   */
  readonly handlePlain: (request: PlainRequest, origin?: RequestOrigin) => Promise<PlainResponse> | undefined
  /**
   * The events of the WebSocket `/v2/crawl/{id}` (kind `crawl`) or `/v2/batch/scrape/{id}` (kind `batch`) for the key
   * the client offered (see `CrawlWatch.offeredToken`): messages to send, then one close. Stop iterating (`return()`)
   * when the client goes away.
   */
  readonly watchJob: (kind: WatchedKind, id: string, token: string | undefined) => AsyncIterable<WatchEvent>
  /**
   * The session a socket under `/v2/interact/{id}/` may use with the token in its URL (`cdp` needs the control
   * token; `view` shows frames to either and takes input only with the control token); undefined when none.
   */
  readonly openSessionSocket: (id: string, token: string) => Promise<SessionSocket | undefined>
  /**
   * Builds the services now (they are built on first use otherwise); rejects with what stopped them. A failed build
   * stays failed: a host that wants to try again (a Lambda container after its store was unreachable) disposes this
   * handler and makes another.
   */
  readonly ready: () => Promise<void>
  /** Releases the services (worker, store connections): on shutdown, after the host stopped taking requests. */
  readonly dispose: () => Promise<void>
}

/** A session as its sockets use it, in Promises for the host. */
export interface SessionSocket {
  /** Whether the token lets the socket drive the page (DevTools protocol, live input). */
  readonly control: boolean
  /** The session's DevTools WebSocket on the loopback interface, to relay to the caller. */
  readonly cdpEndpoint: string
  /** Sends frames of the page to `onFrame`; the returned function stops them. */
  readonly watch: (onFrame: (frame: LiveFrame) => void) => Promise<() => Promise<void>>
  readonly input: (event: LiveInput) => Promise<void>
  /** Resolves when the session's browser has gone. */
  readonly closed: Promise<void>
  /** Counts as activity on the session. */
  readonly touch: () => void
}

/** A path the contract knows with a method it does not offer: 405 with `Allow`; anything else: 404. */
const noRoute = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse => {
  const hint = `See ${publicPrefix(request)}/v2/openapi.json for the routes and methods of this API.`
  const allowed = allowedMethods(new URL(request.url, "http://localhost").pathname)
  return allowed.length === 0
    ? HttpServerResponse.unsafeJson({ success: false, code: "NOT_FOUND", error: `Not found. ${hint}` }, { status: 404 })
    : HttpServerResponse.unsafeJson(
        { success: false, code: "METHOD_NOT_ALLOWED", error: `Method ${request.method} not allowed. ${hint}` },
        { status: 405, headers: { allow: allowed.join(", ") } },
      )
}

/** Unknown routes and auth failures answer the JSON envelope; any defect becomes a logged 500 with an error id. */
const envelope = (app: HttpApp.Default): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
    if (Option.isSome(failure) && failure.value instanceof HttpServerError.RouteNotFound)
      return Effect.succeed(noRoute(failure.value.request))
    return failureResponse(cause)
  })

/** Response headers a browser client on another origin may read: a request's id and when to retry after a 429. */
const EXPOSED_HEADERS = ["x-request-id", "retry-after"]

/** The API's layer: contract, handlers and auth, over the engine services and the server settings. */
export const apiLayer = HttpApiBuilder.api(WebdataApi).pipe(
  Layer.provide(Handlers.layer),
  Layer.provide(Layer.merge(Auth.layer, Auth.adminLayer)),
)

/** Keys and limits, next to the engine's services so that the API and the watcher share one key cache. */
const tenancy = Layer.merge(Registration.layer, Quotas.layer).pipe(Layer.provideMerge(KeyRing.layer))

/**
 * Builds the web handler over an engine layer (scrape, crawl, jobs, ...) and server settings. The services are built
 * once, on first use, and shared by the handler and the watcher. Call `dispose` on shutdown to release them.
 */
export const makeWebHandler = (services: Layer.Layer<EngineServices | ServerConfig>): WebHandler => {
  const runtime = ManagedRuntime.make(tenancy.pipe(Layer.provideMerge(services)))
  const context = Effect.map(runtime.runtimeEffect, (built) => built.context)
  // The HTTP fibers get the engine's context, not its fiber settings: the logger, the intranet policy and the tracer
  // (an OpenTelemetry one when the host set it up under the engine) again.
  const fiberSettings = Layer.mergeAll(
    Logging.layer,
    intranetPolicy.pipe(Layer.provide(Layer.effectContext(context))),
    Layer.unwrapEffect(
      Effect.map(runtime.runtimeEffect, (built) => Layer.setTracer(Runtime.runSync(built)(Effect.tracer))),
    ),
  )
  const web = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(
      apiLayer,
      HttpServer.layerContext,
      HttpApiBuilder.middlewareCors({ exposedHeaders: EXPOSED_HEADERS }),
      // Inside the API app, so that it sees unknown routes and defects before they become empty responses; each
      // request is counted and logged with the response the envelope made.
      HttpApiBuilder.middleware((app) => observe(envelope(app))),
      tracing,
    ).pipe(Layer.provide(Layer.effectContext(context)), Layer.provide(fiberSettings)),
  )
  const hotRuntime = ManagedRuntime.make(fiberSettings.pipe(Layer.provideMerge(Layer.effectContext(context))))
  let answerHot: HotRoutes.AnswerHot | undefined
  let building: Promise<void> | undefined
  // Once the services are built; a failed build leaves every request to the API's path, which reports the failure.
  const buildHot = () => {
    building ??= hotRuntime.runPromise(HotRoutes.make({ exposedHeaders: EXPOSED_HEADERS })).then(
      (made) => {
        answerHot = made
      },
      () => undefined,
    )
    return building
  }
  const handlePlain = (request: PlainRequest, origin?: RequestOrigin) => {
    if (answerHot === undefined) {
      void buildHot()
      return undefined
    }
    const answer = answerHot(request, origin?.clientAddress)
    if (answer === undefined || answer instanceof Promise) return answer
    if (!Effect.isEffect(answer)) return Promise.resolve(answer)
    const { signal } = request
    // A client that went away stops the work; nobody is left to read its answer (the API's path says 499 too).
    return hotRuntime
      .runPromise(answer, signal === undefined ? undefined : { signal })
      .catch((error: unknown) => (signal?.aborted === true ? CLIENT_GONE : Promise.reject(error)))
  }
  return {
    handlePlain,
    handler: (request, origin) =>
      origin?.clientAddress === undefined
        ? web.handler(request)
        : web.handler(request, Context.make(ClientAddress, origin.clientAddress) as Context.Context<never>),
    watchJob: (kind, id, token) =>
      Stream.toAsyncIterable(
        Stream.unwrap(Effect.map(context, (built) => Stream.provideContext(watch(kind, id, token), built))),
      ),
    openSessionSocket: async (id, token) => {
      const exit = await runtime.runPromiseExit(
        Effect.flatMap(InteractSessions, (sessions) => sessions.access(id, token)),
      )
      if (exit._tag === "Failure") return undefined
      const { live, control, touch } = exit.value
      return {
        control,
        cdpEndpoint: live.cdpEndpoint,
        watch: async (onFrame) => {
          const stop = await Effect.runPromise(live.watch(onFrame))
          return () => Effect.runPromise(stop)
        },
        input: (event) => Effect.runPromise(live.input(event)),
        closed: Effect.runPromise(live.closed),
        touch: () => Effect.runSync(touch),
      }
    },
    ready: async () => {
      await runtime.runtime()
      await buildHot()
    },
    dispose: async () => {
      await hotRuntime.dispose()
      await web.dispose()
      await runtime.dispose()
    },
  }
}
