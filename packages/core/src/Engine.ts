/**
 * The engine's services wired together: scrape over the HTTP fetcher, the URL guard and the cache; crawl, batch
 * scrape and map; the job store they keep their state in, and (unless turned off) a worker that runs the jobs.
 * Hosts (the facade, the HTTP adapters, the CLI) build one of these and keep it for their lifetime.
 */
import { Config, Effect, Either, Layer, Option } from "effect"
import * as AgentSteps from "./Agent/AgentSteps.js"
import type { Agent } from "./Agent.js"
import * as AgentModule from "./Agent.js"
import type { ArtifactStore } from "./Artifacts/ArtifactStore.js"
import * as ArtifactsConfig from "./Artifacts/ArtifactsConfig.js"
import * as DirectoryArtifacts from "./Artifacts/DirectoryArtifacts.js"
import * as S3Artifacts from "./Artifacts/S3Artifacts.js"
import type { BatchScrape } from "./BatchScrape.js"
import * as BatchScrapeModule from "./BatchScrape.js"
import * as CacheScope from "./Cache/CacheScope.js"
import * as ScrapeCache from "./Cache/ScrapeCache.js"
import type { Crawl } from "./Crawl.js"
import * as CrawlModule from "./Crawl.js"
import type { BrowserEngine } from "./Engines/Browser.js"
import { discoverBrowser } from "./Engines/BrowserDiscovery.js"
import type { Fetcher } from "./Engines/Fetcher.js"
import * as HttpFetcher from "./Engines/HttpFetcher.js"
import type { Extract } from "./Extract.js"
import * as ExtractModule from "./Extract.js"
import * as InteractSessions from "./Interact/InteractSessions.js"
import * as ScrapeReplay from "./Interact/ScrapeReplay.js"
import * as Drain from "./Jobs/Drain.js"
import * as JobControl from "./Jobs/JobControl.js"
import type { JobStore, StoreError } from "./Jobs/JobStore.js"
import * as JobsConfig from "./Jobs/JobsConfig.js"
import * as MemoryJobStore from "./Jobs/MemoryJobStore.js"
import * as RobotsCache from "./Jobs/RobotsCache.js"
import * as StoreScrapeCache from "./Jobs/StoreScrapeCache.js"
import * as TaskRunner from "./Jobs/TaskRunner.js"
import * as Webhooks from "./Jobs/Webhooks.js"
import * as Worker from "./Jobs/Worker.js"
import * as WorkQueue from "./Jobs/WorkQueue.js"
import * as WorkSignal from "./Jobs/WorkSignal.js"
import type { Llm } from "./Llm/Llm.js"
import * as LlmConfig from "./Llm/LlmConfig.js"
import * as LlmUsage from "./Llm/LlmUsage.js"
import * as LlmsTxtModule from "./LlmsTxt.js"
import type { MapService } from "./Map.js"
import * as MapModule from "./Map.js"
import * as CheckSteps from "./Monitor/CheckSteps.js"
import * as MonitorChecks from "./Monitor/Checks.js"
import type { Mailer } from "./Monitor/Mailer.js"
import * as MonitorModule from "./Monitor.js"
import * as Proxies from "./Net/Proxies.js"
import * as UrlGuard from "./Net/UrlGuard.js"
import type { FileParser } from "./Parse/FileParser.js"
import { discoverParser } from "./Parse/ParserDiscovery.js"
import * as ParseModule from "./Parse.js"
import * as HeapGrowth from "./Process/HeapGrowth.js"
import * as Logging from "./Process/Logging.js"
import * as DocumentBuilder from "./Scrape/DocumentBuilder.js"
import * as Scrape from "./Scrape.js"
import * as LocalIndex from "./Search/LocalIndex.js"
import type { SearchProvider } from "./Search/SearchProvider.js"
import * as SearchSettings from "./Search/SearchSettings.js"
import * as SearchModule from "./Search.js"
import * as Usage from "./Tenants/Usage.js"

