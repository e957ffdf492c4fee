/**
 * The Promise facade for apps that do not use Effect: `new Webdata(options).scrape(url, options)`, crawls, batch
 * scrapes, maps and monitors (`webdata.monitors`). It validates options exactly like the HTTP API and throws
 * `WebdataError`s that carry Firecrawl's error `code`. Jobs run on the engine's worker in this process (unless
 * `worker: false`), in the store given by `store` (in memory by default).
 */
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { buffer } from "node:stream/consumers"
import { Cause, Effect, Exit, ManagedRuntime, Option, Stream } from "effect"
import { Agent, type AgentStatusView, type PublicStep } from "./Agent.js"
import { BatchScrape } from "./BatchScrape.js"
import { Crawl } from "./Crawl.js"
import type { AgentRequestInput } from "./Domain/AgentRequest.js"
import type { BatchScrapeRequestInput } from "./Domain/BatchScrapeRequest.js"
import type { CrawlRequestInput } from "./Domain/CrawlRequest.js"
import { decodeStrict, type ValidationIssue } from "./Domain/Decode.js"
import type { Document } from "./Domain/Document.js"
import type { ExtractRequestInput } from "./Domain/ExtractRequest.js"
import type { LlmsTxtRequestInput } from "./Domain/LlmsTxtRequest.js"
import { decodeMapRequest, type MapRequestInput } from "./Domain/MapRequest.js"
import { decodeParseOptionsValue, type ParseOptionsInput } from "./Domain/ParseOptions.js"
import { type ScrapeOptionsInput, ScrapeRequest } from "./Domain/ScrapeOptions.js"
import { decodeSearchRequest, type SearchRequestInput } from "./Domain/SearchRequest.js"
import * as Engine from "./Engine.js"
import { mapError } from "./ErrorCodes.js"
import { type EngineError, RequestError } from "./Errors.js"
import { Extract, extractStatusBody } from "./Extract.js"
import { CreateSessionRequest } from "./Interact/InteractRequest.js"
import { InteractSessions } from "./Interact/InteractSessions.js"
import { JobControl, reportedTotal } from "./Jobs/JobControl.js"
import type { JobErrors, JobKind, JobStatus, StoreError } from "./Jobs/JobStore.js"
import { LlmsTxt, llmsTxtStatusBody } from "./LlmsTxt.js"
import { type MapResult, MapService } from "./Map.js"
import { Parse } from "./Parse.js"
import { Scrape } from "./Scrape.js"
import { Search, type SearchOutcome } from "./Search.js"
import { WebdataMonitors } from "./WebdataMonitors.js"
import { type InteractOptions, type Runner, WebdataSession } from "./WebdataSession.js"

/** A failed engine call: `code` is the API's error code (`SCRAPE_TIMEOUT`, `BAD_REQUEST`, ...). */
export class WebdataError extends Error {
  override readonly name = "WebdataError"
  readonly code: string
  /** The HTTP status the REST API answers for this error. */
  readonly status: number
  /** For validation errors: the list of issues. */
  readonly details: unknown
  constructor(override readonly cause: EngineError) {
    const { code, status, message } = mapError(cause)
    super(libraryMessage(cause, message))
    this.code = code
    this.status = status
    this.details = cause._tag === "RequestError" ? cause.details : undefined
  }
}

/**
 * The API answers unknown keys with Firecrawl's text about "the body"; a library caller passed options, so it is told
 * which options it misspelled.
 */
const libraryMessage = (error: EngineError, message: string): string => {
  if (error._tag !== "RequestError" || !Array.isArray(error.details)) return message
  const unknown = (error.details as ReadonlyArray<ValidationIssue>)
    .filter((issue) => issue.code === "unrecognized_keys")
    .flatMap((issue) => (issue.keys ?? []).map((key) => [...issue.path, key].join(".")))
  return unknown.length === 0
    ? message
    : `Unrecognized option${unknown.length > 1 ? "s" : ""}: ${unknown.map((key) => `"${key}"`).join(", ")}`
}

