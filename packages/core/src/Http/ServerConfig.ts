/** Settings of the HTTP API (not of the engine): who may call it and how it names itself in links. */
import { Config, Context, Effect, Layer } from "effect"

export interface ServerConfigShape {
  /** Accepted API keys; empty means the server is open (every request is allowed). */
  readonly apiKeys: ReadonlySet<string>
  /** The largest `/v2/parse` upload in bytes (413 past it). */
  readonly maxUploadBytes: number
}

/** Firecrawl's limit for parse uploads. */
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024

export class ServerConfig extends Context.Tag("@webdata/core/ServerConfig")<ServerConfig, ServerConfigShape>() {}

export const layer = (
  options: { readonly apiKeys?: ReadonlyArray<string>; readonly maxUploadBytes?: number } = {},
): Layer.Layer<ServerConfig> =>
  Layer.succeed(ServerConfig, {
    apiKeys: new Set((options.apiKeys ?? []).filter((key) => key !== "")),
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
  })

/** Reads `WEBDATA_API_KEYS` (comma-separated; warns when the server runs open) and `WEBDATA_MAX_UPLOAD_BYTES`. */
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
    const maxUploadBytes = yield* Config.integer("WEBDATA_MAX_UPLOAD_BYTES").pipe(
      Config.withDefault(DEFAULT_MAX_UPLOAD_BYTES),
    )
    return { apiKeys, maxUploadBytes }
  }).pipe(Effect.orDie),
)
