/** What every part of the store works with: the client, its transactions, the locks and the news channel. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment, Statement } from "@effect/sql/Statement"
import type { PgClient } from "@effect/sql-pg"
import type { StoreError } from "@webdata/core/jobs"
import { Array as Arr, Effect, type Option } from "effect"
import { orStoreError } from "./Errors.js"
import * as Locks from "./Locks.js"
import * as News from "./News.js"
import type { JobRow } from "./Rows.js"

export interface Db {
  readonly sql: SqlClient.SqlClient
  readonly locks: Locks.Locks
  /** Statements run outside a transaction (one statement is atomic by itself); SqlError becomes StoreError. */
  readonly run: <A>(effect: Effect.Effect<A, SqlError | StoreError>) => Effect.Effect<A, StoreError>
  /** `effect` as one READ COMMITTED transaction (see Locks for why that level is enough). */
  readonly transaction: <A>(effect: Effect.Effect<A, SqlError | StoreError>) => Effect.Effect<A, StoreError>
  /** `effect` as one read-only transaction on one snapshot: several reads that must agree with each other. */
  readonly snapshot: <A>(effect: Effect.Effect<A, SqlError | StoreError>) => Effect.Effect<A, StoreError>
  /** Takes the job's writer lock, then reads its row `FOR KEY SHARE`; none when there is no such job. */
  readonly lockJob: (jobId: string) => Effect.Effect<Option.Option<JobRow>, SqlError>
  /** The call that queues news for other processes: Postgres delivers it when, and only if, the transaction commits. */
  readonly notification: (payload: string) => Fragment
  /** Queues news for other processes (see `notification`). */
  readonly notify: (payload: string) => Effect.Effect<void, SqlError>
}

/** Rows a write statement changed. */
export const changes = (statement: Statement<unknown>): Effect.Effect<number, SqlError> =>
  Effect.map(statement.raw, (result) => (result as { readonly rowCount: number | null }).rowCount ?? 0)

export const make = (pg: PgClient.PgClient, schema: string): Db => {
  const sql: SqlClient.SqlClient = pg
  const { host = "localhost", port = 5432, database = "postgres" } = pg.config
  const run = orStoreError(`${host}:${port}/${database}`)
  const locks = Locks.make(sql, schema)
  const channel = News.channel(schema)
  const notification = (payload: string) => sql`pg_notify(${channel}, ${payload})`
  return {
    sql,
    locks,
    run,
    transaction: (effect) => run(sql.withTransaction(effect)),
    snapshot: (effect) =>
      run(
        sql.withTransaction(Effect.zipRight(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`, effect)),
      ),
    lockJob: (jobId) =>
      Effect.zipRight(
        locks.job(jobId),
        Effect.map(sql<JobRow>`SELECT * FROM jobs WHERE id = ${jobId} FOR KEY SHARE`, Arr.head),
      ),
    notification,
    notify: (payload) => Effect.asVoid(sql`SELECT ${notification(payload)}`),
  }
}
