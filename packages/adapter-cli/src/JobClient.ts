/**
 * Jobs (crawl, batch scrape, extract, llms.txt, agent) and map for the CLI: run by an engine in this process, or by a webdata /
 * Firecrawl v2 server (`--api-url`). Both answer in the same shapes, so following a job, printing and cancelling are
 * written once (`RunJob.ts`, `RunResearch.ts`). The clients themselves (`JobClientLayers.ts`) load with the first
 * command that needs one.
 */
import type { Document, JobStatus } from "@webdata/core"
import { Context, Duration, type Effect, type Stream } from "effect"
import type { CliFailure } from "./CliFailure.js"
import { type Connection, withClient } from "./Connection.js"

export type JobKind = "crawl" | "batch"

/** A job's progress and the documents of one page, from `skip` on. */
export interface JobPage {
  readonly status: JobStatus
  readonly completed: number
  /** Pages admitted so far, failed ones left out (as the API counts). */
  readonly total: number
  /** Pages that failed so far, where that comes with the status (the local engine; the API does not say). */
  readonly failed?: number
  readonly data: ReadonlyArray<Document>
  /** Where the next page of documents starts, while the job runs or more remain. */
  readonly next?: number
}

export interface StartedJob {
  readonly id: string
  /** Batch scrape with `ignoreInvalidURLs`: the URLs left out. */
  readonly invalidURLs?: ReadonlyArray<string>
}

export interface PageFailure {
  readonly url: string
  readonly error: string
}

export interface MapLink {
  readonly url: string
  readonly title?: string
  readonly description?: string
}

export interface MapAnswer {
  readonly links: ReadonlyArray<MapLink>
  readonly warning?: string
}

/** One result of a search, with its document's fields when it was scraped. */
export interface SearchItem {
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly position?: number | undefined
  readonly imageUrl?: string | undefined
  readonly markdown?: string | undefined
}

/** `POST /v2/search`'s answer. */
export interface SearchAnswer {
  readonly data: {
    readonly web?: ReadonlyArray<SearchItem>
    readonly news?: ReadonlyArray<SearchItem>
    readonly images?: ReadonlyArray<SearchItem>
  }
  readonly creditsUsed?: number
  readonly warning?: string
}

/** Pause between two status reads of an extract or agent run. */
export const RUN_POLL = Duration.millis(500)

/** Where an extract or agent run stands (the API's `status`). */
export type RunStatus = "processing" | "completed" | "failed" | "cancelled"

/** An extract's status answer (`GET /v2/extract/{id}`): the merged `data` once completed, and more fields. */
export interface ExtractAnswer {
  readonly status: RunStatus
  readonly data?: unknown
  readonly error?: string
  readonly warning?: string
  readonly warnings?: ReadonlyArray<string>
  /** Field path → the URLs that gave it (`showSources`). */
  readonly sources?: Readonly<Record<string, ReadonlyArray<string>>>
  readonly [field: string]: unknown
}

/** An llms.txt generation's status answer (`GET /v1/llmstxt/{id}`): the file (and llms-full.txt) once completed. */
export interface LlmsTxtAnswer {
  readonly status: "processing" | "completed" | "failed"
  readonly data?: { readonly llmstxt?: string; readonly llmsfulltxt?: string }
  readonly error?: string
  readonly warnings?: ReadonlyArray<string>
  readonly [field: string]: unknown
}

/** A step of an agent run, as its status lists them. */
export interface AgentStep {
  readonly step: number
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  readonly output: string
  readonly thought?: string
  readonly at: string
}

/** An agent run's status answer (`GET /v2/agent/{id}`): its steps, and `data` once it has finished. */
export interface AgentAnswer {
  readonly status: RunStatus
  readonly data?: unknown
  readonly error?: string
  readonly steps?: ReadonlyArray<AgentStep>
  readonly [field: string]: unknown
}

export interface JobClientShape {
  /** Starts a job from a v2 request body (crawl: `POST /v2/crawl`; batch: `POST /v2/batch/scrape`). */
  readonly start: (kind: JobKind, body: Record<string, unknown>) => Effect.Effect<StartedJob, CliFailure>
  readonly status: (kind: JobKind, id: string, skip: number) => Effect.Effect<JobPage, CliFailure>
  readonly cancel: (kind: JobKind, id: string) => Effect.Effect<void, CliFailure>
  readonly errors: (kind: JobKind, id: string) => Effect.Effect<ReadonlyArray<PageFailure>, CliFailure>
  /** `POST /v2/map`. */
  readonly map: (body: Record<string, unknown>) => Effect.Effect<MapAnswer, CliFailure>
  /** `POST /v2/search`. */
  readonly search: (body: Record<string, unknown>) => Effect.Effect<SearchAnswer, CliFailure>
  /** `POST /v2/extract`. */
  readonly startExtract: (body: Record<string, unknown>) => Effect.Effect<StartedJob, CliFailure>
  readonly extractStatus: (id: string) => Effect.Effect<ExtractAnswer, CliFailure>
  /** `POST /v1/llmstxt` (the API has it in v1 only). */
  readonly startLlmsTxt: (body: Record<string, unknown>) => Effect.Effect<StartedJob, CliFailure>
  readonly llmsTxtStatus: (id: string) => Effect.Effect<LlmsTxtAnswer, CliFailure>
  /** `POST /v2/agent`. */
  readonly startAgent: (body: Record<string, unknown>) => Effect.Effect<StartedJob, CliFailure>
  readonly agentStatus: (id: string) => Effect.Effect<AgentAnswer, CliFailure>
  readonly cancelAgent: (id: string) => Effect.Effect<void, CliFailure>
  /** The run's steps as they are recorded, ending with the run. */
  readonly agentSteps: (id: string) => Stream.Stream<AgentStep, CliFailure>
}

export class JobClient extends Context.Tag("@webdata/adapter-cli/JobClient")<JobClient, JobClientShape>() {}

/** Runs `effect` with the client the connection options choose: local unless `--api-url` is given. */
export const withJobClient = <A, E, R>(
  args: Connection,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, Exclude<R, JobClient>> => withClient(args, () => import("./JobClientLayers.js"), effect)
