/**
 * The pages of the local search index, one per owner and URL. `seq` is AUTOINCREMENT so that a replaced page (INSERT
 * OR REPLACE deletes the old row) always gets a seq above every seq handed out before, even when the row it replaced
 * was the newest: readers that follow the table by seq then never miss a new version.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The owner is '' for keyless callers: UNIQUE treats NULLs as distinct, so NULL would let a page in twice.
  yield* sql`
    CREATE TABLE search_index (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      owner TEXT NOT NULL,
      url TEXT NOT NULL,
      title TEXT,
      description TEXT,
      content TEXT NOT NULL,
      scraped_at INTEGER NOT NULL,
      UNIQUE (owner, url)
    )`
  yield* sql`CREATE INDEX search_index_scraped_at ON search_index (scraped_at)`
})
