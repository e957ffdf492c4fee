/**
 * Liveness, readiness and metrics. Liveness touches nothing (a process that answers is alive); readiness asks each
 * dependency one cheap question under a deadline; metrics sample the store and the browser, then render the registry.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, Metric, Option } from "effect"
import { BrowserEngine } from "../Engines/Browser.js"
import { type JobKind, JobStore } from "../Jobs/JobStore.js"
import { browserPages, browserSessions, dueTasks, jobsRunning, labelled } from "../Observability/Metrics.js"
import * as Prometheus from "../Observability/Prometheus.js"
import { WebdataApi } from "./Api.js"

/** How long a dependency may take to answer before it counts as not ready (a cold browser launch fits in it). */
const CHECK_TIMEOUT = Duration.seconds(10)

/** A job id no job has: reading it is one primary-key look-up in every store (no new port method needed). */
const NO_JOB = "00000000-0000-0000-0000-000000000000"

const KINDS: ReadonlyArray<JobKind> = ["crawl", "batch", "extract", "agent", "monitor", "llmstxt"]

interface Check {
  readonly status: "ok" | "failed"
  readonly durationMs: number
  readonly error?: string
}

/** Runs one check under the deadline; the cause of a failure goes to the log, not to the (unauthenticated) caller. */
const check = (name: string, probe: Effect.Effect<unknown, unknown>): Effect.Effect<Check> => {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  return probe.pipe(
    Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => "timeout" as const }),
    Effect.matchCauseEffect({
      onSuccess: () => Effect.succeed<Check>({ status: "ok", durationMs: took() }),
      onFailure: (cause) =>
        Effect.as(Effect.logWarning(`Readiness check ${name} failed`, cause), {
          status: "failed" as const,
          durationMs: took(),
          error:
            cause._tag === "Fail" && cause.error === "timeout"
              ? `did not answer within ${Duration.toMillis(CHECK_TIMEOUT)} ms`
              : "did not answer (see the server's log)",
        }),
    }),
  )
}

export const ProbeHandlers = HttpApiBuilder.group(WebdataApi, "probe", (handlers) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const browser = yield* Effect.serviceOption(BrowserEngine)
    return handlers
      .handle("liveness", () => Effect.succeed({ success: true as const, status: "ok" as const }))
      .handleRaw("readiness", () =>
        Effect.gen(function* () {
          const checks: Record<string, Check> = yield* Effect.all(
            {
              store: check("store", store.getJob(NO_JOB)),
              ...(Option.isSome(browser) ? { browser: check("browser", browser.value.probe) } : {}),
            },
            { concurrency: "unbounded" },
          )
          const ready = Object.values(checks).every((each) => each.status === "ok")
          if (ready) return HttpServerResponse.unsafeJson({ success: true, checks })
          const failed = Object.keys(checks).filter((name) => checks[name]?.status !== "ok")
          return HttpServerResponse.unsafeJson(
            { success: false, code: "NOT_READY", error: `Not ready: ${failed.join(", ")}`, details: { checks } },
            { status: 503 },
          )
        }),
      )
  }),
)

/** The gauges read from the store and the browser when the metrics are asked for (a failing store keeps the rest). */
const sample = (store: JobStore["Type"], browser: Option.Option<BrowserEngine["Type"]>) =>
  Effect.gen(function* () {
    const [pending, running] = yield* Effect.all(
      [store.pendingWork(Date.now()), store.listJobs({ status: "scraping" })],
      { concurrency: "unbounded" },
    )
    yield* Metric.set(dueTasks, pending.due)
    for (const kind of KINDS)
      yield* Metric.set(labelled(jobsRunning, { kind }), running.filter((job) => job.kind === kind).length)
  }).pipe(
    Effect.catchAll((error) => Effect.logWarning("Metrics: the job store could not be read", error)),
    Effect.zipRight(
      Option.match(browser, {
        onNone: () => Effect.void,
        onSome: (engine) =>
          Effect.flatMap(engine.usage, (usage) =>
            Effect.zipRight(Metric.set(browserPages, usage.pages), Metric.set(browserSessions, usage.sessions)),
          ),
      }),
    ),
  )

export const MetricsHandlers = HttpApiBuilder.group(WebdataApi, "metrics", (handlers) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const browser = yield* Effect.serviceOption(BrowserEngine)
    return handlers.handleRaw("metrics", () =>
      Effect.zipRight(
        sample(store, browser),
        Effect.map(Prometheus.exposition, (text) =>
          HttpServerResponse.text(text, { contentType: Prometheus.CONTENT_TYPE }),
        ),
      ),
    )
  }),
)
