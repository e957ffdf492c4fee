/**
 * Lambda handlers over an engine layer. The API's handler is built at the first invocation and kept by the returned
 * function, so every warm invocation of the container reuses the same engine (store, cache, worker).
 */
import { type EngineServices, makeWebHandler, ServerConfig } from "@webdata/core"
import { Layer } from "effect"
import { keep } from "../Kept.js"
import {
  fromWebHandler,
  type HttpHandlerOptions,
  type LambdaHttpHandler,
  type WebHandlerFunction,
} from "./fromWebHandler.js"
import type { PlainHandlerFunction } from "./plain.js"
import { fromWebHandlerStreaming, type LambdaStreamingHandler } from "./streaming.js"

export interface LambdaHandlerOptions extends Omit<HttpHandlerOptions, "handlePlain"> {
  /** Server settings; default `ServerConfig.layerConfig` (`WEBDATA_API_KEYS` from the environment). */
  readonly serverConfig?: Layer.Layer<ServerConfig.ServerConfig>
}

export interface Releasable {
  /** Releases the engine (worker, store connections): on shutdown, see `releaseOnShutdown`. */
  readonly dispose: () => Promise<void>
}

/** The API's handler, kept by the container (see `Kept.ts`). */
const lazyWebHandler = (engine: Layer.Layer<EngineServices>, options: LambdaHandlerOptions) => {
  const kept = keep(
    () => makeWebHandler(Layer.merge(engine, options.serverConfig ?? ServerConfig.layerConfig)),
    (web) => web.ready(),
  )
  const handler: WebHandlerFunction = async (request, origin) => (await kept.get()).handler(request, origin)
  // The web handler prepares its plain answers at the first call of `handlePlain`: until then, polls go to `handler`.
  const handlePlain: PlainHandlerFunction = async (request, origin) => (await kept.get()).handlePlain(request, origin)
  return { handler, handlePlain, dispose: kept.dispose }
}

export const toLambdaHandler = (
  engine: Layer.Layer<EngineServices>,
  options: LambdaHandlerOptions = {},
): LambdaHttpHandler & Releasable => {
  const web = lazyWebHandler(engine, options)
  return Object.assign(fromWebHandler(web.handler, { ...options, handlePlain: web.handlePlain }), {
    dispose: web.dispose,
  })
}

export const toStreamingLambdaHandler = (
  engine: Layer.Layer<EngineServices>,
  options: LambdaHandlerOptions = {},
): LambdaStreamingHandler & Releasable => {
  const web = lazyWebHandler(engine, options)
  return Object.assign(fromWebHandlerStreaming(web.handler, { ...options, handlePlain: web.handlePlain }), {
    dispose: web.dispose,
  })
}
