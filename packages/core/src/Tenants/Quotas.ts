/**
 * Whether a caller may make a request now, by its limits (see `Limits.ts`): requests per window for the endpoint's
 * class (a counter per owner, class and window in the job store, shared by every API process), jobs in progress, the
 * queue's depth and the month's credits. Nothing is read or written for a limit that is not set.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { JobStore, type JobStoreShape, type StoreError } from "../Jobs/JobStore.js"
import type { Owner } from "../Jobs/Owner.js"
import { JOB_CLASSES } from "./EndpointClass.js"
import type { EndpointClass, Limits, Rate } from "./Limits.js"
import { monthOf, Usage } from "./Usage.js"

export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  reason: Schema.Literal("Rate", "Jobs", "Queue", "Credits"),
  message: Schema.String,
  /** Seconds after which the same request may pass (`Retry-After`). */
  retryAfter: Schema.optional(Schema.Number),
}) {}

/** Status and envelope code of each reason: 429 as Firecrawl's rate limit, 402 as its credit check. */
export const quotaStatus: Record<QuotaExceeded["reason"], readonly [number, string]> = {
  Rate: [429, "RATE_LIMIT_EXCEEDED"],
  Jobs: [429, "CONCURRENCY_LIMIT_EXCEEDED"],
  Queue: [429, "QUEUE_FULL"],
  Credits: [402, "INSUFFICIENT_CREDITS"],
}

/** When a refused job-starting request may try again: jobs and queues drain, but nobody knows when. */
const BUSY_RETRY_SECONDS = 10

export interface QuotasShape {
  readonly admit: (
    owner: Owner,
    limits: Limits,
    endpoint: EndpointClass,
    now: number,
  ) => Effect.Effect<void, QuotaExceeded | StoreError>
  /**
   * The `jobs` limit's second count, once a request admitted by the first has made its job: two requests at once may
   * both pass the first. The owner's jobs in progress are counted again, the new one included; past the limit, the
   * request is refused as the first count would have (and its caller withdraws the job, `Http/JobSlot.ts`). Of
   * requests that raced, the one whose job was made last sees every other, so the limit holds; at worst each is
   * refused, and its caller tries again.
   */
  readonly confirmJob: (owner: Owner, limits: Limits) => Effect.Effect<void, QuotaExceeded | StoreError>
}

/**
 * Whether `admit` lets a request of `endpoint` in without reading or counting anything: no rate for its class, and for
 * a request that spends credits, no credit limit (and for a job, no limit on jobs or the queue). A status poll of a key
 * without a status limit, or any request on an open server without `WEBDATA_RATE_LIMITS`.
 */
export const admitsUncounted = (limits: Limits, endpoint: EndpointClass): boolean =>
  limits.rates[endpoint] === undefined &&
  (endpoint === "status" ||
    (limits.credits === undefined &&
      (!JOB_CLASSES.has(endpoint) || (limits.jobs === undefined && limits.queue === undefined))))

export class Quotas extends Context.Tag("@webdata/core/Quotas")<Quotas, QuotasShape>() {}

const perUnit = (unit: string) => `req/${unit}`

/**
 * Counts one request against `rate` in the current fixed window of the counter `name` (in the job store, so every API
 * process counts against the same budget); past the rate, a refusal saying when the window ends.
 */
export const countRequest = (
  store: JobStoreShape,
  name: string,
  rate: Rate,
  now: number,
): Effect.Effect<void, QuotaExceeded | StoreError> =>
  Effect.gen(function* () {
    const window = Math.floor(now / rate.windowMs)
    const resetsAt = (window + 1) * rate.windowMs
    const consumed = yield* store.addToCounter(`${name}:${window}`, 1, resetsAt)
    if (consumed <= rate.count) return
    const retryAfter = Math.max(1, Math.ceil((resetsAt - now) / 1000))
    return yield* new QuotaExceeded({
      reason: "Rate",
      retryAfter,
      message: `Rate limit exceeded. Consumed (${perUnit(rate.unit)}): ${consumed}, Remaining (${perUnit(rate.unit)}): 0. Please retry after ${retryAfter}s, resets at ${new Date(resetsAt).toString()}`,
    })
  })

export const layer: Layer.Layer<Quotas, never, JobStore | Usage> = Layer.effect(
  Quotas,
  Effect.gen(function* () {
    const store = yield* JobStore
    const usage = yield* Usage

    // Untraced, as is `credits`: every request is counted inside its own span; a span costs ~15 µs (measured).
    const rate = Effect.fnUntraced(function* (owner: Owner, limits: Limits, endpoint: EndpointClass, now: number) {
      const limit = limits.rates[endpoint]
      if (limit !== undefined) yield* countRequest(store, `rate:${owner ?? "-"}:${endpoint}`, limit, now)
    })

    /** Refused when `limit` of the owner's jobs are in progress besides the `own` one just made (0 or 1). */
    const inProgress = (owner: Owner, limit: number, own: number) =>
      Effect.flatMap(store.listJobs({ owner, status: "scraping" }), (running) =>
        running.length - own >= limit
          ? Effect.fail(
              new QuotaExceeded({
                reason: "Jobs",
                retryAfter: BUSY_RETRY_SECONDS,
                message: `Concurrency limit reached: ${running.length - own} of ${limit} jobs in progress. Wait for one to finish or cancel one.`,
              }),
            )
          : Effect.void,
      )

    const jobs = Effect.fn("Quotas.jobs")(function* (owner: Owner, limits: Limits, now: number) {
      if (limits.jobs !== undefined) yield* inProgress(owner, limits.jobs, 0)
      if (limits.queue !== undefined) {
        const { due } = yield* store.pendingWork(now)
        if (due >= limits.queue)
          return yield* new QuotaExceeded({
            reason: "Queue",
            retryAfter: BUSY_RETRY_SECONDS,
            message: `The queue is full (${due} tasks waiting, limit ${limits.queue}). Please retry later.`,
          })
      }
    })

    const credits = Effect.fnUntraced(function* (owner: Owner, limits: Limits, now: number) {
      if (limits.credits === undefined) return
      const [month] = yield* usage.months(owner, [monthOf(now)])
      if ((month?.credits ?? 0) >= limits.credits)
        return yield* Effect.fail(
          new QuotaExceeded({
            reason: "Credits",
            message: `Insufficient credits to perform this request: ${month?.credits ?? 0} of ${limits.credits} used this month.`,
          }),
        )
    })

    const confirmJob = Effect.fn("Quotas.confirmJob")(function* (owner: Owner, limits: Limits) {
      if (limits.jobs !== undefined) yield* inProgress(owner, limits.jobs, 1)
    })

    return {
      confirmJob,
      admit: (owner, limits, endpoint, now) =>
        // Nothing to check (a status poll of a key without a status limit is most requests of a busy server).
        admitsUncounted(limits, endpoint)
          ? Effect.void
          : Effect.gen(function* () {
              yield* rate(owner, limits, endpoint, now)
              if (endpoint === "status") return
              yield* credits(owner, limits, now)
              if (JOB_CLASSES.has(endpoint)) yield* jobs(owner, limits, now)
            }),
    }
  }),
)
