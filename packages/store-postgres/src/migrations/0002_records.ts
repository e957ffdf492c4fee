/**
 * Records (`JobStore.putRecord`): small JSON documents by kind and id, such as monitors and their checks. As in the
 * first schema, JSON is TEXT and ids compare byte-wise (`COLLATE "C"`), so ties in the listing order are broken as
 * every store breaks them.
 *
 * The indexes hand each hot read its rows in the order it wants them: an owner's records of a kind (newest first), a
 * parent's children (listed, and deleted with it), the due records of a kind (earliest first), the expired ones. The
 * last three are partial: most records have no parent, are never due or never expire.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE records (
      kind text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      owner text COLLATE "C",
      parent text COLLATE "C",
      label text COLLATE "C",
      due_at bigint,
      value text NOT NULL,
      version bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      expires_at bigint,
      PRIMARY KEY (kind, id)
    )`
  yield* sql`CREATE INDEX records_owner ON records (kind, owner, created_at, id)`
  yield* sql`CREATE INDEX records_parent ON records (parent, kind, created_at, id) WHERE parent IS NOT NULL`
  yield* sql`CREATE INDEX records_due ON records (kind, due_at, id) WHERE due_at IS NOT NULL`
  yield* sql`CREATE INDEX records_expires ON records (expires_at) WHERE expires_at IS NOT NULL`
  // A snapshot of a page can be large: LZ4 where the server has it, as for the first schema's large values.
  yield* sql`
    DO $$
    BEGIN
      ALTER TABLE records ALTER COLUMN value SET COMPRESSION lz4;
    EXCEPTION WHEN OTHERS THEN NULL;
    END $$`
})
