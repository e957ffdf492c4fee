/**
 * The worker: one loop that leases due tasks from the job store and runs them, at most `concurrency` at a time
 * (each job's `maxConcurrency` is enforced by the store's lease). A running task's lease is renewed while it runs;
 * a task whose lease is lost (the store gave it to another worker after a stall) is interrupted. A cancelled job's
 * running tasks are interrupted at once: in this process through `WorkSignal`, from other processes through the
 * store's `news` (Postgres `LISTEN/NOTIFY`, Redis pub/sub) or, where the store has none, by polling.
 * Expired jobs are purged periodically, and the monitors' due checks are started every few seconds. When the worker
 * stops, its running tasks have a grace period to finish; the leases of the others are given back at once.
 *
 * Nothing here is durable: a killed worker leaves leases, and their tasks run again. The store records each task's
 * end exactly once, so a page is never lost nor counted twice. A worker takes back at once the leases of processes of
 * its own machine that are gone (a restarted server resumes its crawls within seconds); leases of other machines'
 * workers come back when they expire.
 */
import { Config, Duration, Effect, Layer, Schedule } from "effect"
import type { MonitorChecks } from "../Monitor/Checks.js"
import { SWEEP_EVERY_MS, sweepMonitors } from "../Monitor/Scheduler.js"
import * as ShutdownGrace from "../Process/ShutdownGrace.js"
import { JobStore } from "./JobStore.js"
import type { TaskRunner } from "./TaskRunner.js"
import * as TaskSlots from "./TaskSlots.js"
import * as WorkerIdentity from "./WorkerIdentity.js"
import type { WorkSignal } from "./WorkSignal.js"

export interface WorkerOptions {
  /** Tasks run at once by this worker. Default 16. */
  readonly concurrency?: number
  /** Lease length; renewed once a third of it has passed while the task runs. Default 60 s. */
  readonly leaseMs?: number
  /** How often to look for due tasks and cancelled jobs when nothing wakes the worker. Default 250 ms. */
  readonly pollMs?: number
  /** How often to purge expired jobs and old cache entries. Default 1 min. */
  readonly purgeEveryMs?: number
  /** Cached pages older than this are purged. Default 2 days (v2's default `maxAge`). */
  readonly cacheTtlMs?: number
  /** Local search index entries not scraped again for this long are purged. Default 30 days. */
  readonly searchIndexTtlMs?: number
  /** How often to start the monitors' due checks. Default 5 s. */
  readonly monitorSweepMs?: number
  /**
   * When the worker stops (the process is shutting down), how long its running tasks may still finish; the leases of
   * those that do not are given back, due at once, so another worker resumes them without waiting for the leases to
   * run out. Default 10 s.
   */
  readonly shutdownGraceMs?: number
}

const DAY_MS = 24 * 60 * 60 * 1000

export const defaults = {
  concurrency: 16,
  leaseMs: 60_000,
  pollMs: 250,
  purgeEveryMs: 60_000,
  cacheTtlMs: 2 * DAY_MS,
  searchIndexTtlMs: 30 * DAY_MS,
  monitorSweepMs: SWEEP_EVERY_MS,
  shutdownGraceMs: ShutdownGrace.DEFAULT_MS,
} satisfies Required<WorkerOptions>

