/**
 * The monitors' part of a worker's sweep: start the checks that are due and end those whose end was not recorded.
 * Every worker sweeps (the claims make each check start once), and so does a host's scheduled run (`Drain.sweep`).
 */
import { Clock, Effect } from "effect"
import { MonitorChecks } from "./Checks.js"

/** How often a long-running worker sweeps by default: a check starts within this of its time. */
export const SWEEP_EVERY_MS = 5000

/** One sweep at the `Clock`'s time (a test moves it); a failure is logged (the next sweep tries again). */
export const sweepMonitors: Effect.Effect<void, never, MonitorChecks> = Effect.gen(function* () {
  const checks = yield* MonitorChecks
  const now = yield* Clock.currentTimeMillis
  const started = yield* checks.startDue(now)
  const finished = yield* checks.finishDue(now)
  if (started + finished > 0) yield* Effect.logDebug(`Monitors: ${started} check(s) started, ${finished} ended`)
}).pipe(Effect.catchAll((error) => Effect.logWarning("Sweeping the monitors failed", error)))
