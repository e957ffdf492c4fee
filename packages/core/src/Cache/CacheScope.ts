/**
 * Who shares cached pages. `key` (the default): each API key reads only what its own requests and jobs fetched, so
 * one caller's pages (`/p/77?secret=…`) never reach another through `maxAge` or `lockdown`; the library and an open
 * server have one partition. `global`: every caller shares the cache (more hits, for servers whose keys are one
 * tenant). Requests with `headers` never touch the cache either way.
 */
import { Config, Context, Layer } from "effect"

export type CacheScopeValue = "global" | "key"

export class CacheScope extends Context.Tag("@webdata/core/CacheScope")<CacheScope, CacheScopeValue>() {}

export const layer = (scope: CacheScopeValue = "key"): Layer.Layer<CacheScope> => Layer.succeed(CacheScope, scope)

/** `WEBDATA_CACHE_SCOPE` (`key` or `global`; default `key`). */
export const layerConfig: Layer.Layer<CacheScope> = Layer.effect(
  CacheScope,
  Config.literal("key", "global")("WEBDATA_CACHE_SCOPE").pipe(Config.withDefault("key" as const)),
).pipe(Layer.orDie)

/** The partition of the cache a scrape for `owner` uses under `scope`: none (shared) or the owner's. */
export const partitionOf = (scope: CacheScopeValue, owner: string | null | undefined): string | undefined =>
  scope === "key" && owner !== null && owner !== undefined ? owner : undefined
