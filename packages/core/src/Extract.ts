/**
 * Extract: structured data out of a set of pages. Starting one validates the request, expands nothing yet, and
 * records a durable job whose tasks are the URLs (wildcards and searches become tasks that expand into pages when a
 * worker runs them); workers read each page with the `json` format (the model, or the offline extractor when the
 * request has a schema and no model is configured). The answer merges the pages' values (`Extract/ExtractResult.ts`).
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { decodeStrict } from "./Domain/Decode.js"
import { DEFAULT_EXTRACT_PAGES, ExtractRequest } from "./Domain/ExtractRequest.js"
import { ScrapeOptions } from "./Domain/ScrapeOptions.js"
import { partitionUrls, withScheme } from "./Domain/Url.js"
import { RequestError } from "./Errors.js"
import { EXTRACT_TIMED_OUT, type ExtractOutcome, readExtract } from "./Extract/ExtractResult.js"
import { pageScrapeOptions, searchTask, seedTasks } from "./Extract/ExtractTasks.js"
import { JobControl } from "./Jobs/JobControl.js"
import type { ExtractSpec } from "./Jobs/JobSpec.js"
import { type Job, JobStore, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { announce, checkWebhookTarget, Webhooks } from "./Jobs/Webhooks.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import { encodeTraced } from "./Observability/JobTrace.js"
import { availableEngines, llmNotConfigured, unsupportedOption } from "./Scrape/Capabilities.js"
import { SearchProvider } from "./Search/SearchProvider.js"

export interface StartedExtract {
  readonly job: Job
  /** URLs dropped as invalid (`ignoreInvalidURLs`, the default). */
  readonly invalidURLs: ReadonlyArray<string>
}

export interface ExtractStatusView extends ExtractOutcome {
  readonly job: Job
  readonly showSources: boolean
}

export class Extract extends Context.Tag("@webdata/core/Extract")<
  Extract,
  {
    /** Starts an extract from a request body (validated here, like the API's). */
    readonly start: (input: unknown, owner: Owner) => Effect.Effect<StartedExtract, RequestError | StoreError>
    readonly status: (id: string, owner: Owner) => Effect.Effect<ExtractStatusView, RequestError | StoreError>
  }
>() {}

const decodeRequest = decodeStrict(ExtractRequest)
const defaultScrapeOptions = Schema.decodeSync(ScrapeOptions)({})

const searchNotConfigured = new RequestError({
  reason: "Unsupported",
  code: "SEARCH_NOT_CONFIGURED",
  message:
    "An extract without `urls` finds its pages with web search, and no search provider is configured (WEBDATA_SEARCH). Send `urls` (a trailing /* reads every page under a path).",
})

/** The status answer of the API, also what the library returns. */
export const extractStatusBody = (view: ExtractStatusView) => {
  const tokens = view.usage.inputTokens + view.usage.outputTokens
  return {
    success: view.status !== "failed",
    id: view.job.id,
    status: view.status,
    data: view.data,
    ...(view.error !== undefined ? { error: view.error } : {}),
    ...(view.warnings.length > 0 ? { warning: view.warnings.join(" "), warnings: view.warnings } : {}),
    ...(view.showSources && view.status === "completed" ? { sources: view.sources } : {}),
    expiresAt: new Date(view.job.expiresAt).toISOString(),
    // One credit per page read, as Firecrawl counts scrapes; the tokens are reported apart.
    creditsUsed: view.pages,
    tokensUsed: tokens,
    llmUsage: view.usage,
    pages: view.pages,
    failedPages: view.failedPages,
  }
}

