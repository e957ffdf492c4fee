/** Operator settings of crawl and batch jobs. */
import { Config, Context, Effect, Layer } from "effect"

export interface JobsConfigShape {
  /** How long a job and its documents stay readable after it was created. */
  readonly jobTtlMs: number
  /** Whether requests may set `ignoreRobotsTxt` (Firecrawl gates it as an enterprise feature; here the operator). */
  readonly allowIgnoreRobotsTxt: boolean
  /**
   * The JSON size a status page of documents stays under (it holds one document at least); a host whose answers are
   * bounded lowers it (a buffered Lambda answer is at most 6 MB).
   */
  readonly statusPageBytes: number
}

export class JobsConfig extends Context.Tag("@webdata/core/JobsConfig")<JobsConfig, JobsConfigShape>() {}

export const defaults: JobsConfigShape = {
  jobTtlMs: 24 * 60 * 60 * 1000,
  allowIgnoreRobotsTxt: false,
  statusPageBytes: 10 * 1024 * 1024,
}

export const layer = (options: Partial<JobsConfigShape> = {}): Layer.Layer<JobsConfig> =>
  Layer.succeed(JobsConfig, { ...defaults, ...options })

/** `WEBDATA_JOB_TTL_HOURS` (default 24) and `WEBDATA_ALLOW_IGNORE_ROBOTS=1`; the host's `overrides` over them. */
export const layerConfig = (overrides: Partial<JobsConfigShape> = {}): Layer.Layer<JobsConfig> =>
  Layer.effect(
    JobsConfig,
    Effect.gen(function* () {
      const hours = yield* Config.number("WEBDATA_JOB_TTL_HOURS").pipe(Config.withDefault(24))
      const allowIgnoreRobotsTxt = yield* Config.boolean("WEBDATA_ALLOW_IGNORE_ROBOTS").pipe(Config.withDefault(false))
      return { ...defaults, jobTtlMs: Math.round(hours * 60 * 60 * 1000), allowIgnoreRobotsTxt, ...overrides }
    }).pipe(Effect.orDie),
  )