export interface EngineOptions {
  /** Let targets on loopback, private and link-local addresses through the URL guard. Default false. */
  readonly allowPrivateAddresses?: boolean
  /** Host names (`example.com`, `*.example.com`) and CIDRs allowed even when they are private. */
  readonly allowedTargets?: ReadonlyArray<string>
  /** Bytes of fetched pages kept for `maxAge` by the memory store; 0 turns the cache off. Default 256 MiB. */
  readonly cacheMaxBytes?: number
  /** Who shares cached pages: `key` (each API key its own; the default) or `global` (`WEBDATA_CACHE_SCOPE`). */
  readonly cacheScope?: CacheScope.CacheScopeValue
  /**
   * Where jobs, documents and the scrape cache live. Default: in memory (nothing survives the process); for a
   * durable store pass e.g. `SqliteJobStore.layer({ filename })` from `@webdata/store-sqlite`.
   */
  readonly store?: Layer.Layer<JobStore, StoreError>
  /** Run a worker in this engine (default true); false for a process that only answers the API. */
  readonly worker?: boolean | Worker.WorkerOptions
  /**
   * Send webhook deliveries from this engine (default: when it runs a worker). An engine without a worker that runs
   * bounded worker runs itself (`Drain`) sends them too.
   */
  readonly deliverWebhooks?: boolean
  /**
   * How new jobs reach a worker. Default: this engine's worker, and other processes' through the store. A host that
   * starts workers on demand puts its queue here (`@webdata/adapter-lambda`'s SQS queue).
   */
  readonly workQueue?: Layer.Layer<WorkQueue.WorkQueue>
  /** Job TTL and the operator's permissions for jobs. */
  readonly jobs?: Partial<JobsConfig.JobsConfigShape>
  /** Key of the webhooks' `X-Firecrawl-Signature` HMAC. */
  readonly webhookSecret?: string
  /**
   * Threads that turn pages into documents, so that parsing uses other cores and leaves the event loop free; 0 (the
   * default) runs it on the caller's thread. Servers and workers configured from the environment use one per core
   * but one (`WEBDATA_CONTENT_THREADS`).
   */
  readonly contentThreads?: number
  /** Heap limit of one content thread in MiB (`WEBDATA_CONTENT_THREAD_MB`). Default 512. */
  readonly contentThreadMb?: number
  /**
   * Process-wide: how far (in % of the live heap) V8 lets the heap grow before a full collection; bounds the memory
   * of a long crawl. Default: V8's own heuristics; servers and workers configured from the environment use 50
   * (`WEBDATA_HEAP_GROWTH_PERCENT`).
   */
  readonly heapGrowthPercent?: number
  /**
   * The browser engine (`@webdata/browser`'s layer): scrapes that need a browser (`waitFor`, actions, `screenshot`)
   * and interact sessions use it. Without it those answer 400 `SCRAPE_BROWSER_REQUIRED`. `"auto"`: the installed
   * `@webdata/browser` with the Chromium it finds (`CHROMIUM_PATH`, else on the PATH), or none.
   */
  readonly browser?: Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> | "auto"
  /**
   * Outgoing proxies (`http://[user:pass@]host:port`), taken in turn: `proxy: "basic"` scrapes go through one,
   * `"auto"` ones (the default) when the site answers 401, 403 or 429 directly. Default: none (`WEBDATA_PROXY_URL`).
   */
  readonly proxies?: ReadonlyArray<string>
  /**
   * Keep screenshots and PDFs as files served under `/v2/artifacts/{name}` (`{ directory, baseUrl }`) or in an
   * S3-compatible bucket (`{ bucket, endpoint, region, accessKeyId, secretAccessKey, ... }`) and put their URLs in
   * documents instead of `data:` URLs (`WEBDATA_ARTIFACTS`).
   */
  readonly artifacts?: DirectoryArtifacts.DirectoryOptions | S3Artifacts.S3Options
  /**
   * The file parsers (`@webdata/parse`'s layer): PDFs, office documents, EPUB, RTF and CSV, scraped or uploaded.
   * `"auto"` uses `@webdata/parse` when it is installed. Without them such files answer 415.
   */
  readonly parser?: Layer.Layer<FileParser> | "auto"
  /**
   * The language model of the `summary` and `json` formats, extract and the agent. Without one, `summary` is
   * extractive, `json` with a schema is filled by the offline extractor, and what needs a model answers 400
   * `LLM_NOT_CONFIGURED` (`WEBDATA_LLM`).
   */
  readonly llm?: LlmConfig.LlmSettings | Layer.Layer<Llm>
  /**
   * Web search providers, in order (a fallback chain): `"local"` (the index of every page this engine scraped; the
   * default; without it no page is indexed), `"duckduckgo"`, `{ provider: "searxng", url }`, `{ provider: "brave", apiKey }`,
   * `{ provider: "serper", apiKey }`, or a provider of your own; or a layer that provides one (`WEBDATA_SEARCH`).
   */
  readonly search?: ReadonlyArray<SearchSettings.SearchProviderSetting> | Layer.Layer<SearchProvider>
  /** Who finds what in the local index: `key` (each API key what it fetched; the default) or `global`. */
  readonly searchIndex?: LocalIndex.LocalIndexOptions
  /** Interact sessions (they need `browser`): how many at once, and whether callers' code may run in them. */
  readonly interact?: Partial<InteractSessions.InteractConfigShape>
  /** Sends monitors' emails (`@webdata/server`'s SMTP mailer, `WEBDATA_SMTP_URL`); without one they are not sent. */
  readonly mailer?: Layer.Layer<Mailer>
}