export const make = Effect.gen(function* () {
  const engines = yield* availableEngines
  const store = yield* JobStore
  const control = yield* JobControl
  const config = yield* JobsConfig
  const queue = yield* WorkQueue
  const webhooks = yield* Webhooks
  const guard = yield* UrlGuard
  const search = yield* Effect.serviceOption(SearchProvider)

  const start = Effect.fn("Extract.start")(function* (input: unknown, owner: Owner) {
    const request = yield* decodeRequest(input)
    yield* queue.admit
    if (request.schema === undefined && !engines.llm)
      return yield* llmNotConfigured(
        "An extract without a `schema` (with a schema, the offline extractor fills it from the pages' structured data)",
      )
    const given = request.urls ?? []
    const { valid, invalid: invalidURLs } = yield* partitionUrls(given)
    if (invalidURLs.length > 0 && !request.ignoreInvalidURLs)
      return yield* new RequestError({
        reason: "Validation",
        code: "BAD_REQUEST",
        message: `Invalid URLs: ${invalidURLs.slice(0, 5).join(", ")}`,
      })
    const urls = valid.map(withScheme)
    if (given.length > 0 && urls.length === 0)
      return yield* new RequestError({ reason: "Validation", code: "BAD_REQUEST", message: "No valid URLs provided" })
    if (urls.length === 0 && Option.isNone(search)) return yield* searchNotConfigured
    const warnings: Array<string> = []
    if (request.enableWebSearch && urls.length > 0 && Option.isNone(search))
      warnings.push("Web search is not configured (WEBDATA_SEARCH): only the given URLs were read.")
    const pageLimit = request.limit ?? DEFAULT_EXTRACT_PAGES
    const spec: ExtractSpec = {
      kind: "extract",
      ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
      ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
      ...(request.schema !== undefined ? { schema: request.schema } : {}),
      scrapeOptions: request.scrapeOptions ?? defaultScrapeOptions,
      pageLimit,
      includeSubdomains: request.includeSubdomains,
      ignoreSitemap: request.ignoreSitemap,
      allowExternalLinks: request.allowExternalLinks,
      showSources: request.showSources ?? request.__experimental_showSources ?? false,
      warnings,
      ...(request.timeout !== undefined ? { deadline: Date.now() + request.timeout } : {}),
    }
    // Refused now rather than failing every page later.
    const unsupported = unsupportedOption(pageScrapeOptions(spec), engines)
    if (unsupported !== undefined) return yield* unsupported
    yield* checkWebhookTarget(guard, request.webhook)
    const seeds = [
      ...seedTasks(urls),
      ...(request.prompt !== undefined && (urls.length === 0 || (request.enableWebSearch && Option.isSome(search)))
        ? [searchTask(request.prompt)]
        : []),
    ]
    const now = Date.now()
    const job = yield* store.createJob(
      {
        kind: "extract",
        owner,
        ...(urls[0] !== undefined ? { url: urls[0] } : {}),
        options: yield* encodeTraced(spec),
        // The pages, plus the expansions and searches that find them.
        limit: pageLimit + seeds.filter((task) => !task.key.startsWith("page:")).length,
        ...(request.webhook !== undefined ? { webhook: request.webhook } : {}),
        zeroDataRetention: request.zeroDataRetention ?? false,
        createdAt: now,
        expiresAt: now + config.jobTtlMs,
      },
      seeds,
    )
    yield* queue.notify({ jobId: job.id, kind: "extract" })
    yield* announce(webhooks, job, "started")
    return { job, invalidURLs } satisfies StartedExtract
  })

  /** An extract past its `timeout` is failed when it is looked at (its running pages stop within a poll). */
  const expired = (job: Job) =>
    Effect.gen(function* () {
      const failed = yield* store.failJob(job.id, EXTRACT_TIMED_OUT, Date.now())
      if (Option.isSome(failed)) yield* announce(webhooks, failed.value, "failed", [], EXTRACT_TIMED_OUT)
      return Option.getOrElse(failed, () => job)
    })

  const status = Effect.fn("Extract.status")(function* (id: string, owner: Owner) {
    const found = yield* control.get("extract", id, owner)
    const read = yield* readExtract(store, found)
    const late = read.spec.deadline !== undefined && found.status === "scraping" && Date.now() > read.spec.deadline
    const job = late ? yield* expired(found) : found
    const { spec, outcome } = late ? yield* readExtract(store, job) : read
    return { ...outcome, job, showSources: spec.showSources } satisfies ExtractStatusView
  })

  return { start, status }
})

export const layer: Layer.Layer<Extract, never, JobStore | JobControl | JobsConfig | WorkQueue | Webhooks | UrlGuard> =
  Layer.effect(Extract, make)
