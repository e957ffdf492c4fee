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
  /** The shortest gap a monitor's schedule may have between two runs. */
  readonly monitorMinIntervalMs: number
}

export class JobsConfig extends Context.Tag("@webdata/core/JobsConfig")<JobsConfig, JobsConfigShape>() {}

export const defaults: JobsConfigShape = {
  jobTtlMs: 24 * 60 * 60 * 1000,
  allowIgnoreRobotsTxt: false,
  statusPageBytes: 10 * 1024 * 1024,
  monitorMinIntervalMs: 5 * 60 * 1000,
}

export const layer = (options: Partial<JobsConfigShape> = {}): Layer.Layer<JobsConfig> =>
  Layer.succeed(JobsConfig, { ...defaults, ...options })

/**
 * `WEBDATA_JOB_TTL_HOURS` (default 24), `WEBDATA_ALLOW_IGNORE_ROBOTS=1` and `WEBDATA_MONITOR_MIN_INTERVAL_MINUTES`
 * (default 5); the host's `overrides` over them.
 */
export const layerConfig = (overrides: Partial<JobsConfigShape> = {}): Layer.Layer<JobsConfig> =>
  Layer.effect(
    JobsConfig,
    Effect.gen(function* () {
      const hours = yield* Config.number("WEBDATA_JOB_TTL_HOURS").pipe(Config.withDefault(24))
      const allowIgnoreRobotsTxt = yield* Config.boolean("WEBDATA_ALLOW_IGNORE_ROBOTS").pipe(Config.withDefault(false))
      const minInterval = yield* Config.number("WEBDATA_MONITOR_MIN_INTERVAL_MINUTES").pipe(
        Config.validate({ message: "must be more than 0", validation: (minutes) => minutes > 0 }),
        Config.withDefault(defaults.monitorMinIntervalMs / 60_000),
      )
      return {
        ...defaults,
        jobTtlMs: Math.round(hours * 60 * 60 * 1000),
        allowIgnoreRobotsTxt,
        monitorMinIntervalMs: Math.round(minInterval * 60_000),
        ...overrides,
      }
    }).pipe(Effect.orDie),
  )
