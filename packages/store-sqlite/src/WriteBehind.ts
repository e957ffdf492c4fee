/**
 * The write-behind queue of the writes no caller waits on: a scrape kept for `GET /v2/scrape/{id}`, a page for the
 * scrape cache, a page for the local search index. They used to be written on the request's (or the crawl task's)
 * path, one synchronous commit each; here they wait a few milliseconds in memory and go to the file together, in one
 * transaction, off that path (large texts compressed on the thread pool first, `Compression.ts`).
 *
 * What still holds: this process reads its own writes at once (reads look in the queue first; a search writes the
 * queue first); closing the store writes what is queued. What a crash may lose: the last `delayMs` of these writes —
 * a cached page (fetched again on the next miss), an index entry, a kept scrape — never a job's recorded page
 * (`completeTask` commits at once). Another process on the same file sees a queued write once it is flushed, at most
 * `delayMs` later.
 */
import type { IndexedPage, StoreError } from "@webdata/core/jobs"
import { Deferred, Duration, Effect, FiberId, type Scope } from "effect"
import { COMPRESS_FROM_BYTES } from "./Compression.js"

/**
 * A queued text: a short one as it is, a long one (those compressed) as its UTF-8 bytes. Under load a queued row
 * outlives young-generation collections (a flush waits for turns of a busy event loop), and a string that does is
 * promoted, to be collected later from the old generation at a full collection's cost; bytes live outside the
 * JavaScript heap, and compression reads bytes anyway (bench/README.md, "Scrapes: what outlived its request").
 */
export type HeldText = string | Buffer

const hold = (text: string): HeldText => (text.length < COMPRESS_FROM_BYTES ? text : Buffer.from(text, "utf8"))

/** The text of a queued one. */
export const textOf = (held: HeldText): string => (typeof held === "string" ? held : held.toString("utf8"))

export interface ScrapeRow<Text = string> {
  readonly id: string
  readonly owner: string | null
  /** The document's JSON. */
  readonly document: Text
  readonly expires_at: number
}

export interface CacheEntryRow<Text = string> {
  readonly key: string
  readonly url: string
  readonly status_code: number
  readonly content_type: string | null
  readonly body: Text
  readonly cached_at: number
  readonly file: string | null
}

export interface QueuedPage extends Omit<IndexedPage, "content"> {
  readonly content: HeldText
}

export interface WriteBehindOptions {
  /** How long a write waits for others to share its transaction. */
  readonly delayMs: number
  /**
   * Queued text (characters of short texts, bytes of long ones) past which a writer waits for the flush: the queue's
   * memory bound.
   */
  readonly maxBytes: number
}

/**
 * Under load a flush takes up to a second of a busy event loop (its steps wait for the loop's turns): at 80 scrapes/s
 * of ~100 KB pages on one core, 8 Mi characters filled up during one flush and held requests for 1-3 s; 32 Mi hold
 * about four seconds of them.
 */
export const defaults: WriteBehindOptions = { delayMs: 20, maxBytes: 32 * 1024 * 1024 }

export interface Batch {
  readonly scrapes: ReadonlyArray<ScrapeRow<HeldText>>
  readonly cache: ReadonlyArray<CacheEntryRow<HeldText>>
  readonly index: ReadonlyArray<QueuedPage>
}

/** Writes one batch (the store: compress, then one transaction). */
export type WriteBatch = (batch: Batch) => Effect.Effect<void, StoreError>

export interface WriteBehind {
  readonly putScrape: (row: ScrapeRow) => Effect.Effect<void, StoreError>
  readonly cacheSet: (row: CacheEntryRow) => Effect.Effect<void, StoreError>
  readonly indexPage: (page: IndexedPage) => Effect.Effect<void, StoreError>
  /** The queued scrape `id`, if its write has not reached the file yet. */
  readonly scrape: (id: string) => ScrapeRow<HeldText> | undefined
  /** The queued cache entry `key`, if its write has not reached the file yet. */
  readonly cached: (key: string) => CacheEntryRow<HeldText> | undefined
  /** Writes everything queued now (and waits for a flush under way). */
  readonly flush: Effect.Effect<void, StoreError>
}

/** Queued rows by key; a row leaves only once written, and only if no newer write replaced it meanwhile. */
class Pending<Row> {
  readonly rows = new Map<string, Row>()
  bytes = 0
  constructor(readonly size: (row: Row) => number) {}
  put(key: string, row: Row) {
    const before = this.rows.get(key)
    if (before !== undefined) this.bytes -= this.size(before)
    this.rows.set(key, row)
    this.bytes += this.size(row)
  }
  written(entries: ReadonlyArray<readonly [string, Row]>) {
    for (const [key, row] of entries)
      if (this.rows.get(key) === row) {
        this.rows.delete(key)
        this.bytes -= this.size(row)
      }
  }
}

