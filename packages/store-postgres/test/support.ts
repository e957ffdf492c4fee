/** Test helpers: stores in schemas of their own on the local test database, dropped when their scope closes. */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { JobStore, type StoreError } from "@webdata/core/jobs"
import { Context, Effect, Layer, Redacted } from "effect"
import { PostgresJobStore } from "../src/index.js"

/** Loopback only; tests fail (never skip) when nothing listens there. */
export const TEST_URL = "postgres://postgres@127.0.0.1:5432/test"

const freshSchemaName = (): string => `webdata_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`

/** A client on the test database, for what the store does not expose: setup, EXPLAIN, inspection. */
export const rawLayer = PgClient.layer({ url: Redacted.make(TEST_URL), maxConnections: 4 })

/** Runs `body` on a raw client of its own, opened for the call. */
export const raw = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, body).pipe(Effect.provide(rawLayer))

const dropSchema = (schema: string) =>
  raw((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).pipe(Effect.orDie)

/** Scopes a fresh schema's name: the schema (whatever made it) is dropped when the scope closes. */
export const scopedSchema = Effect.acquireRelease(Effect.sync(freshSchemaName), dropSchema)

/** A store in a schema of its own (empty), dropped with everything in it when the layer's scope closes. */
export const layerInFreshSchema = (options: { readonly poolSize?: number } = {}): Layer.Layer<JobStore, StoreError> =>
  Layer.unwrapScoped(
    Effect.map(scopedSchema, (schema) => PostgresJobStore.layer({ url: TEST_URL, schema, ...options })),
  )

/** The store of `schema` (another process on the same database: a pool of its own) for the current scope. */
export const storeIn = (schema: string, options: { readonly poolSize?: number } = {}) =>
  Effect.map(Layer.build(PostgresJobStore.layer({ url: TEST_URL, schema, ...options })), Context.get(JobStore))
