/**
 * Firecrawl's v1 routes: each reads its v1 body into the v2 body it stands for (`V1/`), runs the service the v2 route
 * runs, for the same owner and with the same charge, and answers in v1's shape.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { BatchScrape } from "../BatchScrape.js"
import { Crawl } from "../Crawl.js"
import { decodeStrict } from "../Domain/Decode.js"
import { decodeMapRequest } from "../Domain/MapRequest.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"
import { decodeSearchRequest } from "../Domain/SearchRequest.js"
import type { EngineError } from "../Errors.js"
import { Extract, extractStatusBody } from "../Extract.js"
import { JobControl } from "../Jobs/JobControl.js"
import type { JobKind, StoreError } from "../Jobs/JobStore.js"
import { LlmsTxt, llmsTxtStatusBody } from "../LlmsTxt.js"
import { MapService } from "../Map.js"
import { Scrape } from "../Scrape.js"
import { Search } from "../Search.js"
import { CREDITS_PER_PAGE, CREDITS_PER_REQUEST } from "../Tenants/Costing.js"
import { Usage } from "../Tenants/Usage.js"
import { toV2Batch } from "../V1/Batch.js"
import { toV2Crawl } from "../V1/Crawl.js"
import { toV1Error } from "../V1/Errors.js"
import { toV2Extract } from "../V1/Extract.js"
import { toV1Status } from "../V1/JobStatus.js"
import { toV1Map, toV2Map } from "../V1/Map.js"
import { toV2Scrape } from "../V1/Scrape.js"
import { toV1Document } from "../V1/ScrapeOptions.js"
import { toV1Search, toV2Search } from "../V1/Search.js"
import { Caller, WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { startExtract } from "./ExtractHandlers.js"
import {
  activeCrawls,
  callerOwner,
  checkJobId,
  jobHandlers,
  nextPageUrl,
  startBatch,
  startCrawl,
  startedAnswer,
  statusHead,
  statusPage,
} from "./JobHandlers.js"
import { confirmJobSlot } from "./JobSlot.js"
import { publicBase } from "./PublicUrl.js"
import { respond } from "./Respond.js"

const decodeScrapeRequest = decodeStrict(ScrapeRequest)

/** The failures `respond` answers. */
type Answered = Parameters<typeof respond>[0] extends Effect.Effect<unknown, infer E, unknown> ? E : never

/** `respond` with v1's error messages. */
const respondV1 = <E extends Answered, R>(effect: Effect.Effect<unknown, E, R>) =>
  respond(Effect.mapError(effect, toV1Error))

const CRAWL_PATH = "/v1/crawl"
const BATCH_PATH = "/v1/batch/scrape"

/**
 * v1 answered a batch scrape's status at its crawl route too (both were crawls), and the official SDK's v1 client
 * polls a batch there: a crawl id is looked up as a crawl, any other as a batch.
 */
const kindAtCrawlRoute = (id: string) =>
  Effect.gen(function* () {
    const control = yield* JobControl
    const owner = yield* callerOwner
    return yield* control.get("crawl", yield* checkJobId(id), owner).pipe(
      Effect.as<JobKind>("crawl"),
      Effect.catchIf(
        (error) => error._tag === "RequestError" && error.reason === "NotFound",
        () => Effect.succeed<JobKind>("batch"),
      ),
    )
  })

/** A status page of job `id` in v1's shape, its `next` under `path`. */
const v1Status = (
  request: HttpServerRequest.HttpServerRequest,
  kind: Effect.Effect<JobKind, EngineError | StoreError, JobControl | Caller>,
  path: string,
  id: string,
  skip = 0,
  limit?: number,
) =>
  respondV1(
    Effect.gen(function* () {
      const page = yield* statusPage(yield* kind, id, skip, limit)
      const next =
        page.nextSkip === undefined ? undefined : nextPageUrl(publicBase(request), path, id, page.nextSkip, limit)
      return toV1Status(statusHead(page.job, next), page.documents)
    }),
  )

