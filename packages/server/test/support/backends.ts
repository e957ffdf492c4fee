/**
 * Fresh, private parts of the shared backends for tests and benchmarks: a Postgres schema or a Redis key prefix of
 * their own, as a store layer (in this process) and as the environment of a server process, removed afterwards.
 */
import { randomUUID } from "node:crypto"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import type { JobStore } from "@webdata/core/jobs"
import { PostgresJobStore } from "@webdata/store-postgres"
import { RedisJobStore } from "@webdata/store-redis"
import { Effect, Layer, Redacted } from "effect"
import { Redis } from "ioredis"

export const POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
export const REDIS_URL = "redis://127.0.0.1:6379"

export interface Backend {
  readonly name: string
  /** The store in this process. */
  readonly layer: () => Layer.Layer<JobStore, unknown>
  /** What puts a server process on the same store. */
  readonly env: Record<string, string>
  /** Deletes everything the store wrote. */
  readonly cleanUp: () => Promise<void>
}

const suffix = () => randomUUID().replaceAll("-", "").slice(0, 12)

export const freshPostgres = (): Backend => {
  const schema = `webdata_t_${suffix()}`
  return {
    name: "postgres",
    layer: () => PostgresJobStore.layer({ url: POSTGRES_URL, schema }),
    env: { WEBDATA_STORE: POSTGRES_URL, WEBDATA_POSTGRES_SCHEMA: schema },
    cleanUp: () =>
      Effect.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).pipe(
          Effect.provide(PgClient.layer({ url: Redacted.make(POSTGRES_URL) }).pipe(Layer.provide(Reactivity.layer))),
          Effect.asVoid,
        ),
      ),
  }
}

export const freshRedis = (): Backend => {
  const prefix = `webdata-t-${suffix()}:`
  return {
    name: "redis",
    layer: () => RedisJobStore.layer({ url: REDIS_URL, prefix }),
    env: { WEBDATA_STORE: REDIS_URL, WEBDATA_REDIS_PREFIX: prefix },
    cleanUp: async () => {
      const client = new Redis(REDIS_URL)
      let cursor = "0"
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
        if (keys.length > 0) await client.unlink(...keys)
        cursor = next
      } while (cursor !== "0")
      client.disconnect()
    },
  }
}
