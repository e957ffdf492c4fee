/** @webdata/core — the engine: scrape services and layers, the v2 HTTP contract, and the Promise facade. */
export * as BatchScrape from "./BatchScrape.js"
export * as ScrapeCache from "./Cache/ScrapeCache.js"
export * as Crawl from "./Crawl.js"
export * from "./Domain/BatchScrapeRequest.js"
export * from "./Domain/CrawlRequest.js"
export * as Decode from "./Domain/Decode.js"
export * from "./Domain/Document.js"
export * from "./Domain/Formats.js"
export * from "./Domain/MapRequest.js"
export * from "./Domain/ScrapeOptions.js"
export * from "./Domain/Webhook.js"
export type { EngineOptions, EngineServices } from "./Engine.js"
export * as Engine from "./Engine.js"
export * from "./Engines/Fetcher.js"
export { mapError } from "./ErrorCodes.js"
export * from "./Errors.js"
export { Authorization, Caller, ErrorBody, WebdataApi } from "./Http/Api.js"
export * as CrawlWatch from "./Http/CrawlWatch.js"
export * as ServerConfig from "./Http/ServerConfig.js"
export { apiLayer, makeWebHandler, type WebHandler } from "./Http/WebHandler.js"
export * as JobControl from "./Jobs/JobControl.js"
export type { JobErrors, JobStatus } from "./Jobs/JobStore.js"
export * as Map from "./Map.js"
export * as UrlGuard from "./Net/UrlGuard.js"
export type { ScrapeInput } from "./Scrape.js"
export * as Scrape from "./Scrape.js"
export { VERSION } from "./Version.js"
export {
  type BatchScrapeOptions,
  type CrawlOptions,
  type JobSnapshot,
  type MapOptions,
  type PageOptions,
  Webdata,
  WebdataError,
  type WebdataOptions,
} from "./Webdata.js"
