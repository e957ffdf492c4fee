/**
 * The records of `JobStore.putRecord` and the rest (table `records`, migration 0006). Every write is one statement,
 * so it is atomic by itself, compare-and-set included, and needs no transaction.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { encodeJson, type JobStoreShape, type StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"
import { decodeFirst, type RecordRow, recordChanges, toStoredRecord } from "./Rows.js"

type Records = Pick<JobStoreShape, "putRecord" | "getRecord" | "listRecords" | "dueRecords" | "deleteRecord">

/** The store on `sql`; `run` turns the statements' `SqlError`s into `StoreError`s. */
export const make = (
  sql: SqlClient.SqlClient,
  run: <A>(effect: Effect.Effect<A, SqlError | StoreError>) => Effect.Effect<A, StoreError>,
): Records => ({
  putRecord: (write) =>
    Effect.flatMap(encodeJson(write.value), (json) => {
      const changed = recordChanges(write, json)
      const next = sql`${sql.update(changed)}, version = version + 1`
      const created = sql`INSERT INTO records ${sql.insert({
        kind: write.kind,
        id: write.id,
        ...changed,
        version: 1,
        created_at: write.now,
      })}`
      const statement =
        write.expectedVersion === undefined
          ? sql<RecordRow>`${created} ON CONFLICT (kind, id) DO UPDATE SET ${next} RETURNING *`
          : write.expectedVersion === 0
            ? sql<RecordRow>`${created} ON CONFLICT (kind, id) DO NOTHING RETURNING *`
            : sql<RecordRow>`
                UPDATE records SET ${next}
                WHERE kind = ${write.kind} AND id = ${write.id} AND version = ${write.expectedVersion}
                RETURNING *`
      return run(Effect.flatMap(statement, decodeFirst(toStoredRecord)))
    }),

  getRecord: (kind, id) =>
    run(
      Effect.flatMap(
        sql<RecordRow>`SELECT * FROM records WHERE kind = ${kind} AND id = ${id}`,
        decodeFirst(toStoredRecord),
      ),
    ),

  listRecords: (query) => {
    const clauses = [
      sql`kind = ${query.kind}`,
      ...(query.owner === undefined ? [] : [query.owner === null ? sql`owner IS NULL` : sql`owner = ${query.owner}`]),
      ...(query.parent === undefined ? [] : [sql`parent = ${query.parent}`]),
      ...(query.label === undefined ? [] : [sql`label = ${query.label}`]),
    ]
    return run(
      Effect.flatMap(
        sql<RecordRow>`
          SELECT * FROM records WHERE ${sql.and(clauses)}
          ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, query.limit)} OFFSET ${Math.max(0, query.offset)}`,
        Effect.forEach(toStoredRecord),
      ),
    )
  },

  dueRecords: (kind, now, limit) =>
    run(
      Effect.flatMap(
        sql<RecordRow>`
          SELECT * FROM records WHERE kind = ${kind} AND due_at <= ${now}
          ORDER BY due_at, id LIMIT ${Math.max(0, limit)}`,
        Effect.forEach(toStoredRecord),
      ),
    ),

  deleteRecord: (kind, id) =>
    run(
      Effect.map(
        sql`DELETE FROM records WHERE (kind = ${kind} AND id = ${id}) OR parent = ${id} RETURNING 1`,
        (rows) => rows.length,
      ),
    ),
})
