/**
 * The two job clients of the CLI: the engine in this process, or the v2 API of a server (`--api-url`).
 *
 * The local engine keeps its jobs in memory unless `WEBDATA_STORE` names a store: then jobs go to that store, and
 * with `WEBDATA_WORKER=0` a separate `webdata worker` runs them while this process follows.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import {
  Agent,
  AgentRequest,
  BatchScrape,
  BatchScrapeRequest,
  Crawl,
  CrawlRequest,
  Decode,
  type Document,
  decodeMapRequest,
  decodeSearchRequest,
  Extract,
  ExtractRequest,
  JobControl,
  type JobStatus,
  LlmsTxt,
  LlmsTxtRequest,
  Map as MapModule,
  Search,
} from "@webdata/core/engine"
import { MemoryJobStore } from "@webdata/core/jobs"
import { Chunk, Config, Effect, Layer, Option, Stream } from "effect"
import { makeCall, skipOf } from "./ApiCall.js"
import { CliFailure } from "./CliFailure.js"
import {
  type AgentAnswer,
  type ExtractAnswer,
  JobClient,
  type JobClientShape,
  type JobKind,
  type LlmsTxtAnswer,
  type MapLink,
  RUN_POLL,
  type SearchAnswer,
  type StartedJob,
} from "./JobClient.js"
import { localEngine } from "./LocalEngine.js"
import { fail } from "./ScraperLayers.js"

/** The store's driver (with the server package that names it) loads only when `WEBDATA_STORE` asks for one. */
const engineHere = Layer.unwrapEffect(
  Effect.flatMap(Config.option(Config.string("WEBDATA_STORE")), (store) =>
    Option.isSome(store)
      ? Effect.promise(() => import("@webdata/server")).pipe(
          Effect.map(({ StoreFromEnvironment }) => localEngine(StoreFromEnvironment.layerConfig())),
        )
      : Effect.succeed(localEngine(MemoryJobStore.layer())),
  ),
).pipe(Layer.orDie)

/** The engine in this process, configured from the environment like `webdata scrape`'s. */
export const layerLocal: Layer.Layer<JobClient> = Layer.effect(
  JobClient,
  Effect.gen(function* () {
    const crawl = yield* Crawl.Crawl
    const batch = yield* BatchScrape.BatchScrape
    const control = yield* JobControl.JobControl
    const mapper = yield* MapModule.MapService
    const extract = yield* Extract.Extract
    const agent = yield* Agent.Agent
    const llmsTxt = yield* LlmsTxt.LlmsTxt
    const searcher = yield* Search.Search
    // Jobs started here have no owner (like the library's), so every call passes `null`.
    return {
      start: (kind, body) =>
        (kind === "crawl"
          ? Effect.map(crawl.start(body, null), (started) => ({ id: started.job.id }))
          : Effect.map(batch.start(body, null), (started) => ({
              id: started.job.id,
              ...(started.invalidURLs !== undefined ? { invalidURLs: started.invalidURLs } : {}),
            }))
        ).pipe(Effect.mapError(fail)),
      status: (kind, id, skip) =>
        control.status(kind, id, null, { skip }).pipe(
          Effect.map(({ job, documents, nextSkip }) => ({
            status: job.status,
            completed: job.completed,
            total: job.status === "scraping" ? job.total - job.failed : job.completed,
            failed: job.failed,
            data: documents,
            ...(nextSkip !== undefined ? { next: nextSkip } : {}),
          })),
          Effect.mapError(fail),
        ),
      cancel: (kind, id) => control.cancel(kind, id, null).pipe(Effect.asVoid, Effect.mapError(fail)),
      errors: (kind, id) =>
        control.errors(kind, id, null).pipe(
          Effect.map((found) => found.errors.map((error) => ({ url: error.url, error: error.message }))),
          Effect.mapError(fail),
        ),
      map: (body) => decodeMapRequest(body).pipe(Effect.flatMap(mapper.map), Effect.mapError(fail)),
      search: (body) =>
        decodeSearchRequest(body).pipe(
          Effect.flatMap((request) => searcher.search(request, null)),
          Effect.mapError(fail),
        ),
      startExtract: (body) =>
        extract.start(body, null).pipe(
          Effect.map((started) => ({
            id: started.job.id,
            ...(started.invalidURLs.length > 0 ? { invalidURLs: started.invalidURLs } : {}),
          })),
          Effect.mapError(fail),
        ),
      extractStatus: (id) =>
        extract.status(id, null).pipe(Effect.map(Extract.extractStatusBody), Effect.mapError(fail)),
      startLlmsTxt: (body) =>
        llmsTxt.start(body, null).pipe(
          Effect.map((job) => ({ id: job.id })),
          Effect.mapError(fail),
        ),
      llmsTxtStatus: (id) =>
        llmsTxt.status(id, null).pipe(Effect.map(LlmsTxt.llmsTxtStatusBody), Effect.mapError(fail)),
      startAgent: (body) =>
        agent.start(body, null).pipe(
          Effect.map((job) => ({ id: job.id })),
          Effect.mapError(fail),
        ),
      agentStatus: (id) => agent.status(id, null).pipe(Effect.map(Agent.agentStatusBody), Effect.mapError(fail)),
      cancelAgent: (id) => agent.cancel(id, null).pipe(Effect.mapError(fail)),
      agentSteps: (id) => agent.steps(id, null).pipe(Stream.mapError(fail)),
    } satisfies JobClientShape
  }),
).pipe(Layer.provide(engineHere))

