/** Where a command's work runs: in process, or on the server `--api-url` names. */
import { Effect, Layer, Option } from "effect"

export interface Connection {
  readonly apiUrl: Option.Option<string>
  readonly apiKey: Option.Option<string>
}

/** The in-process layer, or the remote one for `--api-url` (with `--api-key`). */
export const layerFor = <L>(args: Connection, local: L, remote: (url: string, apiKey: string | undefined) => L): L =>
  Option.match(args.apiUrl, { onNone: () => local, onSome: (url) => remote(url, Option.getOrUndefined(args.apiKey)) })

/** The clients of a kind, loaded on first use: the engine and the HTTP client load only for a command that runs. */
export interface Clients<S> {
  readonly layerLocal: Layer.Layer<S>
  readonly layerRemote: (url: string, apiKey: string | undefined) => Layer.Layer<S>
}

/** `effect` with the client the connection options choose, from the module `load` brings. */
export const withClient = <S, A, E, R>(
  args: Connection,
  load: () => Promise<Clients<S>>,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, Exclude<R, S>> =>
  Effect.provide(
    effect,
    Layer.unwrapEffect(
      Effect.map(Effect.promise(load), (clients) => layerFor(args, clients.layerLocal, clients.layerRemote)),
    ),
  )
