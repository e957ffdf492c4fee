/**
 * `webdata worker`: a worker alone, without the HTTP server, running the jobs of the store `WEBDATA_STORE` names.
 * It shares that store with the API processes (`webdata serve` / `npm start`, which leave their own worker out with
 * `WEBDATA_WORKER=0`), so the store must be a durable one they all reach: an SQLite file, Postgres or Redis.
 */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { CliFailure } from "../CliFailure.js"
import { waitForSignal } from "../Signals.js"
import { checkSettings } from "./checkSettings.js"

export const workerCommand = Command.make("worker", {}, () =>
  Effect.zipRight(
    checkSettings(),
    Effect.acquireRelease(
      Effect.tryPromise({
        // The engine and the store load only for this command; with a Chromium found, pages that need the browser
        // (waitFor, actions, screenshots) render here as they do in the API's own worker.
        try: () => import("@webdata/server").then(({ runWorker }) => runWorker()),
        catch: (error) => new CliFailure((error as Error).message),
      }),
      // Stops the worker (unfinished tasks go back to the store for another worker) and closes the store.
      (worker) => Effect.promise(worker.close),
    ),
  ).pipe(
    Effect.tap((worker) => Console.error(`webdata worker running on ${worker.store}; Ctrl-C to stop`)),
    Effect.zipRight(waitForSignal(["SIGINT", "SIGTERM"])),
    Effect.tap((signal) => Console.error(`webdata worker stopping (${signal})`)),
    Effect.scoped,
  ),
).pipe(
  Command.withDescription(
    "Run a worker without the HTTP server, on the job store WEBDATA_STORE names (default sqlite:.webdata/webdata.db). " +
      "It must be the API processes' durable store (an SQLite file, Postgres or Redis); stop with Ctrl-C or SIGTERM",
  ),
)
