/** `webdata serve`: the v2 API on a port, like `npm start`. */
import { Command, Options } from "@effect/cli"
import { Config, Effect } from "effect"
import { CliFailure } from "../CliFailure.js"
import { waitForSignal } from "../Signals.js"
import { checkSettings } from "./checkSettings.js"

const options = {
  port: Options.integer("port").pipe(
    Options.withAlias("p"),
    Options.withFallbackConfig(Config.integer("PORT")),
    Options.withDefault(3002),
    Options.withDescription("Port to listen on; env PORT"),
  ),
  host: Options.text("host").pipe(
    Options.withFallbackConfig(Config.string("HOST")),
    Options.withDefault("127.0.0.1"),
    Options.withDescription("Address to bind; env HOST"),
  ),
}

export const serveCommand = Command.make("serve", options, ({ port, host }) =>
  Effect.zipRight(
    checkSettings,
    Effect.acquireRelease(
      Effect.tryPromise({
        // The server's modules load only for this command.
        try: () =>
          import("@webdata/server").then(async ({ enginesLine, serve }) => ({
            ...(await serve({ port, host })),
            engines: enginesLine(),
          })),
        catch: (error) =>
          new CliFailure(
            // A port taken or refused, or a setting that stops the engine (an unknown store, a store not installed).
            `${(error as { syscall?: unknown }).syscall === "listen" ? "Cannot listen on" : "Cannot start the server on"} ${host}:${port}: ${(error as Error).message}`,
          ),
      }),
      (running) => Effect.promise(running.close),
    ),
  ).pipe(
    Effect.tap((running) => Effect.log(`webdata API listening on ${running.url}; ${running.engines}`)),
    // Node's default would end the process at once; this way the scope closes the server first (open requests
    // finish, watchers close, the engine stops), as `npm start` does.
    Effect.zipRight(waitForSignal(["SIGINT", "SIGTERM"])),
    Effect.tap((signal) => Effect.log(`webdata API stopping (${signal})`)),
    Effect.scoped,
  ),
).pipe(Command.withDescription("Serve the Firecrawl-compatible v2 API over HTTP"))