interface ApiAnswer {
  readonly success?: boolean
  readonly error?: string
  readonly code?: string
  readonly id?: string
  readonly invalidURLs?: ReadonlyArray<string>
  readonly status?: JobStatus
  readonly completed?: number
  readonly total?: number
  readonly data?: ReadonlyArray<Document>
  readonly next?: string | null
  readonly errors?: ReadonlyArray<{ readonly url?: string; readonly error?: string }>
  readonly links?: ReadonlyArray<MapLink>
  readonly warning?: string
  readonly creditsUsed?: number
}

const jobPath = (kind: JobKind): string => (kind === "crawl" ? "/v2/crawl" : "/v2/batch/scrape")

/** Request bodies are checked here first, so a typo fails before anything is sent. */
const validators = {
  crawl: Decode.decodeStrict(CrawlRequest),
  batch: Decode.decodeStrict(BatchScrapeRequest),
  map: decodeMapRequest,
  search: decodeSearchRequest,
  extract: Decode.decodeStrict(ExtractRequest),
  llmstxt: Decode.decodeStrict(LlmsTxtRequest),
  agent: Decode.decodeStrict(AgentRequest),
}

/** The job a start answer names. */
const startedBy = (answer: ApiAnswer): Effect.Effect<StartedJob, CliFailure> =>
  typeof answer.id === "string"
    ? Effect.succeed({
        id: answer.id,
        ...(answer.invalidURLs !== undefined && answer.invalidURLs.length > 0
          ? { invalidURLs: answer.invalidURLs }
          : {}),
      })
    : Effect.fail(new CliFailure("The server answered without a job id"))

/** Remote mode: the v2 API of a webdata or Firecrawl server, statuses polled and paged through `next`. */
export const layerRemote = (apiUrl: string, apiKey: string | undefined): Layer.Layer<JobClient> =>
  Layer.effect(
    JobClient,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const base = apiUrl.replace(/\/+$/, "")
      const call = makeCall<ApiAnswer>(client, apiKey)
      const post = (
        path: string,
        body: Record<string, unknown>,
        validate: (input: unknown) => Effect.Effect<unknown, unknown>,
      ) => {
        const sent = { ...body, origin: "webdata-cli" }
        return validate(sent).pipe(
          Effect.mapError(fail),
          Effect.zipRight(call(HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(`${base}${path}`), sent))),
        )
      }
      const agentStatus = (id: string) =>
        Effect.map(
          call(HttpClientRequest.get(`${base}/v2/agent/${id}`), { status: true }),
          (answer) => answer as unknown as AgentAnswer,
        )
      return {
        start: (kind, body) => Effect.flatMap(post(jobPath(kind), body, validators[kind]), startedBy),
        status: (kind, id, skip) =>
          Effect.map(call(HttpClientRequest.get(`${base}${jobPath(kind)}/${id}?skip=${skip}`)), (answer) => {
            const data = answer.data ?? []
            const next = skipOf(answer.next, skip + data.length)
            return {
              status: answer.status ?? "scraping",
              completed: answer.completed ?? 0,
              total: answer.total ?? 0,
              data,
              ...(next !== undefined ? { next } : {}),
            }
          }),
        cancel: (kind, id) => Effect.asVoid(call(HttpClientRequest.del(`${base}${jobPath(kind)}/${id}`))),
        errors: (kind, id) =>
          Effect.map(call(HttpClientRequest.get(`${base}${jobPath(kind)}/${id}/errors`)), (answer) =>
            (answer.errors ?? []).map((error) => ({ url: error.url ?? "", error: error.error ?? "failed" })),
          ),
        map: (body) =>
          Effect.map(post("/v2/map", body, validators.map), (answer) => ({
            links: answer.links ?? [],
            ...(answer.warning !== undefined ? { warning: answer.warning } : {}),
          })),
        search: (body) =>
          Effect.map(
            post("/v2/search", body, validators.search),
            (answer) =>
              ({
                data: (answer.data ?? {}) as unknown as SearchAnswer["data"],
                ...(answer.creditsUsed !== undefined ? { creditsUsed: answer.creditsUsed } : {}),
                ...(answer.warning !== undefined ? { warning: answer.warning } : {}),
              }) satisfies SearchAnswer,
          ),
        startExtract: (body) => Effect.flatMap(post("/v2/extract", body, validators.extract), startedBy),
        extractStatus: (id) =>
          Effect.map(
            call(HttpClientRequest.get(`${base}/v2/extract/${id}`), { status: true }),
            (answer) => answer as unknown as ExtractAnswer,
          ),
        startLlmsTxt: (body) => Effect.flatMap(post("/v1/llmstxt", body, validators.llmstxt), startedBy),
        // A failed generation answers `success: false` with its status: an answer, not an error of the call.
        llmsTxtStatus: (id) =>
          Effect.map(
            call(HttpClientRequest.get(`${base}/v1/llmstxt/${id}`), { status: true }),
            (answer) => answer as unknown as LlmsTxtAnswer,
          ),
        startAgent: (body) => Effect.flatMap(post("/v2/agent", body, validators.agent), startedBy),
        agentStatus,
        cancelAgent: (id) => Effect.asVoid(call(HttpClientRequest.del(`${base}/v2/agent/${id}`))),
        // The API has no stream of steps: the status is read until the run ends, and the steps new in each read
        // are emitted.
        agentSteps: (id) =>
          Stream.paginateChunkEffect({ seen: 0, first: true }, ({ seen, first }) =>
            Effect.map(Effect.zipRight(first ? Effect.void : Effect.sleep(RUN_POLL), agentStatus(id)), (answer) => {
              const steps = answer.steps ?? []
              return [
                Chunk.fromIterable(steps.slice(seen)),
                answer.status === "processing"
                  ? Option.some({ seen: Math.max(seen, steps.length), first: false })
                  : Option.none(),
              ] as const
            }),
          ),
      } satisfies JobClientShape
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
