/** robots.txt rules per origin, fetched once and kept for an hour; concurrent asks for one origin share one fetch. */
import { Cache, Context, Duration, Effect, Layer } from "effect"
import type { RobotsRules } from "../Crawl/Robots.js"
import { fetchRobots } from "../Crawl/SiteFiles.js"
import type { Fetcher } from "../Engines/Fetcher.js"

const ROBOTS_TIMEOUT_MS = 10_000

export class RobotsCache extends Context.Tag("@webdata/core/RobotsCache")<
  RobotsCache,
  { readonly rulesFor: (url: string) => Effect.Effect<RobotsRules> }
>() {}

export const layer: Layer.Layer<RobotsCache, never, Fetcher> = Layer.effect(
  RobotsCache,
  Effect.gen(function* () {
    const cache = yield* Cache.make({
      capacity: 10_000,
      timeToLive: Duration.hours(1),
      lookup: (origin: string) => fetchRobots(origin, { timeoutMs: ROBOTS_TIMEOUT_MS }),
    })
    return { rulesFor: (url: string) => cache.get(new URL(url).origin) }
  }),
)
