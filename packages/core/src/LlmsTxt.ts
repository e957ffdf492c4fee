/**
 * llms.txt generation (Firecrawl v1's `/v1/llmstxt`): a durable job that maps the site, reads up to `maxUrls` of its
 * pages, and answers the llmstxt.org file built from them (`LlmsTxt/Format.ts`), with llms-full.txt when asked.
 * Each page's line is described by the configured model, or without one by its meta description or first sentence.
 */
import { Context, Effect, Layer } from "effect"
import { decodeStrict } from "./Domain/Decode.js"
import { LlmsTxtRequest } from "./Domain/LlmsTxtRequest.js"
import { withScheme } from "./Domain/Url.js"
import type { RequestError } from "./Errors.js"
import { JobControl } from "./Jobs/JobControl.js"
import type { LlmsTxtSpec } from "./Jobs/JobSpec.js"
import { type Job, JobStore, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { type LlmsTxtOutcome, readLlmsTxt } from "./LlmsTxt/Result.js"
import { pageScrapeOptions, siteTask } from "./LlmsTxt/Tasks.js"
import { encodeTraced } from "./Observability/JobTrace.js"
import { availableEngines } from "./Scrape/Capabilities.js"

export interface LlmsTxtView extends LlmsTxtOutcome {
  readonly job: Job
}

export class LlmsTxt extends Context.Tag("@webdata/core/LlmsTxt")<
  LlmsTxt,
  {
    /** Starts a generation from a request body (validated here, like the API's). */
    readonly start: (input: unknown, owner: Owner) => Effect.Effect<Job, RequestError | StoreError>
    readonly status: (id: string, owner: Owner) => Effect.Effect<LlmsTxtView, RequestError | StoreError>
  }
>() {}

const decodeRequest = decodeStrict(LlmsTxtRequest)

/** The status answer of the API (Firecrawl v1's shape), also what the library returns. */
export const llmsTxtStatusBody = (view: LlmsTxtView) => ({
  success: view.status !== "failed",
  status: view.status,
  data: {
    llmstxt: view.llmstxt,
    ...(view.llmsfulltxt !== undefined ? { llmsfulltxt: view.llmsfulltxt } : {}),
  },
  ...(view.error !== undefined ? { error: view.error } : {}),
  ...(view.warnings.length > 0 ? { warnings: view.warnings } : {}),
  expiresAt: new Date(view.job.expiresAt).toISOString(),
  // One credit per page read, as for scrapes.
  creditsUsed: view.pages,
  tokensUsed: view.usage.inputTokens + view.usage.outputTokens,
})

export const make = Effect.gen(function* () {
  const engines = yield* availableEngines
  const store = yield* JobStore
  const control = yield* JobControl
  const config = yield* JobsConfig
  const queue = yield* WorkQueue

  const start = Effect.fn("LlmsTxt.start")(function* (input: unknown, owner: Owner) {
    const request = yield* decodeRequest(input)
    yield* queue.admit
    const url = withScheme(request.url)
    const describe = engines.llm ? "model" : "offline"
    const spec: LlmsTxtSpec = {
      kind: "llmstxt",
      url,
      maxUrls: request.maxUrls,
      showFullText: request.showFullText,
      describe,
      scrapeOptions: pageScrapeOptions(describe, request.cache),
    }
    const now = Date.now()
    const job = yield* store.createJob(
      {
        kind: "llmstxt",
        owner,
        url,
        options: yield* encodeTraced(spec),
        // The map, then the pages it found.
        limit: request.maxUrls + 1,
        zeroDataRetention: false,
        createdAt: now,
        expiresAt: now + config.jobTtlMs,
      },
      [siteTask(url)],
    )
    yield* queue.notify({ jobId: job.id, kind: "llmstxt" })
    return job
  })

  const status = Effect.fn("LlmsTxt.status")(function* (id: string, owner: Owner) {
    const job = yield* control.get("llmstxt", id, owner)
    return { ...(yield* readLlmsTxt(store, job)), job } satisfies LlmsTxtView
  })

  return { start, status }
})

export const layer: Layer.Layer<LlmsTxt, never, JobStore | JobControl | JobsConfig | WorkQueue> = Layer.effect(
  LlmsTxt,
  make,
)
