/**
 * Counters (`JobStore.addToCounter`): a rate-limit window or a month's usage, one row each, written on the request
 * path. Without rowid, a counter is one entry of one B-tree, found and updated by its name; the index on `expires_at`
 * is what the purge reads.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE counters (
      name TEXT PRIMARY KEY NOT NULL,
      value INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID`
  yield* sql`CREATE INDEX counters_expires ON counters (expires_at)`
})
