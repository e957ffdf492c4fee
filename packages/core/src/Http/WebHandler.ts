/**
 * The whole REST API as one `(Request) => Promise<Response>`. Express, Lambda and any fetch-style host reuse it; the
 * adapters only convert their request and response types.
 */
import { HttpApiBuilder, type HttpApp, HttpServer, HttpServerError, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Layer, Option } from "effect"
import type { Scrape } from "../Scrape.js"
import { Unauthorized, WebdataApi } from "./Api.js"
import * as Auth from "./Auth.js"
import { defectResponse } from "./ErrorResponse.js"
import * as Handlers from "./Handlers.js"
import type { ServerConfig } from "./ServerConfig.js"

export interface WebHandler {
  readonly handler: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
}

const notFound = HttpServerResponse.unsafeJson(
  { success: false, code: "NOT_FOUND", error: "Not found. See /v2/openapi.json for the routes this server offers." },
  { status: 404 },
)

/** Unknown routes and auth failures answer the JSON envelope; any defect becomes a logged 500 with an error id. */
const envelope = (app: HttpApp.Default): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
    if (Option.isSome(failure) && failure.value instanceof HttpServerError.RouteNotFound)
      return Effect.succeed(notFound)
    if (Option.isSome(failure) && failure.value instanceof Unauthorized) {
      const { success, code, error } = failure.value
      return Effect.succeed(HttpServerResponse.unsafeJson({ success, code, error }, { status: 401 }))
    }
    return defectResponse(cause)
  })

/** The API's layer: contract, handlers and auth, over the engine services and the server settings. */
export const apiLayer = HttpApiBuilder.api(WebdataApi).pipe(Layer.provide(Handlers.layer), Layer.provide(Auth.layer))

/**
 * Builds the web handler over an engine layer (Scrape, ...) and server settings. Call `dispose` on shutdown to
 * release the engine's resources.
 */
export const makeWebHandler = (services: Layer.Layer<Scrape | ServerConfig>): WebHandler =>
  HttpApiBuilder.toWebHandler(
    Layer.mergeAll(
      apiLayer,
      HttpServer.layerContext,
      HttpApiBuilder.middlewareCors(),
      // Inside the API app, so that it sees unknown routes and defects before they become empty responses.
      HttpApiBuilder.middleware(envelope),
    ).pipe(Layer.provide(services)),
  )
