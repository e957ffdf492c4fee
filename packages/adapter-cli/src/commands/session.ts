/**
 * `webdata session`: opens an interact session and prints where to watch and drive it (live view, interactive live
 * view, DevTools endpoint) until Ctrl-C or its end. In process it serves the API on a loopback port of its own for the
 * live view, behind a key made for this run; with `--api-url` the session is the server's.
 */
import { randomBytes } from "node:crypto"
import { Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Option, Schedule } from "effect"
import { CliFailure } from "../CliFailure.js"
import { waitForSignal } from "../Signals.js"
import { connection } from "./connection.js"

const options = {
  ttl: Options.integer("ttl").pipe(
    Options.withDefault(600),
    Options.withDescription("Seconds the session lives at most"),
  ),
  profile: Options.text("profile").pipe(
    Options.optional,
    Options.withDescription("Keep cookies and storage under this name: loaded now, saved when the session ends"),
  ),
  url: Options.text("url").pipe(Options.optional, Options.withDescription("A page to open in the session")),
  ...connection,
}

interface Api {
  readonly base: string
  readonly key: string | undefined
}

/** A call to the API; the answer's body, or the CLI's one-line failure. */
const call = (api: Api, method: string, path: string, body?: unknown) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(`${api.base}${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(api.key !== undefined ? { authorization: `Bearer ${api.key}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
      const answer = (await response.json()) as Record<string, unknown>
      if (!response.ok || answer.success === false)
        throw new CliFailure(
          `${String(answer.error ?? response.statusText)}${answer.code ? ` (${String(answer.code)})` : ""}`,
        )
      return answer
    },
    catch: (error) =>
      error instanceof CliFailure
        ? error
        : new CliFailure(`cannot reach the API at ${api.base}: ${(error as Error).message}`),
  })

/** The API to open the session on: the one `--api-url` names, or a server of this process on a loopback port. */
const apiOf = (apiUrl: Option.Option<string>, apiKey: Option.Option<string>) =>
  Option.match(apiUrl, {
    onSome: (base) => Effect.succeed<Api>({ base: base.replace(/\/+$/, ""), key: Option.getOrUndefined(apiKey) }),
    onNone: () =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const [{ serve }, { ServerConfig }] = await Promise.all([
              import("@webdata/server"),
              import("@webdata/core"),
            ])
            const key = randomBytes(24).toString("base64url")
            const server = await serve({ port: 0, serverConfig: ServerConfig.layer({ apiKeys: [key] }) })
            return { server, api: { base: server.url, key } satisfies Api }
          },
          catch: (error) => new CliFailure(`Cannot start the session's server: ${(error as Error).message}`),
        }),
        ({ server }) => Effect.promise(server.close),
      ).pipe(Effect.map(({ api }) => api)),
  })

export const sessionCommand = Command.make("session", options, (args) =>
  Effect.gen(function* () {
    const api = yield* apiOf(args.apiUrl, args.apiKey)
    const opened = yield* call(api, "POST", "/v2/interact", {
      ttl: args.ttl,
      ...Option.match(args.profile, { onNone: () => ({}), onSome: (name) => ({ profile: { name } }) }),
    })
    const id = String(opened.id)
    if (Option.isSome(args.url))
      yield* call(api, "POST", `/v2/interact/${id}/execute`, { url: args.url.value, actions: [] }).pipe(
        Effect.tapError(() => call(api, "DELETE", `/v2/interact/${id}`).pipe(Effect.ignore)),
      )
    yield* Console.log(`Session ${id} (ends ${String(opened.expiresAt)})`)
    yield* Console.log(`Live view:             ${String(opened.liveViewUrl)}`)
    yield* Console.log(`Interactive live view: ${String(opened.interactiveLiveViewUrl)}`)
    yield* Console.log(`DevTools (connectOverCDP): ${String(opened.cdpUrl)}`)
    yield* Console.error("Press Ctrl-C to end the session.")
    // Until Ctrl-C, or until the session ends by itself (its TTL, inactivity, a delete from elsewhere).
    const ended = call(api, "GET", `/v2/interact/${id}`).pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.seconds(2)), until: (answer) => answer.status !== "active" }),
    )
    const how = yield* Effect.raceFirst(
      Effect.as(ended, "ended" as const),
      Effect.as(waitForSignal(["SIGINT", "SIGTERM"]), "stopped" as const),
    )
    if (how === "stopped") yield* call(api, "DELETE", `/v2/interact/${id}`).pipe(Effect.ignore)
    yield* Console.error(how === "stopped" ? "Session ended." : "The session has ended.")
  }).pipe(Effect.scoped),
).pipe(Command.withDescription("Open a browser session and print its live view and DevTools URLs"))
