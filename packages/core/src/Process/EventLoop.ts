/**
 * A turn of the event loop for long synchronous work in slices: I/O callbacks and timers run before the work goes
 * on. (`Effect.yieldNow` does not: Effect's scheduler runs thousands of yields as microtasks before a timer.)
 */
import { Effect } from "effect"

export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** How many cheap steps (a URL parsed and filtered: a few microseconds) run between two turns of the event loop. */
export const STEPS_PER_TURN = 2000
