/**
 * An engine kept by a worker function's container: built at the first invocation, reused by the warm ones, released
 * on shutdown (`dispose`).
 */
import type { EngineServices } from "@webdata/core"
import { type Effect, type Layer, ManagedRuntime } from "effect"

export interface EngineRuntime {
  readonly run: <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Promise<A>
  readonly dispose: () => Promise<void>
}

export const make = (engine: Layer.Layer<EngineServices>): EngineRuntime => {
  let runtime: ManagedRuntime.ManagedRuntime<EngineServices, never> | undefined
  return {
    run: (effect) => {
      runtime ??= ManagedRuntime.make(engine)
      return runtime.runPromise(effect)
    },
    dispose: async () => {
      const built = runtime
      runtime = undefined
      await built?.dispose()
    },
  }
}