/** Runs the worker loop for the lifetime of the scope. */
export const run = (options: WorkerOptions = {}) =>
  Effect.gen(function* () {
    const settings = { ...defaults, ...options }
    const store = yield* JobStore
    const holder = WorkerIdentity.newHolder()
    const slots = yield* TaskSlots.make({
      holder,
      concurrency: settings.concurrency,
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
    })

    const fill = slots.fill.pipe(
      Effect.catchAll((error) => Effect.as(Effect.logWarning("Leasing tasks failed; retrying", error), false)),
    )

    const loop = Effect.gen(function* () {
      while (true) {
        const more = yield* fill
        if (!more) yield* slots.wait(Duration.millis(settings.pollMs))
      }
    })

    /** On stop: running tasks get the grace period to finish; the rest are given back, due at once. */
    const stop = Effect.gen(function* () {
      const released = yield* slots.settle(Date.now() + settings.shutdownGraceMs)
      if (released > 0) yield* Effect.logDebug(`Gave back ${released} task lease(s) on stopping`)
    })

    /** Leases held by processes of this machine that are gone: due at once instead of at their expiry. */
    const reclaim = Effect.gen(function* () {
      const gone = (yield* store.leaseHolders(WorkerIdentity.hostPrefix())).filter(WorkerIdentity.isGone)
      if (gone.length === 0) return
      const ended = yield* store.expireLeases(gone, Date.now())
      yield* Effect.logInfo(`Took back ${ended} task lease(s) of ${gone.length} stopped worker(s) of this machine`)
      yield* slots.wake
    }).pipe(Effect.catchAll((error) => Effect.logWarning("Taking back the leases of stopped workers failed", error)))

    yield* Effect.forkScoped(
      Effect.repeat(Effect.zipRight(reclaim, purge(settings)), Schedule.spaced(Duration.millis(settings.purgeEveryMs))),
    )
    yield* Effect.forkScoped(Effect.repeat(sweepMonitors, Schedule.spaced(Duration.millis(settings.monitorSweepMs))))
    // Registered before the loop is forked, so it runs after the loop has stopped leasing (finalizers run in reverse).
    yield* Effect.addFinalizer(() => stop)
    yield* Effect.forkScoped(loop)
    yield* Effect.logDebug(`Worker ${holder} started (concurrency ${settings.concurrency})`)
  })

/** Deletes expired jobs, and cached pages and index entries past their TTL; a failure is logged. */
export const purge = (settings: Pick<Required<WorkerOptions>, "cacheTtlMs" | "searchIndexTtlMs">) =>
  Effect.flatMap(JobStore, (store) =>
    Effect.suspend(() => {
      const now = Date.now()
      return store.purgeExpired(now, {
        cacheBefore: now - settings.cacheTtlMs,
        indexBefore: now - settings.searchIndexTtlMs,
      })
    }),
  ).pipe(Effect.catchAll((error) => Effect.logWarning("Purging expired jobs failed", error)))

/** A worker running for the lifetime of the layer. */
export const layer = (
  options: WorkerOptions = {},
): Layer.Layer<never, never, JobStore | TaskRunner | WorkSignal | MonitorChecks> => Layer.scopedDiscard(run(options))

/**
 * The worker's settings from `WEBDATA_WORKER_CONCURRENCY`, `WEBDATA_WORKER_LEASE_SECONDS`, `WEBDATA_CACHE_TTL_HOURS`
 * `WEBDATA_SEARCH_INDEX_TTL_HOURS` and `WEBDATA_SHUTDOWN_GRACE_MS` (docs/configuration.md).
 */
export const optionsConfig = Effect.gen(function* () {
  const concurrency = yield* Config.integer("WEBDATA_WORKER_CONCURRENCY").pipe(
    Config.validate({ message: "must be at least 1", validation: (tasks) => tasks >= 1 }),
    Config.withDefault(defaults.concurrency),
  )
  // Cached pages are purged at this age, so a maxAge or minAge longer than it finds nothing older.
  const cacheTtlHours = yield* Config.number("WEBDATA_CACHE_TTL_HOURS").pipe(
    Config.validate({ message: "must be more than 0", validation: (hours) => hours > 0 }),
    Config.withDefault(defaults.cacheTtlMs / (60 * 60 * 1000)),
  )
  const indexTtlHours = yield* Config.number("WEBDATA_SEARCH_INDEX_TTL_HOURS").pipe(
    Config.validate({ message: "must be more than 0", validation: (hours) => hours > 0 }),
    Config.withDefault(defaults.searchIndexTtlMs / (60 * 60 * 1000)),
  )
  // How long a task of a worker that died on another machine waits before another worker takes it.
  const leaseSeconds = yield* Config.number("WEBDATA_WORKER_LEASE_SECONDS").pipe(
    Config.validate({ message: "must be at least 1", validation: (seconds) => seconds >= 1 }),
    Config.withDefault(defaults.leaseMs / 1000),
  )
  const shutdownGraceMs = yield* ShutdownGrace.config
  const hours = (value: number) => Math.round(value * 60 * 60 * 1000)
  return {
    ...defaults,
    concurrency,
    leaseMs: Math.round(leaseSeconds * 1000),
    cacheTtlMs: hours(cacheTtlHours),
    searchIndexTtlMs: hours(indexTtlHours),
    shutdownGraceMs,
  } satisfies Required<WorkerOptions>
})