export interface WebdataOptions extends Omit<Engine.EngineOptions, "browser" | "parser"> {
  /**
   * The browser engine: by default (`"auto"`) the installed `@webdata/browser` with the Chromium it finds, or none;
   * a layer of your own; or `false` for plain HTTP only.
   */
  readonly browser?: Engine.EngineOptions["browser"] | false
  /**
   * The file parsers: by default (`"auto"`) the installed `@webdata/parse`, or none; a layer of your own; or `false`
   * for none (files answer 415).
   */
  readonly parser?: Engine.EngineOptions["parser"] | false
}

/** A job's progress and one page of its documents. */
export interface JobSnapshot {
  readonly id: string
  readonly status: JobStatus
  /** Pages recorded with a document. */
  readonly completed: number
  /** Pages admitted so far (failed ones left out). */
  readonly total: number
  /** Pages that ended in an error. */
  readonly failed: number
  readonly expiresAt: Date
  readonly data: ReadonlyArray<Document>
  /** Where the next page of documents starts (`skip`), while the job runs or more remain. */
  readonly next?: number
}

export type CrawlOptions = Omit<CrawlRequestInput, "url">
export type BatchScrapeOptions = Omit<BatchScrapeRequestInput, "urls">
export type MapOptions = Omit<MapRequestInput, "url">
export type SearchOptions = Omit<SearchRequestInput, "query">
export type ExtractOptions = ExtractRequestInput
export type AgentOptions = Omit<AgentRequestInput, "prompt">
export type LlmsTxtOptions = Omit<LlmsTxtRequestInput, "url">

/** An llms.txt generation's status: Firecrawl v1's answer (`status`, `data.llmstxt`, `data.llmsfulltxt`). */
export type LlmsTxtStatus = ReturnType<typeof llmsTxtStatusBody>

/** An extract's status: Firecrawl's answer (`status`, `data`, `sources`, `warning`, token usage). */
export type ExtractStatus = ReturnType<typeof extractStatusBody>

/** An agent run's status with its steps. */
export type AgentStatus = Omit<AgentStatusView, "job"> & { readonly id: string; readonly expiresAt: Date }

/**
 * A running agent: iterate it for its steps as they happen (the iteration ends with the run), or await `result()`.
 */
export interface AgentRun extends AsyncIterable<PublicStep> {
  /** The run's id, once it has started (a refused request rejects it). */
  readonly id: Promise<string>
  /** The final status: `completed` with `data`, or `failed` / `cancelled` with `error`. */
  readonly result: () => Promise<AgentStatus>
  readonly cancel: () => Promise<void>
}

export interface PageOptions {
  readonly skip?: number
  readonly limit?: number
}

/** A file given to `parse` as bytes. */
const bytesOf = async (
  file: string | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
): Promise<Uint8Array> => {
  if (typeof file === "string") return readFile(file)
  if (file instanceof Uint8Array) return file
  if (file instanceof ArrayBuffer) return new Uint8Array(file)
  // A web stream is async-iterable in Node; the DOM typings do not say so.
  return buffer(file as AsyncIterable<Uint8Array>)
}

export class Webdata {
  readonly #runtime: ManagedRuntime.ManagedRuntime<Engine.EngineServices, never>
  /** Monitors: targets checked on a schedule, each check saying what changed (`create`, `runAndWait`, `check`, ...). */
  readonly monitors: WebdataMonitors

  constructor(options: WebdataOptions = {}) {
    const { browser = "auto", parser = "auto", ...engine } = options
    this.#runtime = ManagedRuntime.make(
      Engine.layer({
        ...engine,
        ...(browser !== false ? { browser } : {}),
        ...(parser !== false ? { parser } : {}),
      }),
    )
    this.monitors = new WebdataMonitors((effect) => this.#run(effect))
  }