/** Everything the HTTP API and the facade need from the engine. */
export type EngineServices =
  | Scrape.Scrape
  | ParseModule.Parse
  | Crawl
  | BatchScrape
  | Extract
  | LlmsTxtModule.LlmsTxt
  | Agent
  | MonitorModule.Monitor
  | MonitorChecks.MonitorChecks
  | LlmUsage.LlmUsage
  | Usage.Usage
  | JobControl.JobControl
  | Drain.Drain
  | MapService
  | SearchModule.Search
  | JobStore
  | UrlGuard.UrlGuard
  | InteractSessions.InteractSessions
  | ScrapeReplay.ScrapeReplay

/** What `assemble` needs from the host's settings. */
interface Parts {
  readonly guard: Layer.Layer<UrlGuard.UrlGuard>
  readonly fetcher: Layer.Layer<Fetcher, never, UrlGuard.UrlGuard>
  readonly browser: Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> | undefined
  readonly parser: Layer.Layer<FileParser> | undefined
  readonly store: Layer.Layer<JobStore>
  readonly cacheOff: boolean
  readonly cacheScope: Layer.Layer<CacheScope.CacheScope>
  readonly builder: Layer.Layer<DocumentBuilder.DocumentBuilder>
  readonly worker:
    | Layer.Layer<never, never, JobStore | TaskRunner.TaskRunner | WorkSignal.WorkSignal | MonitorChecks.MonitorChecks>
    | undefined
  readonly workQueue: Layer.Layer<WorkQueue.WorkQueue, never, WorkSignal.WorkSignal>
  /** Concurrency and lease length, for the worker and for bounded runs (`Drain`). */
  readonly workerOptions: Worker.WorkerOptions
  readonly jobs: Layer.Layer<JobsConfig.JobsConfig>
  readonly webhooks: Layer.Layer<Webhooks.Webhooks, never, UrlGuard.UrlGuard | JobStore>
  readonly heap: Layer.Layer<never>
  readonly interact: Layer.Layer<InteractSessions.InteractConfig>
  readonly proxies: Layer.Layer<Proxies.Proxies>
  readonly artifacts: Layer.Layer<ArtifactStore> | undefined
  readonly llm: Layer.Layer<Llm> | undefined
  readonly search: Layer.Layer<SearchProvider, never, LocalIndex.LocalIndex>
  readonly localIndex: Layer.Layer<LocalIndex.LocalIndex, never, JobStore>
  readonly mailer: Layer.Layer<Mailer> | undefined
}

