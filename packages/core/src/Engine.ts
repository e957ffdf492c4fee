/**
 * The engine's services wired together: scrape over the HTTP fetcher, the URL guard and the cache. Hosts (the
 * facade, the HTTP adapters, the CLI) build one of these and keep it for their lifetime.
 */
import { Config, Effect, Layer } from "effect"
import * as ScrapeCache from "./Cache/ScrapeCache.js"
import type { Fetcher } from "./Engines/Fetcher.js"
import * as HttpFetcher from "./Engines/HttpFetcher.js"
import * as UrlGuard from "./Net/UrlGuard.js"
import * as Scrape from "./Scrape.js"

export interface EngineOptions {
  /** Let targets on loopback, private and link-local addresses through the URL guard. Default false. */
  readonly allowPrivateAddresses?: boolean
  /** Host names (`example.com`, `*.example.com`) and CIDRs allowed even when they are private. */
  readonly allowedTargets?: ReadonlyArray<string>
  /** Bytes of fetched pages kept for `maxAge`; 0 turns the cache off. Default 256 MiB. */
  readonly cacheMaxBytes?: number
}

/** Everything the HTTP API and the facade need from the engine. */
export type EngineServices = Scrape.Scrape

const cacheLayer = (maxBytes: number | undefined) =>
  maxBytes === 0 ? ScrapeCache.layerDisabled : ScrapeCache.layerMemory(maxBytes !== undefined ? { maxBytes } : {})

const assemble = (
  guard: Layer.Layer<UrlGuard.UrlGuard>,
  fetcher: Layer.Layer<Fetcher, never, UrlGuard.UrlGuard>,
  cacheMaxBytes: number | undefined,
) => Scrape.layer.pipe(Layer.provide(fetcher), Layer.provide(guard), Layer.provide(cacheLayer(cacheMaxBytes)))

export const layer = (options: EngineOptions = {}): Layer.Layer<EngineServices> =>
  assemble(
    UrlGuard.layer({
      allowPrivateAddresses: options.allowPrivateAddresses ?? false,
      allow: options.allowedTargets ?? [],
    }),
    HttpFetcher.layer,
    options.cacheMaxBytes,
  )

/** The engine configured from the environment (see docs/configuration.md). */
export const layerConfig: Layer.Layer<EngineServices> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const cacheMb = yield* Config.number("WEBDATA_CACHE_MAX_MB").pipe(Config.withDefault(256))
    return assemble(UrlGuard.layerConfig, Layer.orDie(HttpFetcher.layerConfig), Math.round(cacheMb * 1024 * 1024))
  }).pipe(Effect.orDie),
)
