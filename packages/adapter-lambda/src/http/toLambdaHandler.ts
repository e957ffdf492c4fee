/**
 * Lambda handlers over an engine layer. The API's handler is built at the first invocation and kept by the returned
 * function, so every warm invocation of the container reuses the same engine (store, cache, worker).
 */
import { type EngineServices, makeWebHandler, ServerConfig, type WebHandler } from "@webdata/core"
import { Layer } from "effect"
import { fromWebHandler, type HttpHandlerOptions, type LambdaHttpHandler } from "./fromWebHandler.js"
import { fromWebHandlerStreaming, type LambdaStreamingHandler } from "./streaming.js"

export interface LambdaHandlerOptions extends HttpHandlerOptions {
  /** Server settings; default `ServerConfig.layerConfig` (`WEBDATA_API_KEYS` from the environment). */
  readonly serverConfig?: Layer.Layer<ServerConfig.ServerConfig>
}

export interface Releasable {
  /** Releases the engine (worker, store connections): on shutdown, see `releaseOnShutdown`. */
  readonly dispose: () => Promise<void>
}

/**
 * The API's handler, built on first use; after `dispose`, or a build that failed (a store that could not be reached),
 * the next use builds a new one, so that a container recovers once the cause is gone.
 */
const lazyWebHandler = (engine: Layer.Layer<EngineServices>, options: LambdaHandlerOptions) => {
  let built: WebHandler | undefined
  return {
    handler: async (request: Request): Promise<Response> => {
      built ??= makeWebHandler(Layer.merge(engine, options.serverConfig ?? ServerConfig.layerConfig))
      const web = built
      await web.ready().catch(async (error: unknown) => {
        if (built === web) built = undefined
        await web.dispose()
        throw error
      })
      return web.handler(request)
    },
    dispose: async (): Promise<void> => {
      const web = built
      built = undefined
      await web?.dispose()
    },
  }
}

export const toLambdaHandler = (
  engine: Layer.Layer<EngineServices>,
  options: LambdaHandlerOptions = {},
): LambdaHttpHandler & Releasable => {
  const web = lazyWebHandler(engine, options)
  return Object.assign(fromWebHandler(web.handler, options), { dispose: web.dispose })
}

export const toStreamingLambdaHandler = (
  engine: Layer.Layer<EngineServices>,
  options: LambdaHandlerOptions = {},
): LambdaStreamingHandler & Releasable => {
  const web = lazyWebHandler(engine, options)
  return Object.assign(fromWebHandlerStreaming(web.handler, options), { dispose: web.dispose })
}
