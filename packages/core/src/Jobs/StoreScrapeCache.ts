/**
 * The scrape cache kept in the job store, so cached pages survive restarts and are shared by every process on the
 * same store. A store failure is logged and read as a miss: the cache must never fail a scrape.
 */
import { Effect, Layer, Option } from "effect"
import { ScrapeCache } from "../Cache/ScrapeCache.js"
import { JobStore } from "./JobStore.js"

export const layerFromJobStore: Layer.Layer<ScrapeCache, never, JobStore> = Layer.effect(
  ScrapeCache,
  Effect.map(JobStore, (store) => ({
    get: (key) =>
      store
        .cacheGet(key)
        .pipe(
          Effect.catchAll((error) => Effect.as(Effect.logWarning("Scrape cache read failed", error), Option.none())),
        ),
    set: (key, page) =>
      store.cacheSet(key, page).pipe(Effect.catchAll((error) => Effect.logWarning("Scrape cache write failed", error))),
  })),
)
