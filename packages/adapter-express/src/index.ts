/** @webdata/adapter-express — serve the webdata v2 API from an Express app. */
export { attachClientErrorEnvelope } from "./clientErrors.js"
export {
  attachCrawlWatcher,
  type CrawlWatcher,
  type CrawlWatcherOptions,
  type CrawlWatchSource,
} from "./crawlWatcher.js"
export { type WebdataRouter, type WebdataRouterOptions, webdataErrorHandler, webdataRouter } from "./router.js"
export { engineFromEnvironment, enginesLine, type RunningServer, type ServeOptions, serve } from "./serve.js"
export {
  attachSessionSockets,
  type SessionSocketSource,
  type SessionSockets,
  type SessionSocketsOptions,
} from "./sessionSockets.js"
export { storeLayerConfig } from "./store.js"
export { type ExpressMiddlewareOptions, toExpressMiddleware, type WebHandlerFunction } from "./toExpressMiddleware.js"
