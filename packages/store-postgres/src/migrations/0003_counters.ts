/**
 * Counters (`JobStore.addToCounter`): a rate-limit window or a month's usage, one row each, updated on the request
 * path. Names compare byte-wise (`COLLATE "C"`), the cheapest comparison for a key looked up on every request. The
 * index on `expires_at` is what the purge reads; writers keep a counter's `expires_at` (the end of its window), so
 * their updates leave every index as it was and, with room on the page (fillfactor), stay HOT.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE counters (
      name text COLLATE "C" PRIMARY KEY,
      value bigint NOT NULL,
      expires_at bigint NOT NULL
    ) WITH (fillfactor = 80)`
  yield* sql`CREATE INDEX counters_expires ON counters (expires_at)`
})