const assemble = (parts: Parts): Layer.Layer<EngineServices> => {
  const base = Layer.mergeAll(
    parts.heap,
    parts.guard,
    parts.workQueue.pipe(Layer.provideMerge(WorkSignal.layer)),
    parts.jobs,
    parts.proxies,
    parts.artifacts ?? Layer.empty,
    parts.parser ?? Layer.empty,
    parts.llm ?? Layer.empty,
    ScrapeReplay.layer,
  ).pipe(Layer.provideMerge(LlmUsage.layerCharging), Layer.provideMerge(Usage.layer), Layer.provideMerge(parts.store))
  const searching = parts.search.pipe(Layer.provideMerge(parts.localIndex), Layer.provideMerge(base))
  const engines = parts.browser !== undefined ? Layer.merge(parts.fetcher, parts.browser) : parts.fetcher
  const net = Layer.mergeAll(engines, parts.webhooks).pipe(Layer.provideMerge(searching))
  const cache = parts.cacheOff ? ScrapeCache.layerDisabled : StoreScrapeCache.layerFromJobStore
  const scrape = Layer.mergeAll(Scrape.layer, ParseModule.layer, MapModule.layer).pipe(
    Layer.provide(cache),
    Layer.provide(parts.builder),
    Layer.provide(parts.cacheScope),
    Layer.provideMerge(net),
  )
  const checks = MonitorChecks.layer.pipe(Layer.provide(parts.mailer ?? Layer.empty), Layer.provideMerge(scrape))
  const runner = TaskRunner.layer.pipe(
    Layer.provide(Layer.mergeAll(RobotsCache.layer, AgentSteps.layer, CheckSteps.layer)),
    Layer.provideMerge(checks),
  )
  const jobs = Layer.mergeAll(
    ExtractModule.layer,
    LlmsTxtModule.layer,
    AgentModule.layer,
    SearchModule.layer,
    MonitorModule.layer,
  ).pipe(Layer.provideMerge(JobControl.layer))
  const services = Layer.mergeAll(
    CrawlModule.layer,
    BatchScrapeModule.layer,
    jobs,
    Drain.layer({ ...Worker.defaults, ...parts.workerOptions }),
    InteractSessions.layer.pipe(Layer.provide(parts.interact)),
    ...(parts.worker !== undefined ? [parts.worker] : []),
  ).pipe(Layer.provideMerge(runner))
  // Before anything is built, so that the worker's and the services' fibers log through it (and decode with the
  // guard's intranet policy) too.
  return services.pipe(
    Layer.provide(Logging.layer),
    Layer.provide(UrlGuard.intranetPolicy.pipe(Layer.provide(parts.guard))),
  )
}

const workerLayer = (option: EngineOptions["worker"]) =>
  option === false ? undefined : Worker.layer(option === true || option === undefined ? {} : option)

export const layer = (options: EngineOptions = {}): Layer.Layer<EngineServices> => {
  // Settings are checked here, so that a bad one throws where the engine is made, not at its first request.
  const settings = { proxies: Proxies.layer(options.proxies), llm: llmLayer(options.llm) }
  return options.browser !== "auto" && options.parser !== "auto"
    ? layerWith(options, settings, options.browser, options.parser)
    : Layer.unwrapEffect(
        Effect.gen(function* () {
          const browser = options.browser === "auto" ? yield* discoverBrowser : options.browser
          const parser = options.parser === "auto" ? yield* discoverParser : options.parser
          return layerWith(options, settings, browser, parser)
        }),
      )
}

/** The model of the options: a layer as given, settings checked now (a bad one throws here). */
const llmLayer = (llm: EngineOptions["llm"]): Layer.Layer<Llm> | undefined => {
  if (llm === undefined) return undefined
  if (Layer.isLayer(llm)) return llm as Layer.Layer<Llm>
  const resolved = LlmConfig.resolveSettings(llm as LlmConfig.LlmSettings)
  if (Either.isLeft(resolved)) throw new Error(resolved.left)
  return LlmConfig.layerResolved(resolved.right)
}

/**
 * The search chain of the options, and the local index, which pages go into only when something may read it: `local`
 * in the chain, or a provider layer of the caller's own.
 */
const searchParts = ({ search, searchIndex }: Pick<EngineOptions, "search" | "searchIndex">) => {
  if (Layer.isLayer(search))
    return { search: search as Layer.Layer<SearchProvider>, localIndex: LocalIndex.layer(searchIndex) }
  const chain = search as ReadonlyArray<SearchSettings.SearchProviderSetting> | undefined
  return {
    search: SearchSettings.layer(chain),
    localIndex: LocalIndex.layer(searchIndex, SearchSettings.searchesLocal(chain)),
  }
}

