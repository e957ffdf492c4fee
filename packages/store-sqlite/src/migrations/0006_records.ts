/**
 * Records (`JobStore.putRecord`): small JSON documents by kind and id, such as monitors and their checks. The indexes
 * hand each hot read its rows in the order it wants them: an owner's records of a kind (newest first), a parent's
 * children (listed, and deleted with it), the due records of a kind (earliest first), the expired ones. The last three
 * are partial: most records have no parent, are never due or never expire.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE records (
      kind TEXT NOT NULL,
      id TEXT NOT NULL,
      owner TEXT,
      parent TEXT,
      label TEXT,
      due_at INTEGER,
      value TEXT NOT NULL,
      version INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      expires_at INTEGER,
      PRIMARY KEY (kind, id)
    )`
  yield* sql`CREATE INDEX records_owner ON records (kind, owner, created_at, id)`
  yield* sql`CREATE INDEX records_parent ON records (parent, kind, created_at, id) WHERE parent IS NOT NULL`
  yield* sql`CREATE INDEX records_due ON records (kind, due_at, id) WHERE due_at IS NOT NULL`
  yield* sql`CREATE INDEX records_expires ON records (expires_at) WHERE expires_at IS NOT NULL`
})
