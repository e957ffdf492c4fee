/**
 * A worker without the HTTP server (`webdata worker`, `webdata-worker`): the engine configured from the environment,
 * running the jobs of a store it shares with the API processes (which leave their own worker out with
 * `WEBDATA_WORKER=0`). A deployment runs as many of these as it needs, on one durable store.
 */
import { Config, Data, Effect, ManagedRuntime } from "effect"
import { engineFromEnvironment } from "./engine.js"
import * as StoreFromEnvironment from "./StoreFromEnvironment.js"

/** A setting that makes a worker apart from the API pointless. */
class WorkerConfigError extends Data.TaggedError("WorkerConfigError")<{ readonly message: string }> {}

export interface RunningWorker {
  /** The store whose jobs it runs, as `WEBDATA_STORE` names it (credentials masked). */
  readonly store: string
  /**
   * Stops the worker and releases the engine: tasks it had leased go back to the store (a worker restarted on this
   * machine takes them back at once, one elsewhere once their leases expire).
   */
  readonly close: () => Promise<void>
}

/** `WEBDATA_STORE`, when other processes can share it. */
const sharedStore = Effect.gen(function* () {
  if (!(yield* Config.boolean("WEBDATA_WORKER").pipe(Config.withDefault(true))))
    return yield* new WorkerConfigError({ message: "WEBDATA_WORKER=0 turns the worker off; unset it to run one" })
  const store = yield* StoreFromEnvironment.spec
  if (store === "memory:")
    return yield* new WorkerConfigError({
      message:
        "WEBDATA_STORE=memory: is private to this process; a worker needs the API's durable store: sqlite:<path>, postgres://… or redis://…",
    })
  return store
})

/** Starts a worker; rejects with a one-line message when the settings or the store do not allow one. */
export const runWorker = async (): Promise<RunningWorker> => {
  const store = await Effect.runPromise(sharedStore)
  const runtime = ManagedRuntime.make(engineFromEnvironment())
  // The worker runs while the engine's layer lives.
  await runtime.runtime().catch(async (error: unknown) => {
    await runtime.dispose()
    throw error
  })
  return { store: StoreFromEnvironment.redact(store), close: () => runtime.dispose() }
}
