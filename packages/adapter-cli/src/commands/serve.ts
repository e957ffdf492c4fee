/** `webdata serve`: the v2 API on a port, like `npm start`. */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import { waitForSignal } from "../Signals.js"
import { checkSettings } from "./checkSettings.js"

const options = {
  port: Options.integer("port").pipe(
    Options.withAlias("p"),
    Options.optional,
    Options.withDescription("Port to listen on; default env PORT, else 3002"),
  ),
  host: Options.text("host").pipe(
    Options.optional,
    Options.withDescription("Address to bind; default env HOST, else 127.0.0.1"),
  ),
}

/** The environment without the variables a flag overrides: those are neither used nor checked. */
const overridden = (port: Option.Option<number>, host: Option.Option<string>): NodeJS.ProcessEnv => {
  const env = { ...process.env }
  if (Option.isSome(port)) delete env.PORT
  if (Option.isSome(host)) delete env.HOST
  return env
}

export const serveCommand = Command.make("serve", options, (flags) =>
  Effect.gen(function* () {
    yield* checkSettings(overridden(flags.port, flags.host))
    // Valid when set: checked above.
    const port = Option.getOrElse(flags.port, () => Number(process.env.PORT?.trim() || 3002))
    const host = Option.getOrElse(flags.host, () => process.env.HOST?.trim() || "127.0.0.1")
    return yield* Effect.acquireRelease(
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
    )
  }).pipe(
    Effect.tap((running) => Effect.log(`webdata API listening on ${running.url}; ${running.engines}`)),
    // Node's default would end the process at once; this way the scope closes the server first (open requests
    // finish, watchers close, the engine stops), as `npm start` does.
    Effect.zipRight(waitForSignal(["SIGINT", "SIGTERM"])),
    Effect.tap((signal) => Effect.log(`webdata API stopping (${signal})`)),
    Effect.scoped,
  ),
).pipe(Command.withDescription("Serve the Firecrawl-compatible v2 API over HTTP"))
