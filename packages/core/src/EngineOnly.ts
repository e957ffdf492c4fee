/**
 * `@webdata/core/engine`: the engine and the Promise facade without the HTTP contract, for apps and workers that embed
 * webdata and serve no API. The same classes as the package root; it only loads less (no `@effect/platform` HTTP
 * stack), which keeps a crawling process smaller.
 */
export * as Agent from "./Agent.js"
export * as BatchScrape from "./BatchScrape.js"
export * as Crawl from "./Crawl.js"
export type { Action } from "./Domain/Actions.js"
export { AgentRequest } from "./Domain/AgentRequest.js"
export { BatchScrapeRequest } from "./Domain/BatchScrapeRequest.js"
export { CrawlRequest } from "./Domain/CrawlRequest.js"
export * as Decode from "./Domain/Decode.js"
export type { ActionResults, Document } from "./Domain/Document.js"
export { ExtractRequest } from "./Domain/ExtractRequest.js"
export { LlmsTxtRequest } from "./Domain/LlmsTxtRequest.js"
export { decodeMapRequest } from "./Domain/MapRequest.js"
export { MonitorCreateRequest, MonitorUpdateRequest } from "./Domain/MonitorRequest.js"
export {
  decodeParseOptions,
  decodeParseOptionsValue,
  ParseOptions,
  type ParseOptionsInput,
} from "./Domain/ParseOptions.js"
export { type ScrapeOptionsInput, ScrapeRequest } from "./Domain/ScrapeOptions.js"
export { decodeSearchRequest, SearchRequest, type SearchRequestInput } from "./Domain/SearchRequest.js"
export { urlProblem, withScheme } from "./Domain/Url.js"
export type { EngineOptions, EngineServices } from "./Engine.js"
export * as Engine from "./Engine.js"
export * from "./Engines/Browser.js"
export { mapError } from "./ErrorCodes.js"
export * from "./Errors.js"
export * as Extract from "./Extract.js"
export * as JobControl from "./Jobs/JobControl.js"
export type { JobStatus } from "./Jobs/JobStore.js"
export * from "./Llm/Llm.js"
export * as LlmUsage from "./Llm/LlmUsage.js"
export * as LlmsTxt from "./LlmsTxt.js"
export * as Map from "./Map.js"
export * from "./Monitor/Mailer.js"
export * as Monitor from "./Monitor.js"
export * as UrlGuard from "./Net/UrlGuard.js"
export { CONTENT_TYPES, type FileKind, PARSED_KINDS, sniffFile } from "./Parse/FileKind.js"
export * from "./Parse/FileParser.js"
export * as Parse from "./Parse.js"
export { startModuleWorker } from "./Process/ModuleWorker.js"
export * as Scrape from "./Scrape.js"
export * from "./Search/SearchProvider.js"
export type { SearchProviderSetting } from "./Search/SearchSettings.js"
export type { SearchData, SearchOutcome, SearchResultItem } from "./Search.js"
export * as Search from "./Search.js"
export {
  type AgentOptions,
  type AgentRun,
  type AgentStatus,
  type BatchScrapeOptions,
  type CrawlOptions,
  type ExtractOptions,
  type ExtractStatus,
  type JobSnapshot,
  type LlmsTxtOptions,
  type LlmsTxtStatus,
  type MapOptions,
  type PageOptions,
  type SearchOptions,
  Webdata,
  WebdataError,
  type WebdataOptions,
} from "./Webdata.js"
export {
  checkEnded,
  type MonitorCheck,
  type MonitorCheckDetail,
  type MonitorCheckOptions,
  type MonitorCheckStatus,
  type MonitorChecksOptions,
  type MonitorInput,
  type MonitorListOptions,
  type MonitorPageStatus,
  type MonitorUpdate,
  type MonitorView,
  type RunAndWaitOptions,
  WebdataMonitors,
} from "./WebdataMonitors.js"
export { type ExecuteInput, type InteractOptions, WebdataSession } from "./WebdataSession.js"
