/**
 * The pages written to the search index but not yet tokenized into its FTS5 index (migration 0009). A search indexes
 * them first (`catchUp`); and once this process has written no page for `idleMs` (a crawl ended, a lone scrape went
 * by), it indexes them unasked, so that the first search after a large crawl does not pay for all of it. While pages
 * keep coming, nothing is tokenized: a crawl's pages/s does not pay for an index it may never be asked about.
 */
import type { StoreError } from "@webdata/core/jobs"
import { Duration, Effect, type Scope } from "effect"
import type { Statements } from "./Connection.js"
import * as HotWrites from "./HotWrites.js"

/** Pages put into the FTS index per transaction: a chunk of 15–30 KB pages holds the event loop ~50 ms. */
const CHUNK = 100

export interface SearchBacklog {
  /** Notes that a page went to the index (through the write-behind queue). */
  readonly pageWritten: Effect.Effect<void>
  /** Indexes every page written so far (the caller has flushed the write-behind queue). */
  readonly catchUp: Effect.Effect<void, StoreError>
}

/** One row, `behind` 1 when pages wait for the FTS index: a read, so that a search with none takes no write lock. */
export const BEHIND_QUERY = `
  SELECT (SELECT indexed_through FROM search_index_fts_state) < coalesce((SELECT max(seq) FROM search_index), 0)
    AS behind`

export const make = (
  exclusive: <A>(body: (db: Statements) => A) => Effect.Effect<A, StoreError>,
  flushQueue: Effect.Effect<void, StoreError>,
  /** `BEHIND_QUERY`'s answer. */
  behind: Effect.Effect<boolean, StoreError>,
  idleMs: number,
): Effect.Effect<SearchBacklog, never, Scope.Scope> =>
  Effect.gen(function* () {
    const indexChunks: Effect.Effect<void, StoreError> = Effect.flatMap(
      exclusive((db) => HotWrites.indexBacklog(db, CHUNK)),
      (indexed) => (indexed < CHUNK ? Effect.void : indexChunks),
    )
    const catchUp = Effect.flatMap(behind, (isBehind) => (isBehind ? indexChunks : Effect.void))
    const scope = yield* Effect.scope
    let lastPageAt = 0
    let scheduled = false
    /**
     * Indexes what waits once no page has come for `idleMs`, looking again as long as pages keep coming. Planned only
     * while pages were written since: an idle store holds no timer (nothing keeps its process alive).
     */
    const whenIdle = (waitMs: number): Effect.Effect<void> =>
      Effect.zipRight(
        Effect.sleep(Duration.millis(waitMs)),
        Effect.suspend(() => {
          const left = lastPageAt + idleMs - Date.now()
          if (left > 0) return whenIdle(left)
          scheduled = false
          return Effect.zipRight(flushQueue, catchUp).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning("Indexing the pages written for search failed; a search will index them", error),
            ),
          )
        }),
      )
    return {
      pageWritten: Effect.suspend(() => {
        lastPageAt = Date.now()
        if (scheduled) return Effect.void
        scheduled = true
        return Effect.asVoid(Effect.forkIn(whenIdle(idleMs), scope))
      }),
      catchUp,
    }
  })
