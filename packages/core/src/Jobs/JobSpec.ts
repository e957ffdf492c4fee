/**
 * What a worker needs to run a job's tasks, as the job record keeps it (`Job.options`): the decoded options of the
 * request, stored in their encoded (JSON) form and decoded again when a worker first meets the job.
 */
import { Effect, Schema } from "effect"
import { crawlerOptionFields } from "../Domain/CrawlRequest.js"
import { JudgeRules, MonitorTarget } from "../Domain/MonitorRequest.js"
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

const JsonSchemaValue = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** An extract: what to pull out of each page, and how its URLs expand. */
export const ExtractSpec = Schema.Struct({
  kind: Schema.Literal("extract"),
  prompt: Schema.optional(Schema.String),
  systemPrompt: Schema.optional(Schema.String),
  /** The caller's schema as sent (normalised for the model when used). */
  schema: Schema.optional(JsonSchemaValue),
  scrapeOptions: ScrapeOptions,
  /** Pages read at most once wildcards are expanded. */
  pageLimit: Schema.Int,
  includeSubdomains: Schema.Boolean,
  ignoreSitemap: Schema.Boolean,
  allowExternalLinks: Schema.Boolean,
  showSources: Schema.Boolean,
  /** Said about the run at its start (web search asked for but not configured, invalid URLs dropped). */
  warnings: Schema.Array(Schema.String),
  /** The request's `timeout`: the job fails if it has not ended by then (epoch ms). */
  deadline: Schema.optional(Schema.Number),
})
export type ExtractSpec = typeof ExtractSpec.Type

/** An agent run: the goal, the budget, and where it may go. */
export const AgentSpec = Schema.Struct({
  kind: Schema.Literal("agent"),
  prompt: Schema.String,
  urls: Schema.Array(Schema.String),
  schema: Schema.optional(JsonSchemaValue),
  strictConstrainToURLs: Schema.Boolean,
  /** Credits the run may spend (one per page read, one per search, one per 1000 model tokens). */
  maxCredits: Schema.Number,
  maxSteps: Schema.Int,
  maxTokens: Schema.Int,
  model: Schema.String,
})
export type AgentSpec = typeof AgentSpec.Type

/** A monitor's check: its targets as the monitor had them when the check began, and how changes are judged. */
export const MonitorSpec = Schema.Struct({
  kind: Schema.Literal("monitor"),
  monitorId: Schema.String,
  /** Each with its `id` (given when the monitor was created or updated). */
  targets: Schema.Array(MonitorTarget),
  goal: Schema.NullOr(Schema.String),
  /** `model`: the configured language model judges; `rules`: `judgeRules`; `off`: changes are not judged. */
  judge: Schema.Literal("model", "rules", "off"),
  judgeRules: Schema.optional(JudgeRules),
  /** Snapshots are kept at least this long. */
  retentionDays: Schema.Int,
})
export type MonitorSpec = typeof MonitorSpec.Type

/** An llms.txt generation: the site, how many pages its file lists, and how each page's line is described. */
export const LlmsTxtSpec = Schema.Struct({
  kind: Schema.Literal("llmstxt"),
  /** The start URL with its scheme. */
  url: Schema.String,
  maxUrls: Schema.Int,
  showFullText: Schema.Boolean,
  /** `model`: the configured model writes each page's description; `offline`: its meta description or first sentence. */
  describe: Schema.Literal("model", "offline"),
  /** Each page's scrape: markdown, and with a model the description as a json format. */
  scrapeOptions: ScrapeOptions,
})
export type LlmsTxtSpec = typeof LlmsTxtSpec.Type

export const JobSpec = Schema.Union(CrawlSpec, BatchSpec, ExtractSpec, AgentSpec, MonitorSpec, LlmsTxtSpec)
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