  async #run<A>(effect: Effect.Effect<A, EngineError | StoreError, Engine.EngineServices>): Promise<A> {
    const exit = await this.#runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure) && failure.value._tag !== "StoreError") throw new WebdataError(failure.value)
    throw Cause.squash(exit.cause)
  }

  /**
   * Opens a browser session (it needs the `browser` option): drive it with `execute`, read it with `scrape`, end it
   * with `close` or `await using session = await webdata.interact()`.
   */
  async interact(options: InteractOptions = {}): Promise<WebdataSession> {
    const run: Runner = (effect) => this.#run(effect)
    const { info, cdpUrl } = await this.#run(
      Effect.gen(function* () {
        const request = yield* decodeStrict(CreateSessionRequest)(options)
        const sessions = yield* InteractSessions
        const info = yield* sessions.open({ ...request, owner: null })
        const access = yield* sessions.access(info.id, info.controlToken)
        return { info, cdpUrl: access.live.cdpEndpoint }
      }),
    )
    return new WebdataSession(info.id, cdpUrl, new Date(info.expiresAt), run)
  }

  /** Scrapes one URL. Options are the v2 scrape options (`formats`, `onlyMainContent`, `timeout`, ...). */
  scrape(url: string, options: Omit<ScrapeOptionsInput, "url"> = {}): Promise<Document> {
    return this.#run(
      Effect.gen(function* () {
        const request = yield* decodeStrict(ScrapeRequest)({ ...options, url })
        const scraper = yield* Scrape
        return yield* scraper.scrape(request)
      }),
    )
  }

  /**
   * Parses a file (PDF, DOCX, XLSX, PPTX, ODT, EPUB, RTF, CSV, HTML, ...) into a document: a path, its bytes, or a
   * stream of them. `fileName` names bytes and streams (the bytes decide what the file is; the name is a last hint).
   */
  parse(
    file: string | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    options: ParseOptionsInput & { readonly fileName?: string; readonly contentType?: string } = {},
  ): Promise<Document> {
    const { fileName, contentType, ...parseOptions } = options
    return this.#run(
      Effect.gen(function* () {
        const decoded = yield* decodeParseOptionsValue(parseOptions)
        const bytes = yield* Effect.tryPromise({
          try: () => bytesOf(file),
          catch: (error) =>
            new RequestError({
              reason: "Validation",
              code: "BAD_REQUEST",
              message: `Could not read the file: ${error instanceof Error ? error.message : String(error)}`,
            }),
        })
        const name = fileName ?? (typeof file === "string" ? basename(file) : "upload")
        const parser = yield* Parse
        return yield* parser.parse({ bytes, name, contentType }, decoded)
      }),
    )
  }

  /** Starts a crawl; read its progress with `getCrawlStatus` or its pages with `crawlDocuments`. */
  async startCrawl(url: string, options: CrawlOptions = {}): Promise<{ readonly id: string }> {
    const started = await this.#run(Effect.flatMap(Crawl, (crawl) => crawl.start({ ...options, url }, null)))
    return { id: started.job.id }
  }

  /** Crawls a site and waits for the end: every page's document. */
  async crawl(url: string, options: CrawlOptions = {}): Promise<JobSnapshot> {
    const { id } = await this.startCrawl(url, options)
    return this.#waitFor("crawl", id)
  }

  getCrawlStatus(id: string, page: PageOptions = {}): Promise<JobSnapshot> {
    return this.#status("crawl", id, page)
  }

  /** The crawl's documents as they are recorded; the iteration ends with the crawl. */
  crawlDocuments(id: string): AsyncIterable<Document> {
    return this.#documents("crawl", id)
  }

  cancelCrawl(id: string): Promise<boolean> {
    return this.#cancel("crawl", id)
  }

  getCrawlErrors(id: string): Promise<JobErrors> {
    return this.#errors("crawl", id)
  }

  async startBatchScrape(
    urls: ReadonlyArray<string>,
    options: BatchScrapeOptions = {},
  ): Promise<{ readonly id: string; readonly invalidURLs?: ReadonlyArray<string> }> {
    const started = await this.#run(Effect.flatMap(BatchScrape, (batch) => batch.start({ ...options, urls }, null)))
    return { id: started.job.id, ...(started.invalidURLs !== undefined ? { invalidURLs: started.invalidURLs } : {}) }
  }

  /** Scrapes every URL and waits for the end. */
  async batchScrape(urls: ReadonlyArray<string>, options: BatchScrapeOptions = {}): Promise<JobSnapshot> {
    const { id } = await this.startBatchScrape(urls, options)
    return this.#waitFor("batch", id)
  }

  getBatchScrapeStatus(id: string, page: PageOptions = {}): Promise<JobSnapshot> {
    return this.#status("batch", id, page)
  }

  batchScrapeDocuments(id: string): AsyncIterable<Document> {
    return this.#documents("batch", id)
  }

  cancelBatchScrape(id: string): Promise<boolean> {
    return this.#cancel("batch", id)
  }

  getBatchScrapeErrors(id: string): Promise<JobErrors> {
    return this.#errors("batch", id)
  }

  /** The URLs of a site: sitemaps plus links discovered from `url`. */
  map(url: string, options: MapOptions = {}): Promise<MapResult> {
    return this.#run(
      Effect.gen(function* () {
        const request = yield* decodeMapRequest({ ...options, url })
        return yield* (yield* MapService).map(request)
      }),
    )
  }

  /**
   * Searches the web (the providers of `search`; by default the local index of every page this engine scraped):
   * `data.web`, `data.news`, `data.images` as `sources` asks, each result scraped when `scrapeOptions.formats` is given.
   */
  search(query: string, options: SearchOptions = {}): Promise<SearchOutcome> {
    return this.#run(
      Effect.gen(function* () {
        const request = yield* decodeSearchRequest({ ...options, query })
        return yield* (yield* Search).search(request, null)
      }),
    )
  }

  /**
   * Starts an extract: structured data out of `urls` (a trailing `/*` reads every page under a path) with a `prompt`
   * and/or a JSON `schema`. Without a configured model, a schema is filled by the offline extractor.
   */
  async startExtract(
    options: ExtractOptions,
  ): Promise<{ readonly id: string; readonly invalidURLs: ReadonlyArray<string> }> {
    const started = await this.#run(Effect.flatMap(Extract, (extract) => extract.start(options, null)))
    return { id: started.job.id, invalidURLs: started.invalidURLs }
  }

  getExtractStatus(id: string): Promise<ExtractStatus> {
    return this.#run(
      Effect.map(
        Effect.flatMap(Extract, (extract) => extract.status(id, null)),
        extractStatusBody,
      ),
    )
  }

  /** Extracts and waits for the end: the merged data (`status` completed), or why it failed. */
  async extract(options: ExtractOptions): Promise<ExtractStatus> {
    const { id } = await this.startExtract(options)
    await this.#ended(id)
    return this.getExtractStatus(id)
  }

  /**
   * Starts an llms.txt generation for the site of `url`: up to `maxUrls` of its pages (10 by default), each a line
   * `- [title](url): description`, and with `showFullText` the llms-full.txt of their markdown.
   */
  async startLlmsTxt(url: string, options: LlmsTxtOptions = {}): Promise<{ readonly id: string }> {
    const job = await this.#run(Effect.flatMap(LlmsTxt, (llmsTxt) => llmsTxt.start({ ...options, url }, null)))
    return { id: job.id }
  }

  getLlmsTxtStatus(id: string): Promise<LlmsTxtStatus> {
    return this.#run(
      Effect.map(
        Effect.flatMap(LlmsTxt, (llmsTxt) => llmsTxt.status(id, null)),
        llmsTxtStatusBody,
      ),
    )
  }

  /** Generates a site's llms.txt and waits for the end: `data.llmstxt` (`status` completed), or why it failed. */
  async llmsTxt(url: string, options: LlmsTxtOptions = {}): Promise<LlmsTxtStatus> {
    const { id } = await this.startLlmsTxt(url, options)
    await this.#ended(id)
    return this.getLlmsTxtStatus(id)
  }

  /** Starts an agent run toward `prompt` (it needs a language model: the `llm` option or WEBDATA_LLM). */
  async startAgent(prompt: string, options: AgentOptions = {}): Promise<{ readonly id: string }> {
    const job = await this.#run(Effect.flatMap(Agent, (agent) => agent.start({ ...options, prompt }, null)))
    return { id: job.id }
  }

  getAgentStatus(id: string): Promise<AgentStatus> {
    return this.#run(
      Effect.map(
        Effect.flatMap(Agent, (agent) => agent.status(id, null)),
        ({ job, ...view }) => ({
          ...view,
          id: job.id,
          expiresAt: new Date(job.expiresAt),
        }),
      ),
    )
  }

  cancelAgent(id: string): Promise<void> {
    return this.#run(Effect.flatMap(Agent, (agent) => agent.cancel(id, null)))
  }

  /** The run's steps as they are recorded; the iteration ends with the run. */
  async *agentSteps(id: string): AsyncIterable<PublicStep> {
    const runtime = await this.#runtime.runtime()
    yield* Stream.toAsyncIterableRuntime(Stream.unwrap(Effect.map(Agent, (agent) => agent.steps(id, null))), runtime)
  }

  /** Runs an agent: iterate the returned run for its steps, or await its `result()`. */
  agent(prompt: string, options: AgentOptions = {}): AgentRun {
    const id = this.startAgent(prompt, options).then((started) => started.id)
    // A rejection is the caller's to see through `id`, `result()` or iteration, never an unhandled one.
    id.catch(() => undefined)
    return {
      id,
      result: async () => {
        const started = await id
        await this.#ended(started)
        return this.getAgentStatus(started)
      },
      cancel: async () => this.cancelAgent(await id),
      [Symbol.asyncIterator]: () => {
        const steps = id.then((started) => this.agentSteps(started)[Symbol.asyncIterator]())
        return { next: () => steps.then((iterator) => iterator.next()) }
      },
    }
  }

  /** Releases connections, caches, the worker and the store. The instance cannot be used afterwards. */
  close(): Promise<void> {
    return this.#runtime.dispose()
  }

  #status(kind: JobKind, id: string, page: PageOptions): Promise<JobSnapshot> {
    return this.#run(
      Effect.gen(function* () {
        const control = yield* JobControl
        const { job, documents, nextSkip } = yield* control.status(kind, id, null, {
          skip: page.skip ?? 0,
          ...(page.limit !== undefined ? { limit: page.limit } : {}),
        })
        return {
          id: job.id,
          status: job.status,
          completed: job.completed,
          total: reportedTotal(job),
          failed: job.failed,
          expiresAt: new Date(job.expiresAt),
          data: documents,
          ...(nextSkip !== undefined ? { next: nextSkip } : {}),
        } satisfies JobSnapshot
      }),
    )
  }

  /** Resolves once the job has ended (its document stream ends with it). */
  #ended(id: string): Promise<void> {
    return this.#run(Effect.flatMap(JobControl, (control) => Stream.runDrain(control.documents(id, 0))))
  }

  async #waitFor(kind: JobKind, id: string): Promise<JobSnapshot> {
    // The document stream ends once the job has ended and every document was read.
    const data = await this.#run(
      Effect.map(
        Effect.flatMap(JobControl, (control) => Stream.runCollect(control.documents(id, 0))),
        (chunk) => Array.from(chunk),
      ),
    )
    const status = await this.#status(kind, id, { limit: 1 })
    const { next: _next, ...rest } = status
    return { ...rest, data }
  }

  async *#documents(kind: JobKind, id: string): AsyncIterable<Document> {
    await this.#run(Effect.flatMap(JobControl, (control) => control.get(kind, id, null)))
    const runtime = await this.#runtime.runtime()
    const stream = Stream.unwrap(Effect.map(JobControl, (control) => control.documents(id, 0)))
    yield* Stream.toAsyncIterableRuntime(stream, runtime)
  }

  #cancel(kind: JobKind, id: string): Promise<boolean> {
    return this.#run(
      Effect.map(
        Effect.flatMap(JobControl, (control) => control.cancel(kind, id, null)),
        (outcome) => outcome === "cancelled",
      ),
    )
  }

  #errors(kind: JobKind, id: string): Promise<JobErrors> {
    return this.#run(Effect.flatMap(JobControl, (control) => control.errors(kind, id, null)))
  }
}
