/**
 * Starting a batch scrape (or adding URLs to one with `appendToId`): every URL becomes one task of the job; workers
 * scrape them with the batch's options and the job ends when the last is recorded.
 */
import { Context, Effect, FiberRef, Layer } from "effect"
import { BatchScrapeRequest, batchScrapeOptions } from "./Domain/BatchScrapeRequest.js"
import { decodeStrict } from "./Domain/Decode.js"
import { IntranetHosts, urlProblem, withScheme } from "./Domain/Url.js"
import { RequestError } from "./Errors.js"
import { type Job, JobStore, type NewTask, newId, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { announce, checkWebhookTarget, Webhooks } from "./Jobs/Webhooks.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import { encodeTraced } from "./Observability/JobTrace.js"
import { availableEngines, unsupportedOption } from "./Scrape/Capabilities.js"

/** A batch admits any number of URLs over its life (`appendToId`): its limit is not a bound in practice. */
const BATCH_LIMIT = 1_000_000_000

export interface StartedBatch {
  readonly job: Job
  /** URLs dropped as invalid; absent when the request said `ignoreInvalidURLs: false` (Firecrawl's answer shape). */
  readonly invalidURLs?: ReadonlyArray<string>
}

export class BatchScrape extends Context.Tag("@webdata/core/BatchScrape")<
  BatchScrape,
  { readonly start: (input: unknown, owner: Owner) => Effect.Effect<StartedBatch, RequestError | StoreError> }
>() {}

const decodeRequest = decodeStrict(BatchScrapeRequest)

/**
 * One task per URL, in order. Keys are unique per task, so a URL listed twice is scraped twice, as Firecrawl does;
 * the store still records each task's end once.
 */
const tasksOf = (urls: ReadonlyArray<string>): ReadonlyArray<NewTask> =>
  urls.map((url) => {
    const absolute = withScheme(url)
    return { url: absolute, key: newId(), depth: 0, host: new URL(absolute).host }
  })

export const make = Effect.gen(function* () {
  const engines = yield* availableEngines
  const store = yield* JobStore
  const config = yield* JobsConfig
  const queue = yield* WorkQueue
  const webhooks = yield* Webhooks
  const guard = yield* UrlGuard

  const append = Effect.fn("BatchScrape.append")(function* (id: string, owner: Owner, urls: ReadonlyArray<string>) {
    const found = yield* store.getJob(id)
    const job = found._tag === "Some" ? found.value : undefined
    if (job === undefined || job.kind !== "batch" || (job.owner !== null && job.owner !== owner))
      return yield* new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Job not found" })
    yield* store.addTasks(id, tasksOf(urls), Date.now())
    return job
  })

  const create = Effect.fn("BatchScrape.create")(function* (
    request: BatchScrapeRequest,
    owner: Owner,
    urls: ReadonlyArray<string>,
  ) {
    const now = Date.now()
    const job = yield* store.createJob(
      {
        kind: "batch",
        owner,
        options: yield* encodeTraced({ kind: "batch", scrapeOptions: batchScrapeOptions(request) }),
        limit: BATCH_LIMIT,
        ...(request.maxConcurrency !== undefined ? { maxConcurrency: request.maxConcurrency } : {}),
        ...(request.webhook !== undefined ? { webhook: request.webhook } : {}),
        zeroDataRetention: request.zeroDataRetention ?? false,
        createdAt: now,
        expiresAt: now + config.jobTtlMs,
      },
      tasksOf(urls),
    )
    yield* announce(webhooks, job, "started")
    return job
  })

  const start = Effect.fn("BatchScrape.start")(function* (input: unknown, owner: Owner) {
    const request = yield* decodeRequest(input)
    yield* queue.admit
    const intranet = yield* FiberRef.get(IntranetHosts)
    const valid = request.urls.filter((url) => urlProblem(url, intranet) === undefined)
    const invalid = request.urls.filter((url) => urlProblem(url, intranet) !== undefined)
    if (valid.length === 0)
      return yield* new RequestError({ reason: "Validation", code: "BAD_REQUEST", message: "No valid URLs provided" })
    // Refused now rather than failing every page of the batch later.
    const unsupported = unsupportedOption(batchScrapeOptions(request), engines)
    if (unsupported !== undefined) return yield* unsupported
    yield* checkWebhookTarget(guard, request.webhook)
    const job =
      request.appendToId !== undefined
        ? yield* append(request.appendToId, owner, valid)
        : yield* create(request, owner, valid)
    yield* queue.notify({ jobId: job.id, kind: "batch" })
    return { job, ...(request.ignoreInvalidURLs !== false ? { invalidURLs: invalid } : {}) } satisfies StartedBatch
  })

  return { start }
})

export const layer: Layer.Layer<BatchScrape, never, JobStore | JobsConfig | WorkQueue | Webhooks | UrlGuard> =
  Layer.effect(BatchScrape, make)
