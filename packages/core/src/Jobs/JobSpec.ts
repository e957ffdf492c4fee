/**
 * What a worker needs to run a job's tasks, as the job record keeps it (`Job.options`): the decoded options of the
 * request, stored in their encoded (JSON) form and decoded again when a worker first meets the job.
 */
import { Effect, Schema } from "effect"
import { crawlerOptionFields } from "../Domain/CrawlRequest.js"
import { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { StoreError } from "./JobStore.js"

export const CrawlerOptions = Schema.Struct(crawlerOptionFields)
export type CrawlerOptions = typeof CrawlerOptions.Type

export const CrawlSpec = Schema.Struct({
  kind: Schema.Literal("crawl"),
  /** The start URL with its scheme (the seed). */
  url: Schema.String,
  crawler: CrawlerOptions,
  scrapeOptions: ScrapeOptions,
})
export type CrawlSpec = typeof CrawlSpec.Type

export const BatchSpec = Schema.Struct({
  kind: Schema.Literal("batch"),
  scrapeOptions: ScrapeOptions,
})
export type BatchSpec = typeof BatchSpec.Type

export const JobSpec = Schema.Union(CrawlSpec, BatchSpec)
export type JobSpec = typeof JobSpec.Type

/** The spec as JSON for `NewJob.options`. */
export const encodeSpec = (spec: JobSpec): unknown => Schema.encodeSync(JobSpec)(spec)

/** A stored spec, decoded; a spec that no longer decodes is store data gone bad. */
export const decodeSpec = (options: unknown): Effect.Effect<JobSpec, StoreError> =>
  Schema.decodeUnknown(JobSpec)(options).pipe(
    Effect.mapError(
      (error) =>
        new StoreError({ reason: "InvalidData", message: `A stored job spec does not decode: ${error.message}` }),
    ),
  )
