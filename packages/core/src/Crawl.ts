/**
 * Starting a crawl: validate the request (a `prompt` read into options that explicit ones override), check the
 * operator's permissions, and create the job with its seed in the store. Workers take it from there (`Jobs/`).
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { modelOptionsFromPrompt } from "./Crawl/ModelPromptOptions.js"
import { optionsFromPrompt, type PromptOptions } from "./Crawl/PromptOptions.js"
import { CrawlRequest, type ParamsPreviewRequest } from "./Domain/CrawlRequest.js"
import { decodeStrict } from "./Domain/Decode.js"
import { decodeMapRequest } from "./Domain/MapRequest.js"
import { ScrapeOptions } from "./Domain/ScrapeOptions.js"
import { withScheme } from "./Domain/Url.js"
import { RequestError } from "./Errors.js"
import type { CrawlerOptions, CrawlSpec } from "./Jobs/JobSpec.js"
import { type Job, JobStore, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig, type JobsConfigShape } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { frontierTask } from "./Jobs/TaskRunner.js"
import { announce, checkWebhookTarget, Webhooks } from "./Jobs/Webhooks.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { Llm } from "./Llm/Llm.js"
import { MapService } from "./Map.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import { encodeTraced } from "./Observability/JobTrace.js"
import { availableEngines, unsupportedOption } from "./Scrape/Capabilities.js"

export interface StartedCrawl {
  readonly job: Job
  /** With a `prompt`: the options read from it, and the options the crawl runs with. */
  readonly prompt?: {
    readonly promptGeneratedOptions: Record<string, unknown>
    readonly finalCrawlerOptions: CrawlerOptions
  }
  /** A prompt that gave no options: the crawl runs with the explicit ones, and this says so. */
  readonly warning?: string
}

export interface PreviewedOptions {
  readonly url: string
  readonly options: Record<string, unknown>
  readonly understood: ReadonlyArray<string>
}

export class Crawl extends Context.Tag("@webdata/core/Crawl")<
  Crawl,
  {
    /**
     * Starts a crawl from a request body (validated here, like the API's). `mayIgnoreRobots`: the caller's key has the
     * `ignoreRobotsTxt` flag.
     */
    readonly start: (
      input: unknown,
      owner: Owner,
      mayIgnoreRobots?: boolean,
    ) => Effect.Effect<StartedCrawl, RequestError | StoreError>
    /** The options a prompt stands for (`/v2/crawl/params-preview`). */
    readonly previewParams: (request: ParamsPreviewRequest) => Effect.Effect<PreviewedOptions, RequestError>
  }
>() {}

const decodeRequest = decodeStrict(CrawlRequest)

/** `ignoreRobotsTxt` is the operator's to allow (Firecrawl gates it too): a 403 when asked for and not allowed. */
export const checkIgnoreRobots = (
  config: JobsConfigShape,
  requested: boolean,
  granted = false,
): Effect.Effect<void, RequestError> =>
  requested && !config.allowIgnoreRobotsTxt && !granted
    ? Effect.fail(
        new RequestError({
          reason: "Forbidden",
          code: "FORBIDDEN",
          message:
            "ignoreRobotsTxt is not enabled (servers allow it with WEBDATA_ALLOW_IGNORE_ROBOTS=1 or to one key with its ignoreRobotsTxt flag, the library with jobs: { allowIgnoreRobotsTxt: true })",
        }),
      )
    : Effect.void
const defaultScrapeOptions = Schema.decodeSync(ScrapeOptions)({})
const crawlerKeys = Object.keys(CrawlRequest.fields).filter(
  (key) => !["url", "prompt", "scrapeOptions", "webhook", "origin", "integration", "zeroDataRetention"].includes(key),
) as ReadonlyArray<keyof CrawlerOptions>

const crawlerOptionsOf = (request: CrawlRequest): CrawlerOptions =>
  Object.fromEntries(
    crawlerKeys.filter((key) => request[key] !== undefined).map((key) => [key, request[key]]),
  ) as unknown as CrawlerOptions

const PROMPT_HELP =
  "without a language model (WEBDATA_LLM), prompts are read by fixed phrasings: name paths (/blog), depths, limits, subdomains, external links or sitemaps"

const promptFailed = () =>
  new RequestError({
    reason: "Validation",
    code: "BAD_REQUEST",
    message: `Failed to process natural language prompt. Please try rephrasing or use explicit crawler options (${PROMPT_HELP}).`,
  })

const promptIgnored = (prompt: string) =>
  `The prompt ${JSON.stringify(prompt.slice(0, 200))} gave no crawler options (${PROMPT_HELP}); the crawl runs with the explicit options.`

