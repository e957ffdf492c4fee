/**
 * The scrape cache behind `maxAge` / `minAge`: the fetched page (not the derived formats), so a hit can serve any
 * format by running the content pipeline again. The memory layer is an LRU bounded in bytes; the SQLite store backs
 * the same port later.
 */
import { Context, Effect, Layer, Option } from "effect"
import { LRUCache } from "lru-cache"
import type { PageContent } from "../Scrape/BuildDocument.js"

export interface CachedPage {
  /** Final URL after redirects. */
  readonly url: string
  readonly statusCode: number
  readonly contentType: string | undefined
  /** The decoded body. */
  readonly body: string
  /** A parsed file's content (PDF, office documents). */
  readonly file?: PageContent["file"]
  /** Epoch milliseconds of the fetch. */
  readonly cachedAt: number
}

/** What a cached page costs in memory, roughly: its text as UTF-16, a parsed file's pages included. */
export const cachedPageSize = (page: CachedPage): number =>
  Math.max(1, (page.body.length + (page.file?.pages.reduce((sum, html) => sum + html.length, 0) ?? 0)) * 2)

export class ScrapeCache extends Context.Tag("@webdata/core/ScrapeCache")<
  ScrapeCache,
  {
    readonly get: (key: string) => Effect.Effect<Option.Option<CachedPage>>
    readonly set: (key: string, page: CachedPage) => Effect.Effect<void>
  }
>() {}

export interface MemoryCacheOptions {
  /** Upper bound of the cached bodies in bytes (UTF-16 length × 2). Default 256 MiB. */
  readonly maxBytes?: number
}

export const layerMemory = (options: MemoryCacheOptions = {}): Layer.Layer<ScrapeCache> =>
  Layer.sync(ScrapeCache, () => {
    const lru = new LRUCache<string, CachedPage>({
      maxSize: options.maxBytes ?? 256 * 1024 * 1024,
      sizeCalculation: cachedPageSize,
    })
    return {
      get: (key) => Effect.sync(() => Option.fromNullable(lru.get(key))),
      set: (key, page) =>
        Effect.sync(() => {
          lru.set(key, page)
        }),
    }
  })

/** A cache that never hits (for `storeInCache`-less embedding or tests). */
export const layerDisabled: Layer.Layer<ScrapeCache> = Layer.succeed(ScrapeCache, {
  get: () => Effect.succeed(Option.none()),
  set: () => Effect.void,
})

/** The cache key of a target: the URL without its fragment (SPA routes `#/` and `#!/` are kept). */
export const cacheKey = (url: string, partition?: string): string => {
  const parsed = new URL(url)
  if (!parsed.hash.startsWith("#/") && !parsed.hash.startsWith("#!/")) parsed.hash = ""
  // A URL never holds a space, so a partition cannot be confused with a URL.
  return partition === undefined ? parsed.href : `${partition} ${parsed.href}`
}
