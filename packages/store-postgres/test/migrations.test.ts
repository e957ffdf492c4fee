/** Opening the store: connection settings, errors that say what is wrong, and migrations safe to run many times. */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { it } from "@effect/vitest"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import { describe, expect } from "vitest"
import { newJob, task } from "../../core/test/jobs/conformance.js"
import { settings } from "../src/Connection.js"
import { PostgresJobStore } from "../src/index.js"
import { raw, scopedSchema, storeIn, TEST_URL } from "./support.js"

const migrations = (schema: string) =>
  raw((sql) => sql<{ readonly name: string }>`SELECT name FROM ${sql(schema)}.effect_sql_migrations`)

const tables = (schema: string) =>
  raw((sql) =>
    Effect.map(
      sql<{ readonly table_name: string }>`
        SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`,
      (rows) => rows.map((row) => row.table_name),
    ),
  )

const openError = (options: PostgresJobStore.PostgresJobStoreOptions) =>
  Effect.flip(Effect.scoped(Layer.build(PostgresJobStore.layer(options))))

describe("PostgreSQL store: opening and migrating", () => {
  it.scopedLive("migrating again is a no-op, and a later process opens the migrated schema", () =>
    Effect.gen(function* () {
      const schema = yield* scopedSchema
      const first = yield* storeIn(schema)
      const job = yield* first.createJob(newJob(), [task("/")])
      const before = yield* tables(schema)
      expect(before).toContain("tasks")
      expect(yield* migrations(schema)).toEqual([
        { name: "initial" },
        { name: "records" },
        { name: "counters" },
        { name: "llmstxt_jobs" },
      ])

      yield* raw((sql) => Effect.provideService(PostgresJobStore.migrate(schema), SqlClient.SqlClient, sql))
      expect(yield* tables(schema)).toEqual(before)
      expect(yield* migrations(schema)).toEqual([
        { name: "initial" },
        { name: "records" },
        { name: "counters" },
        { name: "llmstxt_jobs" },
      ])

      const later = yield* storeIn(schema)
      expect(yield* later.getJob(job.id)).toEqual(Option.some(job))
    }),
  )

  it.scopedLive("processes starting at once on a new schema migrate it once", () =>
    Effect.gen(function* () {
      const schema = yield* scopedSchema
      const stores = yield* Effect.all(
        Array.from({ length: 6 }, () => storeIn(schema, { poolSize: 2 })),
        { concurrency: "unbounded" },
      )
      expect(yield* migrations(schema)).toEqual([
        { name: "initial" },
        { name: "records" },
        { name: "counters" },
        { name: "llmstxt_jobs" },
      ])
      const job = yield* stores[0]!.createJob(newJob(), [task("/")])
      expect(Option.isSome(yield* stores[5]!.getJob(job.id))).toBe(true)
    }),
  )

  it.scopedLive("every pooled connection has the schema as its search_path and READ COMMITTED as its isolation", () =>
    Effect.gen(function* () {
      const schema = yield* scopedSchema
      const { url } = Either.getOrThrow(settings({ url: TEST_URL, schema }))
      const read = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* Effect.all(
          Array.from({ length: 3 }, () =>
            sql.withTransaction(
              sql<{ readonly path: string; readonly isolation: string }>`
                SELECT current_setting('search_path') AS path, current_setting('transaction_isolation') AS isolation`,
            ),
          ),
          { concurrency: "unbounded" },
        )
      })
      const rows = yield* Effect.provide(read, PgClient.layer({ url, maxConnections: 3 }))
      expect(rows.flat()).toEqual(Array(3).fill({ path: schema, isolation: "read committed" }))
      expect(Redacted.value(url)).toContain("postgres://postgres@127.0.0.1:5432/test?options=")
    }),
  )

  it.effect("a server that cannot be reached is Unavailable, named by host, never by password", () =>
    Effect.gen(function* () {
      const error = yield* openError({ url: "postgres://webdata:s3cret@127.0.0.1:1/test" })
      expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
      expect(error.message).toContain("PostgreSQL at 127.0.0.1:1/test is unavailable")
      expect(error.message).not.toContain("s3cret")
    }),
  )

  it.effect("invalid options are refused before connecting", () =>
    Effect.gen(function* () {
      for (const [options, says] of [
        [{ url: TEST_URL, schema: "Bad-Name" }, "schema name"],
        [{ url: TEST_URL, schema: "x".repeat(49) }, "schema name"],
        [{ url: TEST_URL, poolSize: 0 }, "pool size"],
        [{ url: "mysql://root:s3cret@127.0.0.1/test" }, "scheme"],
        [{ url: "postgres://root:s3cret@[bad" }, "Invalid PostgreSQL URL"],
      ] as const) {
        const error = yield* openError(options)
        expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
        expect(error.message).toContain(says)
        expect(error.message).not.toContain("s3cret")
        expect(JSON.stringify(error.cause ?? null)).not.toContain("s3cret")
      }
    }),
  )

  it.effect("the default schema is webdata", () =>
    Effect.sync(() => {
      const defaults = Either.getOrThrow(settings({ url: TEST_URL }))
      expect(defaults).toMatchObject({ schema: "webdata", poolSize: 10, target: "127.0.0.1:5432/test" })
    }),
  )
})
