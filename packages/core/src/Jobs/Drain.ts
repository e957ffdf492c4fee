/**
 * A bounded run of a worker, for hosts that start workers on demand and freeze them in between (an AWS Lambda
 * invocation): it runs the store's due work until none is left or its time is up, gives back the leases of what it
 * could not finish, sends the webhook deliveries that became due, and reports what is still waiting, so that the host
 * can schedule the next run. The long-running worker (`Worker.ts`) is the other way to run the same tasks.
 */
import { Context, Duration, Effect, Layer } from "effect"
import type { MonitorChecks } from "../Monitor/Checks.js"
import { sweepMonitors } from "../Monitor/Scheduler.js"
import { JobStore, type PendingWork, type StoreError } from "./JobStore.js"
import type { TaskRunner } from "./TaskRunner.js"
import * as TaskSlots from "./TaskSlots.js"
import { Webhooks } from "./Webhooks.js"
import { purge, type WorkerOptions } from "./Worker.js"
import * as WorkerIdentity from "./WorkerIdentity.js"
import type { WorkSignal } from "./WorkSignal.js"

export interface DrainOptions {
  /** Epoch ms by which the run has ended: what is still running then is stopped and its leases given back. */
  readonly deadline: number
  /**
   * No task is started later than this before the deadline, since it could not finish (default 30 s, and at most
   * half the time the run has).
   */
  readonly reserveMs?: number
  /** Work due within this long (a crawl's `delay`, a retry's backoff) is waited for rather than left. Default 5 s. */
  readonly waitMs?: number
  /**
   * Called once, the first time the run has every slot busy and the store still holds due tasks, with how many more
   * runs of this size they would keep busy: the host may start them (a Lambda worker sends messages to its queue).
   */
  readonly onSaturated?: (runs: number) => Effect.Effect<void>
}

export interface DrainReport {
  /** Tasks this run started. */
  readonly started: number
  /** Leases given back because the deadline came first. */
  readonly released: number
  /** Whether every webhook delivery that was due got sent (or given up on) before the deadline. */
  readonly deliveriesSent: boolean
  /** What the store holds for the next run. */
  readonly pending: PendingWork
}

export class Drain extends Context.Tag("@webdata/core/Drain")<
  Drain,
  {
    /** How many runs of this engine's size `due` tasks keep busy (at least one when any is due). */
    readonly runsFor: (due: number) => number
    /** One bounded run (see the module's comment). Fails only when the store cannot be reached. */
    readonly run: (options: DrainOptions) => Effect.Effect<DrainReport, StoreError>
    /**
     * The housekeeping a long-running worker does every minute, for hosts without one: purges expired jobs, old cached
     * pages and index entries, starts the monitors' due checks, sends the webhook deliveries that are due (until
     * `deadline`), and reports the pending work (expired leases of runs that died count as due).
     */
    readonly sweep: (deadline: number) => Effect.Effect<PendingWork, StoreError>
  }
>() {}

export type DrainSettings = Required<
  Pick<WorkerOptions, "concurrency" | "leaseMs" | "pollMs" | "cacheTtlMs" | "searchIndexTtlMs">
>

export const make = (settings: DrainSettings) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const webhooks = yield* Webhooks
    const context = yield* Effect.context<JobStore | TaskRunner | WorkSignal | MonitorChecks>()
    const runsFor = (due: number) => Math.ceil(due / settings.concurrency)

    const run = Effect.fn("Drain.run")(function* (options: DrainOptions) {
      const begun = Date.now()
      const reserveMs = Math.min(options.reserveMs ?? 30_000, (options.deadline - begun) / 2)
      const lastStart = options.deadline - reserveMs
      const waitMs = options.waitMs ?? 5000
      const slots = yield* TaskSlots.make({
        holder: WorkerIdentity.newHolder(),
        concurrency: settings.concurrency,
        leaseMs: settings.leaseMs,
        pollMs: settings.pollMs,
      })

      // Called once at most.
      let onSaturated = options.onSaturated
      // Starts what is due while there is time to finish it; waits for work about to become due.
      while (Date.now() < lastStart) {
        if (yield* slots.fill) {
          if (onSaturated !== undefined) {
            const call = onSaturated
            onSaturated = undefined
            const { due } = yield* store.pendingWork(Date.now())
            if (due > 0) yield* call(runsFor(due))
          }
          continue
        }
        if ((yield* slots.running) > 0) {
          yield* slots.wait(Duration.millis(settings.pollMs))
          continue
        }
        const { due, nextDue } = yield* store.pendingWork(Date.now())
        // Work due with nothing running: a task that ended after the lease above left it (a crawl's next pages). It is
        // leased on the next turn, not taken for the end of the work; the wait ends at once on that task's end, and
        // keeps a turn from spinning on due tasks the store will not lease yet.
        if (due > 0) {
          yield* slots.wait(Duration.millis(settings.pollMs))
          continue
        }
        const next = nextDue._tag === "Some" ? nextDue.value : Number.POSITIVE_INFINITY
        if (next - Date.now() > waitMs || next >= lastStart) break
        yield* slots.wait(Duration.millis(Math.max(0, next - Date.now())))
      }
      // Lets what runs finish until the deadline; then gives the rest back.
      const released = yield* slots.settle(options.deadline)
      const deliveriesSent = yield* webhooks.flush(options.deadline)
      const pending = yield* store.pendingWork(Date.now())
      return { started: yield* slots.started, released, deliveriesSent, pending } satisfies DrainReport
    }, Effect.scoped)

    const sweep = Effect.fn("Drain.sweep")(function* (deadline: number) {
      yield* purge(settings)
      yield* sweepMonitors
      yield* webhooks.flush(deadline)
      return yield* store.pendingWork(Date.now())
    })

    return Drain.of({
      runsFor,
      run: (options) => Effect.provide(run(options), context),
      sweep: (deadline) => Effect.provide(sweep(deadline), context),
    })
  })

export const layer = (
  settings: DrainSettings,
): Layer.Layer<Drain, never, JobStore | TaskRunner | WorkSignal | Webhooks | MonitorChecks> =>
  Layer.effect(Drain, make(settings))
