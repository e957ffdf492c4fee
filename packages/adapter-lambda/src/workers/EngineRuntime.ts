/**
 * An engine kept by a worker function's container: built at the first invocation, reused by the warm ones (built
 * again after a build that failed), released on shutdown (`dispose`).
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
    run: async (effect) => {
      runtime ??= ManagedRuntime.make(engine)
      const current = runtime
      // A build that failed (a store that could not be reached) is not kept: the next invocation builds again.
      await current.runtime().catch(async (error: unknown) => {
        if (runtime === current) runtime = undefined
        await current.dispose()
        throw error
      })
      return current.runPromise(effect)
    },
    dispose: async () => {
      const built = runtime
      runtime = undefined
      await built?.dispose()
    },
  }
}
