/** An Express Router that serves the webdata v2 API, for `app.use("/", webdataRouter(...))`. */
import { randomUUID } from "node:crypto"

import {
  Engine,
  type EngineOptions,
  type EngineServices,
  makeWebHandler,
  ServerConfig,
  type WebHandler,
} from "@webdata/core"
import { Layer as L, type Layer } from "effect"
import express, { type ErrorRequestHandler, type Router } from "express"
import { type ExpressMiddlewareOptions, toExpressMiddleware } from "./toExpressMiddleware.js"

export interface WebdataRouterOptions extends Omit<ExpressMiddlewareOptions, "handlePlain"> {
  /** Accepted API keys; none means open. */
  readonly apiKeys?: ReadonlyArray<string>
  /** Engine settings (URL guard, cache, fetch limits), used when `engine` is not given. */
  readonly engineOptions?: EngineOptions
  /** A ready engine layer, for apps that compose their own services. */
  readonly engine?: Layer.Layer<EngineServices>
}

export interface WebdataRouter extends Router {
  /** The job watcher over the router's services, for `attachCrawlWatcher(server, router, { prefix })`. */
  readonly watchJob: WebHandler["watchJob"]
  /** Interact sessions' sockets over the router's services, for `attachSessionSockets(server, router, { prefix })`. */
  readonly openSessionSocket: WebHandler["openSessionSocket"]
  /** Releases the engine's resources (connections, caches). */
  readonly dispose: () => Promise<void>
}

/**
 * Errors of a body parser in front of the router (malformed JSON, too large) as the API's envelope instead of
 * Express's HTML page, and any other error as a logged 500 envelope with an error id (never a stack trace). Express
 * skips routers when an error is pending, so mount this after the router yourself:
 * `app.use(express.json()); app.use("/api", webdataRouter()); app.use(webdataErrorHandler)`.
 */
export const webdataErrorHandler: ErrorRequestHandler = (error, _req, res, next) => {
  const type = (error as { type?: unknown }).type
  if (type === "entity.parse.failed")
    return void res
      .status(400)
      .json({ success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" })
  if (type === "entity.too.large")
    return void res.status(413).json({ success: false, code: "PAYLOAD_TOO_LARGE", error: "Request body is too large" })
  if (res.headersSent) return next(error)
  // Anything else is a bug: logged here, never sent to the client (Express's own page shows the stack trace).
  const id = randomUUID()
  console.error(`webdata: unhandled error ${id}:`, error)
  res.status(500).json({
    success: false,
    code: "UNKNOWN_ERROR",
    error: `An error occurred. Please check your logs for more details. Error ID: ${id}`,
  })
}

export const webdataRouter = (options: WebdataRouterOptions = {}): WebdataRouter => {
  const engine = options.engine ?? Engine.layer(options.engineOptions)
  const { handler, handlePlain, watchJob, openSessionSocket, dispose } = makeWebHandler(
    L.merge(engine, ServerConfig.layer({ apiKeys: options.apiKeys ?? [] })),
  )
  const router = express.Router()
  router.use(toExpressMiddleware(handler, { ...options, handlePlain }))
  return Object.assign(router, { watchJob, openSessionSocket, dispose })
}
