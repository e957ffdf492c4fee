/**
 * The Redis the tests use (loopback only) and their hygiene: each test works under a prefix of its own and deletes
 * its keys afterwards. Nothing here skips when Redis is down: the layer fails, and so does the test.
 */
import { randomUUID } from "node:crypto"
import { JobStore, type JobStoreShape, type StoreError } from "@webdata/core/jobs"
import { Context, Effect, Layer, type Scope } from "effect"
import { Redis } from "ioredis"
import { RedisJobStore } from "../../src/index.js"

export const REDIS_URL = "redis://127.0.0.1:6379"

export const uniquePrefix = (): string => `webdata-test:${randomUUID()}:`

/** Runs `body` on a connection of its own (fails at once when Redis is down), closed after it. */
export const withRedis = <A>(body: (redis: Redis) => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.acquireUseRelease(
    Effect.tryPromise(async () => {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 })
      await redis.connect()
      return redis
    }),
    (redis) => Effect.tryPromise(() => body(redis)),
    (redis) => Effect.sync(() => redis.disconnect()),
  )

/** Every key under `prefix`. */
export const keysOf = (redis: Redis, prefix: string): Promise<Array<string>> =>
  new Promise((resolve, reject) => {
    const found: Array<string> = []
    redis
      .scanStream({ match: `${prefix}*`, count: 1000 })
      .on("data", (batch: Array<string>) => found.push(...batch))
      .on("end", () => resolve(found))
      .on("error", reject)
  })

/** Deletes every key under `prefix` (SCAN MATCH prefix* + UNLINK; never FLUSHDB). */
export const deleteKeys = (prefix: string): Effect.Effect<void, unknown> =>
  withRedis(async (redis) => {
    const found = await keysOf(redis, prefix)
    for (let i = 0; i < found.length; i += 1000) await redis.unlink(...found.slice(i, i + 1000))
  })

/**
 * A store of its own (its own connections: a stand-in for another process) under `prefix`, open for the scope. The
 * caller deletes the prefix's keys (`cleanUp`).
 */
export const openStore = (prefix: string): Effect.Effect<JobStoreShape, StoreError, Scope.Scope> =>
  Effect.map(Layer.build(RedisJobStore.layer({ url: REDIS_URL, prefix })), Context.get(JobStore))

/** Deletes the keys of `prefixes` when the scope closes. */
export const cleanUp = (...prefixes: ReadonlyArray<string>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.addFinalizer(() => Effect.orDie(Effect.forEach(prefixes, deleteKeys, { discard: true })))

/** A store under `prefix`, whose keys are deleted when the layer's scope closes (the store itself keeps them). */
export const storeLayer = (prefix: string = uniquePrefix()): Layer.Layer<JobStore, StoreError> =>
  Layer.merge(RedisJobStore.layer({ url: REDIS_URL, prefix }), Layer.scopedDiscard(cleanUp(prefix)))
