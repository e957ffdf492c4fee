/** Settings of the HTTP API (not of the engine): who may call it and how it names itself in links. */
import { Config, Context, Effect, Layer } from "effect"

export interface ServerConfigShape {
  /** Accepted API keys; empty means the server is open (every request is allowed). */
  readonly apiKeys: ReadonlySet<string>
}

export class ServerConfig extends Context.Tag("@webdata/core/ServerConfig")<ServerConfig, ServerConfigShape>() {}

export const layer = (options: { readonly apiKeys?: ReadonlyArray<string> } = {}): Layer.Layer<ServerConfig> =>
  Layer.succeed(ServerConfig, { apiKeys: new Set((options.apiKeys ?? []).filter((key) => key !== "")) })

/** Reads `WEBDATA_API_KEYS` (comma-separated) and warns when the server runs open. */
export const layerConfig: Layer.Layer<ServerConfig> = Layer.effect(
  ServerConfig,
  Effect.gen(function* () {
    const raw = yield* Config.string("WEBDATA_API_KEYS").pipe(Config.withDefault(""))
    const apiKeys = new Set(
      raw
        .split(",")
        .map((key) => key.trim())
        .filter((key) => key !== ""),
    )
    if (apiKeys.size === 0)
      yield* Effect.logWarning("WEBDATA_API_KEYS is not set: the API is open to anyone who can reach it.")
    return { apiKeys }
  }).pipe(Effect.orDie),
)