export const make = (
  writeBatch: WriteBatch,
  options: WriteBehindOptions = defaults,
): Effect.Effect<WriteBehind, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scrapes = new Pending<ScrapeRow<HeldText>>((row) => row.document.length)
    const cache = new Pending<CacheEntryRow<HeldText>>((row) => row.body.length + (row.file?.length ?? 0))
    const index = new Pending<QueuedPage>((page) => page.content.length)
    // One flush at a time: two batches racing could let an older row land after a newer one.
    const lock = yield* Effect.makeSemaphore(1)
    let scheduled = false
    // Flushes that took what was queued, and those of them written: a flush numbered n holds every row queued before
    // it (or a newer row of the same key).
    let taken = 0
    let written = 0

    const flush = lock.withPermits(1)(
      Effect.suspend(() => {
        const scrapeEntries = [...scrapes.rows.entries()]
        const cacheEntries = [...cache.rows.entries()]
        const indexEntries = [...index.rows.entries()]
        const number = ++taken
        if (scrapeEntries.length + cacheEntries.length + indexEntries.length === 0) {
          written = number
          return Effect.void
        }
        const rows = <Row>(entries: ReadonlyArray<readonly [string, Row]>) => entries.map(([, row]) => row)
        return writeBatch({
          scrapes: rows(scrapeEntries),
          cache: rows(cacheEntries),
          index: rows(indexEntries),
        }).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              scrapes.written(scrapeEntries)
              cache.written(cacheEntries)
              index.written(indexEntries)
              written = number
            }),
          ),
        )
      }),
    )

    const scope = yield* Effect.scope
    /** A flush `delayMs` from now, unless one is already planned; a failed one is tried again as late. */
    const schedule: Effect.Effect<void> = Effect.suspend(() => {
      if (scheduled) return Effect.void
      scheduled = true
      return Effect.asVoid(
        Effect.forkIn(
          Effect.sleep(Duration.millis(options.delayMs)).pipe(
            Effect.zipRight(Effect.sync(() => (scheduled = false))),
            Effect.zipRight(flush),
            Effect.catchAll((error) =>
              Effect.zipRight(
                Effect.logWarning("Writing queued scrapes, cache and index entries failed; retrying", error),
                schedule,
              ),
            ),
          ),
          scope,
        ),
      )
    })

    /**
     * A flush that writers waiting for room share: the one under way, or one started now. Each waiting writer used to
     * run a flush of its own in turn; under load a flush takes a few turns of a busy event loop, and the last of ~30
     * writers in line waited 2-6 s for the others' flushes (bench/README.md, "Scrapes: the tail").
     */
    let shared: Deferred.Deferred<void, StoreError> | undefined
    const sharedFlush: Effect.Effect<void, StoreError> = Effect.suspend(() => {
      if (shared !== undefined) return Deferred.await(shared)
      const done = Deferred.unsafeMake<void, StoreError>(FiberId.none)
      shared = done
      const run = Effect.flatMap(Effect.exit(flush), (exit) =>
        Effect.suspend(() => {
          shared = undefined
          return Deferred.done(done, exit)
        }),
      )
      // In the queue's scope: a writer that stops waiting does not stop the flush the others wait for.
      return Effect.zipRight(Effect.forkIn(run, scope), Deferred.await(done))
    })

    const full = () => scrapes.bytes + cache.bytes + index.bytes >= options.maxBytes
    /**
     * Waits while the queue is at its bound (its memory bound: writers faster than the file wait), until a flush that
     * took its row is written: at most the flush under way and the next, however many writers keep coming.
     */
    const room = (queuedAfter: number): Effect.Effect<void, StoreError> =>
      Effect.suspend(() =>
        full() && written <= queuedAfter ? Effect.zipRight(sharedFlush, room(queuedAfter)) : Effect.void,
      )
    /** Queues a row (`put`), then a flush soon; a writer that filled the queue waits for room. */
    const enqueue = (put: () => void): Effect.Effect<void, StoreError> =>
      Effect.suspend(() => {
        put()
        return Effect.zipRight(schedule, room(taken))
      })

    // Closing the store writes what is queued (this finalizer runs before the database's, added earlier, closes it).
    yield* Effect.addFinalizer(() =>
      flush.pipe(Effect.catchAll((error) => Effect.logWarning("Writing the queued writes on close failed", error))),
    )

    return {
      putScrape: (row) => enqueue(() => scrapes.put(row.id, { ...row, document: hold(row.document) })),
      cacheSet: (row) => enqueue(() => cache.put(row.key, { ...row, body: hold(row.body) })),
      scrape: (id) => scrapes.rows.get(id),
      indexPage: (page) =>
        enqueue(() => index.put(`${page.owner ?? ""}\u0000${page.url}`, { ...page, content: hold(page.content) })),
      cached: (key) => cache.rows.get(key),
      flush,
    }
  })
