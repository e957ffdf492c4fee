/**
 * The JobStore on PostgreSQL (`@effect/sql-pg`): for many API and worker processes on many machines sharing one
 * database. Each operation is one transaction; how they stay correct side by side is in `Locks.ts`. Workers learn
 * of other processes' new work and cancellations over LISTEN/NOTIFY (`news`).
 *
 * The tables live in one schema (default `webdata`), set as the `search_path` of every pooled connection, so several
 * deployments can share a database. Opening the store creates the schema when missing and applies the pending
 * migrations, one process at a time.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { JobStore, type JobStoreShape, StoreError } from "@webdata/core/jobs"
import { Duration, Effect, Layer } from "effect"
import { type PostgresJobStoreOptions, settings } from "./Connection.js"
import * as Counters from "./Counters.js"
import * as Db from "./Db.js"
import { fromSqlError } from "./Errors.js"
import * as Gates from "./Gates.js"
import * as Jobs from "./Jobs.js"
import * as Leases from "./Leases.js"
import * as Locks from "./Locks.js"
import { loader } from "./migrations/index.js"
import * as News from "./News.js"
import * as Outbox from "./Outbox.js"
import * as Purge from "./Purge.js"
import * as Records from "./Records.js"
import * as Results from "./Results.js"
import * as SearchIndex from "./SearchIndex.js"

export type { PostgresJobStoreOptions } from "./Connection.js"

/** The Migrator's bookkeeping table, in the store's schema. */
const MIGRATIONS_TABLE = "effect_sql_migrations"

/**
 * The store on the `PgClient` in context, whose connections must have `schema` (migrated) as their `search_path`
 * and READ COMMITTED as their default isolation (`layer` sets both up).
 */
export const make = (schema: string): Effect.Effect<JobStoreShape, never, PgClient.PgClient> =>
  Effect.map(PgClient.PgClient, (pg) => {
    const db = Db.make(pg, schema)
    return {
      ...Jobs.make(db),
      ...Leases.make(db),
      ...Results.make(db),
      ...SearchIndex.make(db),
      ...Outbox.make(db),
      ...Gates.make(db),
      ...Records.make(db),
      ...Counters.make(db),
      ...Purge.make(db),
      news: News.stream(pg, News.channel(schema)),
    }
  })

/**
 * Creates `schema` when missing and applies the pending migrations to it, in one transaction: a process killed
 * midway leaves the schema as it was (Postgres DDL is transactional). An advisory lock makes processes that start
 * at once migrate one after the other; the later ones find nothing left to do. Works on any connection of the pool:
 * the transaction sets its own `search_path`.
 */
export const migrate = (schema: string): Effect.Effect<void, SqlError | Migrator.MigrationError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* Locks.migration(sql, schema)
        yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`
        yield* sql`SET LOCAL search_path TO ${sql(schema)}`
        // The Migrator creates its table after a failed probe, which inside a transaction would abort it: the table
        // is created here first, as the Migrator would.
        yield* sql`
          CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
            migration_id integer PRIMARY KEY,
            created_at timestamp with time zone NOT NULL DEFAULT now(),
            name text NOT NULL
          )`
        yield* Migrator.make({})({ loader, table: MIGRATIONS_TABLE })
      }),
    ),
  )

/** Why `migrate` failed, as the store reports it. The Migrator dies (a defect) when a migration fails. */
const cannotMigrate = (target: string, schema: string) => (cause: unknown) => {
  const detail = (error: unknown): string =>
    error instanceof SqlError
      ? fromSqlError(target)(error).message
      : error instanceof Migrator.MigrationError && error.cause !== undefined
        ? `${error.message}: ${detail(error.cause)}`
        : error instanceof Error
          ? error.message
          : String(error)
  return new StoreError({
    reason: "Unavailable",
    message: `Cannot migrate schema ${schema} of PostgreSQL at ${target}: ${detail(cause)}`,
    cause,
  })
}

/** Connects, migrates, and builds the store; the pool closes when the scope does. */
const open = (options: PostgresJobStoreOptions) =>
  Effect.gen(function* () {
    const { url, schema, poolSize, target } = yield* settings(options)
    const pg = yield* PgClient.make({
      url,
      maxConnections: poolSize,
      connectTimeout: Duration.seconds(10),
      applicationName: "webdata",
    }).pipe(Effect.mapError(fromSqlError(target)))
    yield* migrate(schema).pipe(
      Effect.provideService(SqlClient.SqlClient, pg),
      Effect.catchAllDefect(Effect.fail),
      Effect.mapError(cannotMigrate(target, schema)),
    )
    return yield* Effect.provideService(make(schema), PgClient.PgClient, pg)
  })

/**
 * The store in `options.schema` of the database at `options.url`, on a pool of `options.poolSize` connections (and
 * one more while `news` is read).
 */
export const layer = (options: PostgresJobStoreOptions): Layer.Layer<JobStore, StoreError> =>
  Layer.scoped(JobStore, open(options)).pipe(Layer.provide(Reactivity.layer))
