/**
 * Crawl and batch scrape over HTTP: start, status with paged documents, cancel, errors, running crawls. Shapes are
 * Firecrawl v2's, including its quirks (cancel and errors answer without `success`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type Context, Effect } from "effect"
import { BatchScrape } from "../BatchScrape.js"
import { Crawl } from "../Crawl.js"
import { ParamsPreviewRequest } from "../Domain/CrawlRequest.js"
import { decodeStrict } from "../Domain/Decode.js"
import type { Document } from "../Domain/Document.js"
import { RequestError } from "../Errors.js"
import { JobControl, reportedTotal, type StatusRequest, type StatusTexts } from "../Jobs/JobControl.js"
import type { Job, JobHead, JobKind } from "../Jobs/JobStore.js"
import { Caller, WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { confirmJobSlot } from "./JobSlot.js"
import { publicBase } from "./PublicUrl.js"
import { respond } from "./Respond.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Firecrawl checks job ids before anything else. */
export const checkJobId = (id: string): Effect.Effect<string, RequestError> =>
  UUID.test(id)
    ? Effect.succeed(id)
    : Effect.fail(
        new RequestError({
          reason: "Validation",
          code: "BAD_REQUEST",
          message: "Invalid job ID format. Job ID must be a valid UUID.",
        }),
      )

/** The owner of the request's API key (every job and session is visible to its owner only). */
export const callerOwner = Effect.map(Caller, (caller) => caller.owner)

/** Whether the request's key may set `ignoreRobotsTxt` where the server does not allow it to everyone. */
export const callerMayIgnoreRobots = Effect.map(
  Caller,
  (caller) => caller.key?.flags.includes("ignoreRobotsTxt") === true,
)

const pathOf = (kind: JobKind): string => (kind === "crawl" ? "/v2/crawl" : "/v2/batch/scrape")

const iso = (ms: number): string => new Date(ms).toISOString()

/** The status answer of a job but its documents. */
export const statusHead = (job: JobHead, next: string | undefined) => ({
  success: true as const,
  status: job.status,
  completed: job.completed,
  total: reportedTotal(job),
  creditsUsed: job.completed,
  expiresAt: iso(job.expiresAt),
  createdAt: iso(job.createdAt),
  ...(job.completedAt !== undefined ? { completedAt: iso(job.completedAt) } : {}),
  duration: ((job.completedAt ?? Date.now()) - job.createdAt) / 1000,
  ...(next !== undefined ? { next } : {}),
})

/** The status answer of a job with `documents` (the WebSocket watcher's `catchup`). */
export const statusBody = (job: Job, documents: ReadonlyArray<Document>, next: string | undefined) => ({
  ...statusHead(job, next),
  data: documents,
})

/**
 * The status answer of a page as JSON, its documents' texts put in as they are: a page of large documents is not
 * parsed and serialised again (what `statusBody` would give, as text).
 */
const statusJson = (page: StatusTexts, next: string | undefined): string =>
  `${JSON.stringify(statusHead(page.job, next)).slice(0, -1)},"data":[${page.texts.join(",")}]}`

/**
 * The status answer's JSON of `page` of job `id` of `kind`, with the absolute URL of the next page (`base` is this
 * API's public URL, read only when there is a next page).
 */
export const statusAnswer = (
  kind: JobKind,
  id: string,
  page: StatusTexts,
  base: () => string,
  limit: number | undefined,
): string =>
  statusJson(
    page,
    page.nextSkip === undefined ? undefined : nextPageUrl(base(), pathOf(kind), id, page.nextSkip, limit),
  )

/** The crawler options of a running crawl as `/v2/crawl/active` lists them. */
const activeEntry = (job: Job) => {
  const spec = job.options as { readonly crawler?: object; readonly scrapeOptions?: unknown }
  return {
    id: job.id,
    teamId: job.owner ?? "bypass",
    url: job.url ?? "",
    created_at: iso(job.createdAt),
    options: { ...spec.crawler, scrapeOptions: spec.scrapeOptions },
  }
}

/** The page a status request with `skip` and `limit` asks for. */
export const statusRequestOf = (skip = 0, limit?: number): StatusRequest => ({
  skip: Math.max(0, Math.trunc(skip)),
  ...(limit !== undefined ? { limit } : {}),
})

/** A page of the documents of job `id` of the caller (`Caller` in context), from `skip` on. */
export const statusPage = (kind: JobKind, id: string, skip = 0, limit?: number) =>
  Effect.gen(function* () {
    const control = yield* JobControl
    const owner = yield* callerOwner
    return yield* control.status(kind, yield* checkJobId(id), owner, statusRequestOf(skip, limit))
  })

/** The absolute URL of a status page that starts at `nextSkip`, under `path` (`/v2/crawl`). */
export const nextPageUrl = (base: string, path: string, id: string, nextSkip: number, limit?: number): string =>
  `${base}${path}/${id}?skip=${nextSkip}${limit !== undefined ? `&limit=${limit}` : ""}`

/**
 * The status answer of job `id` of the caller (`Caller` in context): a page of its documents, with the absolute URL
 * of the next (`base` is this API's public URL, read only when there is a next page).
 */
export const jobStatus = (kind: JobKind, id: string, base: () => string, skip = 0, limit?: number) =>
  respond(
    Effect.gen(function* () {
      const page = yield* statusPage(kind, id, skip, limit)
      return HttpServerResponse.text(statusAnswer(kind, id, page, base, limit), { contentType: "application/json" })
    }),
  )

