/**
 * The reads every status poll makes (a job, a page of its documents), every crawled page (its politeness gates) and
 * every search (whether the FTS index is behind), on a connection of their own, straight through better-sqlite3's
 * prepared statements. Through `@effect/sql` each statement costs ~120 µs of CPU (its prepared statement cache, the
 * connection's semaphore, a span); here ~15 µs.
 *
 * A second connection to the same file reads what is committed, as every other process on the file does (WAL mode:
 * readers neither wait for the writer nor block it). The store's own connection saw no more: its transactions hold it
 * until they commit. A database in memory has no second connection; its store reads through `@effect/sql`.
 */
import Sqlite from "better-sqlite3"
import { Effect, type Scope } from "effect"
import { type DocumentRow, JOB_HEAD_COLUMNS, type JobHeadRow, type JobRow } from "./Rows.js"

import { BEHIND_QUERY } from "./SearchBacklog.js"

export interface HotReads {
  readonly job: (id: string) => JobRow | undefined
  /** `job` but the JSON columns (`JOB_HEAD_COLUMNS`): what a status poll shows. */
  readonly jobHead: (id: string) => JobHeadRow | undefined
  readonly documents: (jobId: string, skip: number, limit: number) => ReadonlyArray<DocumentRow>
  /** The latest `opens_at` of the gates `keys` (0 when none is held). */
  readonly gatesOpenAt: (keys: ReadonlyArray<string>) => number
  /** Whether pages wait for the FTS index (`SearchBacklog.BEHIND_QUERY`). */
  readonly indexBehind: () => boolean
}

/** The reads on a new connection to `filename`, closed with the scope. */
export const open = (filename: string, busyTimeoutMs: number): Effect.Effect<HotReads, unknown, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.try(() => {
        const db = new Sqlite(filename, { fileMustExist: true, timeout: busyTimeoutMs })
        // It reads only: a bug that made it write would bypass the store's transactions.
        db.pragma("query_only = ON")
        return db
      }),
      (db) => Effect.sync(() => db.close()),
    ),
    (db): HotReads => {
      // Prepared on first use: the schema may not be there yet when another process is migrating the file (this
      // process's migration then stands back and returns at once).
      let job: Sqlite.Statement<[string], JobRow> | undefined
      let jobHead: Sqlite.Statement<[string], JobHeadRow> | undefined
      let documents: Sqlite.Statement<[string, number, number], DocumentRow> | undefined
      let gates: Sqlite.Statement<[string], { readonly opens_at: number | null }> | undefined
      let behind: Sqlite.Statement<[], { readonly behind: number }> | undefined
      return {
        job: (id) => {
          job ??= db.prepare<[string], JobRow>("SELECT * FROM jobs WHERE id = ?")
          return job.get(id)
        },
        jobHead: (id) => {
          jobHead ??= db.prepare<[string], JobHeadRow>(`SELECT ${JOB_HEAD_COLUMNS} FROM jobs WHERE id = ?`)
          return jobHead.get(id)
        },
        documents: (jobId, skip, limit) => {
          documents ??= db.prepare<[string, number, number], DocumentRow>(
            "SELECT * FROM documents WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
          )
          return documents.all(jobId, skip, limit)
        },
        gatesOpenAt: (keys) => {
          // Any number of keys in one statement: the list goes in as a JSON array.
          gates ??= db.prepare<[string], { readonly opens_at: number | null }>(
            "SELECT max(opens_at) AS opens_at FROM gates WHERE key IN (SELECT value FROM json_each(?))",
          )
          return gates.get(JSON.stringify(keys))?.opens_at ?? 0
        },
        indexBehind: () => {
          behind ??= db.prepare<[], { readonly behind: number }>(BEHIND_QUERY)
          return behind.get()?.behind === 1
        },
      }
    },
  )
