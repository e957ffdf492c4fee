/**
 * What a scrape leaves for `POST /v2/scrape/{id}/interact` to continue from, for a while: the page it ended on, the
 * cookies and storage of its browser, and how it looked at the site (phone, country, headers). A session opened from
 * it starts where the scrape ended instead of at a blank page. Kept in the process, bounded in count and time.
 */
import { Context, Effect, Layer, Option } from "effect"
import { LRUCache } from "lru-cache"
import type { SessionSettings } from "../Engines/Browser.js"
import type { Owner } from "../Jobs/Owner.js"

export interface ReplayContext extends Pick<SessionSettings, "mobile" | "location" | "headers" | "storageState"> {
  readonly owner: Owner
  /** The URL the scrape ended on. */
  readonly url: string
}

/** How long a scrape can be continued. */
export const REPLAY_TTL_MS = 10 * 60 * 1000
const REPLAYS_KEPT = 1000
/** Storage can be megabytes per site: what is kept is bounded in size too (a state over a tenth of it is dropped). */
const REPLAY_BYTES = 64 * 1024 * 1024

export class ScrapeReplay extends Context.Tag("@webdata/core/ScrapeReplay")<
  ScrapeReplay,
  {
    readonly remember: (scrapeId: string, context: ReplayContext) => Effect.Effect<void>
    /** The scrape's context for its owner, while it is kept. */
    readonly recall: (scrapeId: string, owner: Owner) => Effect.Effect<Option.Option<ReplayContext>>
  }
>() {}

export const layer: Layer.Layer<ScrapeReplay> = Layer.sync(ScrapeReplay, () => {
  const kept = new LRUCache<string, ReplayContext>({
    max: REPLAYS_KEPT,
    ttl: REPLAY_TTL_MS,
    maxSize: REPLAY_BYTES,
    maxEntrySize: Math.floor(REPLAY_BYTES / 10),
    sizeCalculation: (context) => 2 * (context.url.length + JSON.stringify(context.storageState ?? null).length),
  })
  return {
    remember: (scrapeId, context) => Effect.sync(() => void kept.set(scrapeId, context)),
    recall: (scrapeId, owner) =>
      Effect.sync(() => Option.filter(Option.fromNullable(kept.get(scrapeId)), (context) => context.owner === owner)),
  }
})
