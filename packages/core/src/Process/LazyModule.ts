/**
 * A module loaded on first use and kept (the content pipeline, the selector checker, the map engine: a process loads
 * only what its requests use). `import()` of a loaded module still goes through the module loader on every call (a
 * round trip to a loader thread when one is registered), which a per-request import would pay.
 */
import { Effect } from "effect"

export const lazyModule = <A>(load: () => Promise<A>): Effect.Effect<A> => {
  let loaded: A | undefined
  let pending: Promise<A> | undefined
  return Effect.suspend(() =>
    loaded !== undefined
      ? Effect.succeed(loaded)
      : Effect.promise(() => {
          pending ??= load().then((module) => {
            loaded = module
            return module
          })
          return pending
        }),
  )
}
