/**
 * The counters of `JobStore.addToCounter` and `readCounters` (table `counters`, migration 0007). An add is one upsert
 * that answers the new value: atomic by itself across every process sharing the file, with no transaction around it.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { counterIncrement, type JobStoreShape, type StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"

type Counters = Pick<JobStoreShape, "addToCounter" | "readCounters">

/** The store on `sql`; `run` turns the statements' `SqlError`s into `StoreError`s. */
export const make = (
  sql: SqlClient.SqlClient,
  run: <A>(effect: Effect.Effect<A, SqlError | StoreError>) => Effect.Effect<A, StoreError>,
): Counters => ({
  addToCounter: (name, by, expiresAt) =>
    Effect.flatMap(counterIncrement(by), (amount) =>
      run(
        Effect.map(
          sql<{ readonly value: number }>`
            INSERT INTO counters ${sql.insert({ name, value: amount, expires_at: expiresAt })}
            ON CONFLICT (name) DO UPDATE SET value = value + excluded.value, expires_at = excluded.expires_at
            RETURNING value`,
          (rows) => rows[0]!.value,
        ),
      ),
    ),

  // The names go as one JSON array, whatever their number (no limit of bound parameters); the answer is in their
  // order, 0 where no row joins.
  readCounters: (names) =>
    names.length === 0
      ? Effect.succeed([])
      : run(
          Effect.map(
            sql<{ readonly value: number }>`
              SELECT coalesce(c.value, 0) AS value
              FROM json_each(${JSON.stringify(names)}) AS n LEFT JOIN counters AS c ON c.name = n.value
              ORDER BY n.key`,
            (rows) => rows.map((row) => row.value),
          ),
        ),
})