const layerWith = (
  options: EngineOptions,
  settings: { readonly proxies: Layer.Layer<Proxies.Proxies>; readonly llm: Layer.Layer<Llm> | undefined },
  browser: Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> | undefined,
  parser: Layer.Layer<FileParser> | undefined,
): Layer.Layer<EngineServices> =>
  assemble({
    guard: UrlGuard.layer({
      allowPrivateAddresses: options.allowPrivateAddresses ?? false,
      allow: options.allowedTargets ?? [],
    }),
    fetcher: HttpFetcher.layer,
    browser,
    parser,
    store: Layer.orDie(
      options.store ?? MemoryJobStore.layer(options.cacheMaxBytes ? { cacheMaxBytes: options.cacheMaxBytes } : {}),
    ),
    cacheOff: options.cacheMaxBytes === 0,
    cacheScope: CacheScope.layer(options.cacheScope),
    builder: DocumentBuilder.layerThreads({
      threads: options.contentThreads ?? 0,
      ...(options.contentThreadMb !== undefined ? { maxHeapMb: options.contentThreadMb } : {}),
    }),
    worker: workerLayer(options.worker),
    workerOptions: typeof options.worker === "object" ? options.worker : {},
    workQueue: options.workQueue ?? WorkQueue.layerInProcess,
    jobs: JobsConfig.layer(options.jobs ?? {}),
    // The engine's worker sends the deliveries; an engine without one only queues them for another process's.
    webhooks: Webhooks.layer({
      secret: options.webhookSecret,
      deliver: options.deliverWebhooks ?? options.worker !== false,
    }),
    heap: HeapGrowth.layer(options.heapGrowthPercent ?? 0),
    interact: InteractSessions.configLayer(options.interact),
    mailer: options.mailer,
    proxies: settings.proxies,
    llm: settings.llm,
    ...searchParts(options),
    artifacts:
      options.artifacts === undefined
        ? undefined
        : "bucket" in options.artifacts
          ? S3Artifacts.layer(options.artifacts)
          : DirectoryArtifacts.layerDirectory(options.artifacts),
  })

/** What a host decides about the engine `layerConfig` makes, besides the environment's settings. */
export interface HostOptions {
  /** Run the long-running worker; default: unless `WEBDATA_WORKER=0`. */
  readonly worker?: boolean
  /** Send webhook deliveries from this process; default: when it runs the worker. */
  readonly deliverWebhooks?: boolean
  /** How new jobs reach a worker (see `EngineOptions.workQueue`). */
  readonly workQueue?: Layer.Layer<WorkQueue.WorkQueue>
  /** Job settings over the environment's (a bounded status page for a host whose answers are bounded). */
  readonly jobs?: Partial<JobsConfig.JobsConfigShape>
  /** Sends monitors' emails (the server's SMTP mailer when `WEBDATA_SMTP_URL` is set). */
  readonly mailer?: Layer.Layer<Mailer>
  /** The worker's grace period when it stops, over `WEBDATA_SHUTDOWN_GRACE_MS` (see `WorkerOptions`). */
  readonly shutdownGraceMs?: number
}

/**
 * The engine configured from the environment (see docs/configuration.md) over the given store (the host picks it,
 * since durable stores live in their own packages). `WEBDATA_WORKER=0` leaves the worker out.
 */
export const layerConfig = (
  store: Layer.Layer<JobStore, unknown>,
  browser?: Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard>,
  parser?: Layer.Layer<FileParser>,
  host: HostOptions = {},
): Layer.Layer<EngineServices> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const cacheMb = yield* Config.number("WEBDATA_CACHE_MAX_MB").pipe(Config.withDefault(256))
      const worker = host.worker ?? (yield* Config.boolean("WEBDATA_WORKER").pipe(Config.withDefault(true)))
      const workerOptions = {
        ...(yield* Worker.optionsConfig),
        ...(host.shutdownGraceMs !== undefined ? { shutdownGraceMs: host.shutdownGraceMs } : {}),
      }
      const artifacts = yield* ArtifactsConfig.layerConfig
      const llm = yield* LlmConfig.layerConfig
      const search = yield* SearchSettings.settingsConfig
      return assemble({
        guard: UrlGuard.layerConfig,
        fetcher: Layer.orDie(HttpFetcher.layerConfig),
        browser,
        parser,
        store: Layer.orDie(store),
        cacheOff: cacheMb === 0,
        cacheScope: CacheScope.layerConfig,
        builder: DocumentBuilder.layerConfig,
        worker: worker ? Worker.layer(workerOptions) : undefined,
        workerOptions,
        workQueue: host.workQueue ?? WorkQueue.layerInProcess,
        jobs: JobsConfig.layerConfig(host.jobs),
        webhooks: Layer.orDie(Webhooks.layerConfig(host.deliverWebhooks ?? worker)),
        heap: HeapGrowth.layerConfig,
        interact: InteractSessions.configLayerConfig,
        mailer: host.mailer,
        proxies: Layer.orDie(Proxies.layerConfig),
        artifacts: Option.getOrUndefined(artifacts),
        llm: Option.getOrUndefined(llm),
        search: SearchSettings.layer(search),
        localIndex: Layer.orDie(LocalIndex.layerConfig(SearchSettings.searchesLocal(search))),
      })
    }).pipe(Effect.orDie),
  )
