/**
 * @webdata/adapter-express — serve the webdata v2 API from an Express app of your own. The ready server (`serve()`,
 * `npm start`) is `@webdata/server`.
 */
export { attachClientErrorEnvelope } from "./clientErrors.js"
export {
  attachCrawlWatcher,
  type CrawlWatcher,
  type CrawlWatcherOptions,
  type CrawlWatchSource,
} from "./crawlWatcher.js"
export { plainFirst } from "./plainFirst.js"
export { type WebdataRouter, type WebdataRouterOptions, webdataErrorHandler, webdataRouter } from "./router.js"
export {
  attachSessionSockets,
  type SessionSocketSource,
  type SessionSockets,
  type SessionSocketsOptions,
} from "./sessionSockets.js"
export {
  type ExpressMiddlewareOptions,
  type PlainHandlerFunction,
  toExpressMiddleware,
  type WebHandlerFunction,
} from "./toExpressMiddleware.js"