/** The running crawls of the caller, as `/v2/crawl/active` answers them. */
export const activeCrawls = respond(
  Effect.gen(function* () {
    const jobs = yield* (yield* JobControl).active("crawl", yield* callerOwner)
    return { success: true as const, crawls: jobs.map(activeEntry) }
  }),
)

/** Status, cancel and errors of jobs of `kind`, as the v2 routes answer them. */
export const jobHandlers = (kind: JobKind) =>
  Effect.gen(function* () {
    const control = yield* JobControl
    const status = (request: HttpServerRequest.HttpServerRequest, id: string, skip?: number, limit?: number) =>
      Effect.provideService(
        jobStatus(kind, id, () => publicBase(request), skip, limit),
        JobControl,
        control,
      )
    const cancel = (id: string) =>
      respond(
        Effect.gen(function* () {
          const outcome = yield* control.cancel(kind, yield* checkJobId(id), yield* callerOwner)
          if (outcome === "already-completed")
            return HttpServerResponse.unsafeJson(
              { success: false, code: "JOB_ALREADY_COMPLETED", error: "Crawl is already completed" },
              { status: 409 },
            )
          return { status: "cancelled" as const }
        }),
      )
    const errors = (id: string) =>
      respond(
        Effect.gen(function* () {
          const found = yield* control.errors(kind, yield* checkJobId(id), yield* callerOwner)
          return {
            errors: found.errors.map((error) => ({
              id: error.id,
              timestamp: iso(error.at),
              url: error.url,
              code: error.code,
              error: error.message,
            })),
            robotsBlocked: found.robotsBlocked,
          }
        }),
      )
    return { status, cancel, errors }
  })

const decodePreview = decodeStrict(ParamsPreviewRequest)

/** Starts a crawl of the caller from a v2 crawl body. */
export const startCrawl = (crawl: Context.Tag.Service<Crawl>, body: unknown) =>
  Effect.gen(function* () {
    const started = yield* crawl.start(body, yield* callerOwner, yield* callerMayIgnoreRobots)
    yield* confirmJobSlot(started.job)
    return started
  })

/** Starts a batch scrape of the caller from a v2 batch body. */
export const startBatch = (batch: Context.Tag.Service<BatchScrape>, body: unknown) =>
  Effect.gen(function* () {
    const started = yield* batch.start(body, yield* callerOwner)
    yield* confirmJobSlot(started.job)
    return started
  })

/** The answer to a started job: its id and the absolute URL of its status under `path` (`/v2/crawl`). */
export const startedAnswer = (request: HttpServerRequest.HttpServerRequest, path: string, job: Job) => ({
  success: true as const,
  id: job.id,
  url: `${publicBase(request)}${path}/${job.id}`,
})

export const CrawlHandlers = HttpApiBuilder.group(WebdataApi, "crawl", (handlers) =>
  Effect.gen(function* () {
    const crawl = yield* Crawl
    const control = yield* JobControl
    const job = yield* jobHandlers("crawl")
    const active = Effect.provideService(activeCrawls, JobControl, control)
    return handlers
      .handleRaw("crawl", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const started = yield* startCrawl(crawl, yield* readJsonBody(request))
            return {
              ...startedAnswer(request, "/v2/crawl", started.job),
              ...started.prompt,
              ...(started.warning !== undefined ? { warning: started.warning } : {}),
            }
          }),
        ),
      )
      .handleRaw("paramsPreview", ({ request }) =>
        respond(
          Effect.gen(function* () {
            // Firecrawl's preview body is not strict: unknown keys are ignored.
            const body = yield* readJsonBody(request)
            const { url, prompt } = (body ?? {}) as Record<string, unknown>
            const preview = yield* crawl.previewParams(yield* decodePreview({ url, prompt }))
            return { success: true as const, data: { url: preview.url, ...preview.options } }
          }),
        ),
      )
      .handleRaw("crawlActive", () => active)
      .handleRaw("crawlOngoing", () => active)
      .handleRaw("crawlStatus", ({ path, urlParams, request }) =>
        job.status(request, path.id, urlParams.skip, urlParams.limit),
      )
      .handleRaw("crawlCancel", ({ path }) => job.cancel(path.id))
      .handleRaw("crawlErrors", ({ path }) => job.errors(path.id))
  }),
)

export const BatchHandlers = HttpApiBuilder.group(WebdataApi, "batch", (handlers) =>
  Effect.gen(function* () {
    const batch = yield* BatchScrape
    const job = yield* jobHandlers("batch")
    return handlers
      .handleRaw("batchScrape", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const started = yield* startBatch(batch, yield* readJsonBody(request))
            return {
              ...startedAnswer(request, "/v2/batch/scrape", started.job),
              ...(started.invalidURLs !== undefined ? { invalidURLs: started.invalidURLs } : {}),
            }
          }),
        ),
      )
      .handleRaw("batchStatus", ({ path, urlParams, request }) =>
        job.status(request, path.id, urlParams.skip, urlParams.limit),
      )
      .handleRaw("batchCancel", ({ path }) => job.cancel(path.id))
      .handleRaw("batchErrors", ({ path }) => job.errors(path.id))
  }),
)
