/**
 * The records of `JobStore.putRecord` and the rest (table `records`, migration 0002). Every write is one statement,
 * and each compare-and-set is one that Postgres settles between concurrent writers: a create (`expectedVersion` 0) is
 * an insert that does nothing on a conflict, waiting for a concurrent insert of the same key to commit first; an update
 * of a version takes the row's lock and checks the version again on the row as the writer before it left it.
 */
import type { SqlClient } from "@effect/sql"
import { encodeJson, type JobStoreShape, type RecordQuery } from "@webdata/core/jobs"
import { Effect } from "effect"
import { changes, type Db } from "./Db.js"
import { decodeFirst, type RecordRow, recordChanges, toStoredRecord } from "./Rows.js"

type Records = Pick<JobStoreShape, "putRecord" | "getRecord" | "listRecords" | "dueRecords" | "deleteRecord">

/** The records `query` lists: on `records_parent` when a parent is given, on `records_owner` otherwise. */
export const listed = (sql: SqlClient.SqlClient, query: RecordQuery) => {
  const clauses = [
    sql`kind = ${query.kind}`,
    ...(query.owner === undefined ? [] : [query.owner === null ? sql`owner IS NULL` : sql`owner = ${query.owner}`]),
    ...(query.parent === undefined ? [] : [sql`parent = ${query.parent}`]),
    ...(query.label === undefined ? [] : [sql`label = ${query.label}`]),
  ]
  return sql<RecordRow>`
    SELECT * FROM records WHERE ${sql.and(clauses)}
    ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, query.limit)} OFFSET ${Math.max(0, query.offset)}`
}

/** The due records of `kind`: a range of the partial index `records_due`. */
export const due = (sql: SqlClient.SqlClient, kind: string, now: number, limit: number) =>
  sql<RecordRow>`
    SELECT * FROM records WHERE kind = ${kind} AND due_at <= ${now} ORDER BY due_at, id LIMIT ${Math.max(0, limit)}`

export const make = ({ sql, run }: Db): Records => ({
  putRecord: (write) =>
    Effect.flatMap(encodeJson(write.value), (json) => {
      const changed = recordChanges(write, json)
      const next = sql`${sql.update(changed)}, version = records.version + 1`
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

  listRecords: (query) => run(Effect.flatMap(listed(sql, query), Effect.forEach(toStoredRecord))),

  dueRecords: (kind, now, limit) => run(Effect.flatMap(due(sql, kind, now, limit), Effect.forEach(toStoredRecord))),

  // The rows are locked in key order before they are deleted, so that two deletes of overlapping families queue
  // rather than deadlock (see Locks).
  deleteRecord: (kind, id) =>
    run(
      changes(sql`
        DELETE FROM records WHERE (kind, id) IN (
          SELECT kind, id FROM records WHERE (kind = ${kind} AND id = ${id}) OR parent = ${id}
          ORDER BY kind, id FOR UPDATE
        )`),
    ),
})
