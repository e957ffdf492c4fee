/**
 * The counters of `JobStore.addToCounter` and `readCounters` (table `counters`, migration 0003). An add is one upsert
 * that answers the new value: Postgres settles concurrent adds of one name on its row (the second waits for the
 * first to commit, then adds to what it wrote), so it needs no transaction and no lock of ours. Values are bigint,
 * read back exactly (see `@webdata/core/sql-rows`).
 */
import type { SqlClient } from "@effect/sql"
import { counterIncrement, type JobStoreShape } from "@webdata/core/jobs"
import { Effect } from "effect"
import type { Db } from "./Db.js"
import type { Int8 } from "./Rows.js"

type Counters = Pick<JobStoreShape, "addToCounter" | "readCounters">

interface ValueRow {
  readonly value: Int8
}

/** Adds `by` to the counter `name`, answering its new value. */
export const added = (sql: SqlClient.SqlClient, name: string, by: number, expiresAt: number) =>
  sql<ValueRow>`
    INSERT INTO counters AS c ${sql.insert({ name, value: by, expires_at: expiresAt })}
    ON CONFLICT (name) DO UPDATE SET value = c.value + excluded.value, expires_at = excluded.expires_at
    RETURNING value`

/** The values of `names` in their order, 0 where no row joins: one statement whatever their number. */
export const read = (sql: SqlClient.SqlClient, names: ReadonlyArray<string>) =>
  sql<ValueRow>`
    SELECT coalesce(c.value, 0) AS value
    FROM unnest(${names}::text[]) WITH ORDINALITY AS n (name, i) LEFT JOIN counters AS c ON c.name = n.name
    ORDER BY n.i`

/**
 * Deletes the counters expired at `now` (in the purge's transaction): a range of `counters_expires`. A row being added
 * to at that instant is waited for (one statement's time) and then deleted only if its add left it expired.
 */
export const purged = (sql: SqlClient.SqlClient, now: number) => sql`DELETE FROM counters WHERE expires_at <= ${now}`

const values = (rows: ReadonlyArray<ValueRow>) => rows.map((row) => Number(row.value))

export const make = ({ sql, run }: Db): Counters => ({
  addToCounter: (name, by, expiresAt) =>
    Effect.flatMap(counterIncrement(by), (amount) =>
      run(Effect.map(added(sql, name, amount, expiresAt), (rows) => values(rows)[0]!)),
    ),

  readCounters: (names) => (names.length === 0 ? Effect.succeed([]) : run(Effect.map(read(sql, names), values))),
})
