/**
 * An engine kept by a worker function's container (see `Kept.ts`): built at the first invocation, reused by the warm
 * ones, built again after a build that failed, released on shutdown (`dispose`).
 */
import type { EngineServices } from "@webdata/core"
import { type Effect, type Layer, ManagedRuntime } from "effect"
import { keep } from "../Kept.js"

export interface EngineRuntime {
  readonly run: <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Promise<A>
  readonly dispose: () => Promise<void>
}

export const make = (engine: Layer.Layer<EngineServices>): EngineRuntime => {
  const kept = keep(
    () => ManagedRuntime.make(engine),
    (runtime) => runtime.runtime(),
  )
  return { run: async (effect) => (await kept.get()).runPromise(effect), dispose: kept.dispose }
}
