/**
 * `webdata worker`: a worker alone, without the HTTP server, running the jobs of the store `WEBDATA_STORE` names.
 * It shares that store with the API process (`webdata serve` / `npm start`, which can leave its own worker out with
 * `WEBDATA_WORKER=0`), so the store must be a durable file both can open, e.g. `sqlite:/var/lib/webdata/webdata.db`.
 */
import { Command } from "@effect/cli"
import { Config, Console, Effect, Layer } from "effect"
import { CliFailure } from "../CliFailure.js"
import { waitForSignal } from "../Signals.js"

export const workerCommand = Command.make("worker", {}, () =>
  Effect.gen(function* () {
    const store = yield* Config.string("WEBDATA_STORE").pipe(Config.withDefault("sqlite:.webdata/webdata.db"))
    const enabled = yield* Config.boolean("WEBDATA_WORKER").pipe(Config.withDefault(true))
    if (!enabled)
      return yield* Effect.fail(new CliFailure("WEBDATA_WORKER=0 turns the worker off; unset it to run one"))
    if (store === "memory:")
      return yield* Effect.fail(
        new CliFailure(
          "WEBDATA_STORE=memory: is private to this process; a worker needs the API's store (sqlite:<path>)",
        ),
      )
    // The worker runs while the engine's layer lives; closing the scope stops it (leases of unfinished tasks expire
    // and another worker takes them) and closes the store.
    yield* Effect.scoped(
      Effect.gen(function* () {
        // The engine and the store load only for this command; with a Chromium found, pages that need the browser
        // (waitFor, actions, screenshots) render here as they do in the API's own worker.
        const { engineFromEnvironment } = yield* Effect.promise(() => import("@webdata/adapter-express"))
        yield* Layer.build(engineFromEnvironment())
        yield* Console.error(`webdata worker running on ${store}; Ctrl-C to stop`)
        const signal = yield* waitForSignal(["SIGINT", "SIGTERM"])
        yield* Console.error(`webdata worker stopping (${signal})`)
      }),
    )
  }),
).pipe(
  Command.withDescription(
    "Run a worker without the HTTP server, on the job store WEBDATA_STORE names (default sqlite:.webdata/webdata.db). " +
      "It must be the same durable store (an SQLite file) as the API process's; stop with Ctrl-C or SIGTERM",
  ),
)