export const V1Handlers = HttpApiBuilder.group(WebdataApi, "v1", (handlers) =>
  Effect.gen(function* () {
    const scraper = yield* Scrape
    const mapper = yield* MapService
    const crawl = yield* Crawl
    const batch = yield* BatchScrape
    const searcher = yield* Search
    const extract = yield* Extract
    const llmsTxt = yield* LlmsTxt
    const control = yield* JobControl
    const usage = yield* Usage
    const crawlJobs = yield* jobHandlers("crawl")
    const batchJobs = yield* jobHandlers("batch")
    const withControl = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, JobControl, control)
    return handlers
      .handleRaw("v1Scrape", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const v2 = yield* toV2Scrape(yield* readJsonBody(request))
            const input = yield* decodeScrapeRequest(v2.body)
            const { owner } = yield* Caller
            const data = yield* scraper.scrape({ ...input, owner })
            yield* usage.charge(owner, { credits: CREDITS_PER_PAGE })
            if (!input.zeroDataRetention) yield* control.keepScrape(data, owner)
            return { success: true, data: toV1Document(data, v2.llmField) }
          }),
        ),
      )
      .handleRaw("v1ScrapeById", ({ path }) =>
        respondV1(
          Effect.gen(function* () {
            const data = yield* control.getScrape(yield* checkJobId(path.id), yield* callerOwner)
            return { success: true, data: toV1Document(data, "both") }
          }),
        ),
      )
      .handleRaw("v1Map", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const input = yield* decodeMapRequest(yield* toV2Map(yield* readJsonBody(request)))
            const result = yield* mapper.map(input)
            yield* usage.charge(yield* callerOwner, { credits: CREDITS_PER_REQUEST })
            return toV1Map(result)
          }),
        ),
      )
      .handleRaw("v1Crawl", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const started = yield* startCrawl(crawl, yield* toV2Crawl(yield* readJsonBody(request)))
            return startedAnswer(request, CRAWL_PATH, started.job)
          }),
        ),
      )
      .handleRaw("v1CrawlActive", () => withControl(activeCrawls))
      .handleRaw("v1CrawlOngoing", () => withControl(activeCrawls))
      .handleRaw("v1crawlStatus", ({ path, urlParams, request }) =>
        withControl(v1Status(request, kindAtCrawlRoute(path.id), CRAWL_PATH, path.id, urlParams.skip, urlParams.limit)),
      )
      .handleRaw("v1crawlCancel", ({ path }) => crawlJobs.cancel(path.id))
      .handleRaw("v1crawlErrors", ({ path }) => crawlJobs.errors(path.id))
      .handleRaw("v1crawlErrorsByDelete", ({ path }) => crawlJobs.errors(path.id))
      .handleRaw("v1BatchScrape", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const started = yield* startBatch(batch, yield* toV2Batch(yield* readJsonBody(request)))
            return {
              ...startedAnswer(request, BATCH_PATH, started.job),
              ...(started.invalidURLs !== undefined ? { invalidURLs: started.invalidURLs } : {}),
            }
          }),
        ),
      )
      .handleRaw("v1batchStatus", ({ path, urlParams, request }) =>
        withControl(
          v1Status(request, Effect.succeed<JobKind>("batch"), BATCH_PATH, path.id, urlParams.skip, urlParams.limit),
        ),
      )
      .handleRaw("v1batchCancel", ({ path }) => batchJobs.cancel(path.id))
      .handleRaw("v1batchErrors", ({ path }) => batchJobs.errors(path.id))
      .handleRaw("v1batchErrorsByDelete", ({ path }) => batchJobs.errors(path.id))
      .handleRaw("v1Search", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const v2 = yield* toV2Search(yield* readJsonBody(request))
            const input = yield* decodeSearchRequest(v2.body)
            const { owner } = yield* Caller
            const outcome = yield* searcher.search(input, owner)
            yield* usage.charge(owner, { credits: outcome.creditsUsed })
            return toV1Search(outcome, v2.llmField)
          }),
        ),
      )
      .handleRaw("v1Extract", ({ request }) =>
        respondV1(
          Effect.flatMap(Effect.flatMap(readJsonBody(request), toV2Extract), (body) => startExtract(extract, body)),
        ),
      )
      .handleRaw("v1ExtractStatus", ({ path }) =>
        respondV1(
          Effect.gen(function* () {
            return extractStatusBody(yield* extract.status(yield* checkJobId(path.id), yield* callerOwner))
          }),
        ),
      )
      .handleRaw("v1LlmsTxt", ({ request }) =>
        respondV1(
          Effect.gen(function* () {
            const job = yield* llmsTxt.start(yield* readJsonBody(request), yield* callerOwner)
            yield* confirmJobSlot(job)
            return { success: true, id: job.id }
          }),
        ),
      )
      .handleRaw("v1LlmsTxtStatus", ({ path }) =>
        respondV1(
          Effect.gen(function* () {
            return llmsTxtStatusBody(yield* llmsTxt.status(yield* checkJobId(path.id), yield* callerOwner))
          }),
        ),
      )
  }),
)
