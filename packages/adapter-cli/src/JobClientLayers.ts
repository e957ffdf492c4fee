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
  BatchScrape,
  BatchScrapeRequest,
  Crawl,
  CrawlRequest,
  Decode,
  type Document,
  decodeMapRequest,
  JobControl,
  type JobStatus,
  Map as MapModule,
} from "@webdata/core/engine"
import { MemoryJobStore } from "@webdata/core/jobs"
import { Config, Effect, Layer, Option } from "effect"
import { CliFailure } from "./CliFailure.js"
import { JobClient, type JobClientShape, type JobKind, type MapLink } from "./JobClient.js"
import { localEngine } from "./LocalEngine.js"
import { fail } from "./ScraperLayers.js"

/** The store's driver (with the server package that names it) loads only when `WEBDATA_STORE` asks for one. */
const engineHere = Layer.unwrapEffect(
  Effect.flatMap(Config.option(Config.string("WEBDATA_STORE")), (store) =>
    Option.isSome(store)
      ? Effect.promise(() => import("@webdata/adapter-express")).pipe(
          Effect.map(({ storeLayerConfig }) => localEngine(storeLayerConfig)),
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
}

const jobPath = (kind: JobKind): string => (kind === "crawl" ? "/v2/crawl" : "/v2/batch/scrape")

/** Request bodies are checked here first, so a typo fails before anything is sent. */
const validators = {
  crawl: Decode.decodeStrict(CrawlRequest),
  batch: Decode.decodeStrict(BatchScrapeRequest),
  map: decodeMapRequest,
}

/**
 * `skip` of the status answer's `next` link. Only the cursor is taken from it: the link's host is the server's view
 * of itself, which behind a proxy may not be reachable from here.
 */
const skipOf = (next: string | null | undefined, fallback: number): number | undefined => {
  if (typeof next !== "string") return undefined
  const skip = Number(new URL(next, "http://localhost").searchParams.get("skip") ?? Number.NaN)
  return Number.isInteger(skip) && skip >= 0 ? skip : fallback
}

/** Remote mode: the v2 API of a webdata or Firecrawl server, statuses polled and paged through `next`. */
export const layerRemote = (apiUrl: string, apiKey: string | undefined): Layer.Layer<JobClient> =>
  Layer.effect(
    JobClient,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const base = apiUrl.replace(/\/+$/, "")
      const call = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<ApiAnswer, CliFailure> =>
        (apiKey ? HttpClientRequest.bearerToken(request, apiKey) : request).pipe(
          client.execute,
          Effect.flatMap((response) =>
            Effect.map(
              Effect.orElseSucceed(response.json, () => ({})),
              (body) => [response.status, body as ApiAnswer] as const,
            ),
          ),
          Effect.scoped,
          Effect.mapError(fail),
          Effect.flatMap(([status, answer]) =>
            status >= 400 || answer.success === false
              ? Effect.fail(
                  new CliFailure(
                    `${answer.error ?? `The server answered ${status}`}${answer.code ? ` (${answer.code})` : ""}`,
                  ),
                )
              : Effect.succeed(answer),
          ),
        )
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
      return {
        start: (kind, body) =>
          Effect.flatMap(post(jobPath(kind), body, validators[kind]), (answer) =>
            typeof answer.id === "string"
              ? Effect.succeed({
                  id: answer.id,
                  ...(answer.invalidURLs !== undefined ? { invalidURLs: answer.invalidURLs } : {}),
                })
              : Effect.fail(new CliFailure("The server answered without a job id")),
          ),
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
      } satisfies JobClientShape
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