export const make = Effect.gen(function* () {
  const engines = yield* availableEngines
  const store = yield* JobStore
  const config = yield* JobsConfig
  const queue = yield* WorkQueue
  const webhooks = yield* Webhooks
  const guard = yield* UrlGuard
  const model = yield* Effect.serviceOption(Llm)
  const mapper = yield* Effect.serviceOption(MapService)

  /**
   * The options a prompt stands for: the model's reading (with a sample of the site's URLs) when there is a model,
   * else, or when the model fails, the deterministic reader's.
   */
  const readPrompt = (prompt: string, url: string): Effect.Effect<PromptOptions> => {
    const offline = Effect.sync(() => optionsFromPrompt(prompt, url))
    if (Option.isNone(model)) return offline
    const sample = Option.isNone(mapper)
      ? Effect.succeed<ReadonlyArray<string>>([])
      : decodeMapRequest({ url, limit: 200, timeout: 10_000 }).pipe(
          Effect.flatMap(mapper.value.map),
          Effect.map((result) => result.links.map((link) => link.url)),
          Effect.orElseSucceed((): ReadonlyArray<string> => []),
        )
    return sample.pipe(
      Effect.flatMap((urls) => modelOptionsFromPrompt(model.value, prompt, url, urls)),
      Effect.flatMap((read) => (Object.keys(read.options).length > 0 ? Effect.succeed(read) : offline)),
      Effect.catchAll((error) =>
        Effect.zipRight(Effect.logWarning(`The model could not read a crawl prompt: ${error.message}`), offline),
      ),
    )
  }

  /**
   * The request with the prompt's options under the explicit ones and the prompt's options on their own; a prompt
   * that gives no options leaves the request as it is, with a warning (an empty one says nothing at all).
   */
  const withPrompt = Effect.fn("Crawl.withPrompt")(function* (input: unknown, request: CrawlRequest) {
    if (request.prompt === undefined || request.prompt.trim() === "") return { request }
    const { options } = yield* readPrompt(request.prompt, withScheme(request.url))
    if (Object.keys(options).length === 0) return { request, warning: promptIgnored(request.prompt) }
    const explicit = input as Record<string, unknown>
    const merged = yield* decodeRequest({ ...options, ...explicit })
    return { request: merged, generated: options as Record<string, unknown> }
  })

  const start = Effect.fn("Crawl.start")(function* (input: unknown, owner: Owner, mayIgnoreRobots = false) {
    const decoded = yield* decodeRequest(input)
    yield* queue.admit
    const { request, generated, warning } = yield* withPrompt(input, decoded)
    yield* checkIgnoreRobots(config, request.ignoreRobotsTxt, mayIgnoreRobots)
    const crawler = crawlerOptionsOf(request)
    const spec: CrawlSpec = {
      kind: "crawl",
      url: withScheme(request.url),
      crawler,
      scrapeOptions: request.scrapeOptions ?? defaultScrapeOptions,
    }
    // Refused now rather than failing every page of the crawl later.
    const unsupported = unsupportedOption(spec.scrapeOptions, engines)
    if (unsupported !== undefined) return yield* unsupported
    yield* checkWebhookTarget(guard, request.webhook)
    const now = Date.now()
    const delayMs = request.delay !== undefined ? Math.round(request.delay * 1000) : undefined
    const job = yield* store.createJob(
      {
        kind: "crawl",
        owner,
        url: spec.url,
        options: yield* encodeTraced(spec),
        limit: request.limit,
        // A delay spaces the crawl's fetches, so they go one at a time (as Firecrawl does).
        ...(delayMs !== undefined ? { delayMs, maxConcurrency: 1 } : {}),
        ...(delayMs === undefined && request.maxConcurrency !== undefined
          ? { maxConcurrency: request.maxConcurrency }
          : {}),
        ...(request.webhook !== undefined ? { webhook: request.webhook } : {}),
        zeroDataRetention: request.zeroDataRetention ?? false,
        createdAt: now,
        expiresAt: now + config.jobTtlMs,
      },
      [frontierTask(spec, spec.url, 0)],
    )
    yield* queue.notify({ jobId: job.id, kind: "crawl" })
    yield* announce(webhooks, job, "started")
    return {
      job,
      ...(generated !== undefined
        ? { prompt: { promptGeneratedOptions: generated, finalCrawlerOptions: crawler } }
        : {}),
      ...(warning !== undefined ? { warning } : {}),
    } satisfies StartedCrawl
  })

  const previewParams = Effect.fn("Crawl.previewParams")(function* (request: ParamsPreviewRequest) {
    const url = withScheme(request.url)
    const { options, understood } = yield* readPrompt(request.prompt, url)
    if (Object.keys(options).length === 0) return yield* promptFailed()
    return { url, options: options as Record<string, unknown>, understood } satisfies PreviewedOptions
  })

  return { start, previewParams }
})

export const layer: Layer.Layer<Crawl, never, JobStore | JobsConfig | WorkQueue | Webhooks | UrlGuard> = Layer.effect(
  Crawl,
  make,
)
