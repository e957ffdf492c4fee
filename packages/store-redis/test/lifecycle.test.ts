/** What the layer does at start and close, and how the store's keys expire. */
import { describe, expect, it } from "@effect/vitest"
import { JobStore } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { newJob, task, tasks } from "../../core/test/jobs/conformance.js"
import { RedisJobStore } from "../src/index.js"
import { layout } from "../src/Keys.js"
import { isNoScript } from "../src/Script.js"
import { EXPIRY_GRACE_MS } from "../src/scripts/prelude.js"
import { cleanUp, keysOf, openStore, uniquePrefix, withRedis } from "./support/redis.js"

const HOUR = 60 * 60 * 1000

/** The store's keys that belong to no job, scrape or page: indexes and counters, kept for good. */
const sharedKeys = (prefix: string) =>
  new Set(
    Object.values(layout)
      .filter((suffix) => !suffix.endsWith(":"))
      .map((suffix) => prefix + suffix),
  )

/** Every key under `prefix` that is not shared, with its time to live in ms. */
const ownKeys = (prefix: string) =>
  withRedis(async (redis) => {
    const shared = sharedKeys(prefix)
    const found = (await keysOf(redis, prefix)).filter((key) => !shared.has(key))
    return Promise.all(found.map(async (key) => [key, await redis.pttl(key)] as const))
  })

describe("Redis store lifecycle", () => {
  it.effect("fails with Unavailable, naming the host but not the password, when Redis does not answer", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.provide(JobStore, RedisJobStore.layer({ url: "redis://:s3cret@127.0.0.1:1", connectTimeoutMs: 1000 })),
      )
      expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
      expect(error.message).toContain("redis://127.0.0.1:1")
      expect(error.message).not.toContain("s3cret")
    }),
  )

  it.scopedLive("runs its scripts again after Redis forgot them (a restart, SCRIPT FLUSH)", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const now = Date.now()
      const store = yield* openStore(prefix)
      const job = yield* store.createJob(newJob({ createdAt: now, expiresAt: now + HOUR }), tasks(1))
      // Every client of this Redis then finds its scripts gone, and sends them again.
      yield* withRedis((redis) => redis.script("FLUSH"))
      const [leased] = yield* store.leaseTasks({ worker: "w1", now, leaseMs: 60_000, max: 1 })
      expect(leased?.jobId).toBe(job.id)
    }),
  )

  // A minifying bundler (the Lambda bundle) renames redis-errors' classes, and their `name` with them: a NOSCRIPT
  // reply must be recognised by its class.
  it("tells a NOSCRIPT reply by its class, whatever the class is called", async () => {
    const { ReplyError } = await import("ioredis")
    const Renamed = class Ngt extends (ReplyError as typeof Error) {}
    expect(new Renamed("NOSCRIPT No matching script. Please use EVAL.").name).toBe("Ngt")
    expect(isNoScript(new Renamed("NOSCRIPT No matching script. Please use EVAL."))).toBe(true)
    expect(isNoScript(new Error("NOSCRIPT No matching script."))).toBe(false)
  })

  it.scopedLive("keeps everything when its connections close and others open", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const now = Date.now()
      const job = yield* Effect.scoped(
        Effect.gen(function* () {
          const store = yield* openStore(prefix)
          const job = yield* store.createJob(newJob({ createdAt: now, expiresAt: now + HOUR }), tasks(2))
          const [leased] = yield* store.leaseTasks({ worker: "w1", now, leaseMs: 60_000, max: 1 })
          yield* store.completeTask(leased!, { now, document: { n: 1 }, discovered: [], robotsBlocked: [] })
          return job
        }),
      )
      const store = yield* openStore(prefix)
      expect(Option.getOrThrow(yield* store.getJob(job.id))).toMatchObject({ total: 2, completed: 1 })
      expect((yield* store.documents(job.id, { skip: 0, limit: 10 })).map((d) => d.document)).toEqual([{ n: 1 }])
      expect(yield* store.leaseTasks({ worker: "w2", now, leaseMs: 60_000, max: 10 })).toHaveLength(1)
    }),
  )

  it.scopedLive("every key of a job expires a grace period after it, and purgeExpired leaves none of them", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      const now = Date.now()
      const expiresAt = now + HOUR
      const job = yield* store.createJob(newJob({ createdAt: now, expiresAt }), tasks(4))
      const [a, b] = yield* store.leaseTasks({ worker: "w1", now, leaseMs: 60_000, max: 3 })
      yield* store.completeTask(a!, {
        now,
        document: { markdown: "# a" },
        discovered: [task("/new", { depth: 1 })],
        robotsBlocked: ["https://example.test/private"],
      })
      yield* store.completeTask(b!, {
        now,
        error: { code: "SCRAPE_TIMEOUT", message: "timed out" },
        discovered: [],
        robotsBlocked: [],
      })
      yield* store.enqueueDelivery({ jobId: job.id, payload: { event: "page" }, createdAt: now })
      yield* store.putScrape({ id: "s-1", owner: null, document: {}, expiresAt })

      const owned = yield* ownKeys(prefix)
      // The job's hash and its parts, five tasks, a delivery, a scrape.
      expect(owned.length).toBeGreaterThanOrEqual(1 + 9 + 5 + 1 + 1)
      for (const [key, ttl] of owned) {
        expect({ key, ttl: ttl > HOUR && ttl <= HOUR + EXPIRY_GRACE_MS }).toEqual({ key, ttl: true })
      }

      expect(yield* store.purgeExpired(expiresAt)).toEqual({
        jobs: 1,
        tasks: 5,
        documents: 1,
        errors: 1,
        scrapes: 1,
        cache: 0,
        indexed: 0,
        deliveries: 1,
        records: 0,
        counters: 0,
      })
      expect(yield* ownKeys(prefix)).toEqual([])
      // Of the shared keys only the lease turn counter is left: the indexes emptied with the job.
      const left = yield* withRedis((redis) => keysOf(redis, prefix))
      expect(left).toEqual([prefix + layout.turn])
    }),
  )

  it.scopedLive("records leave no key behind once deleted or purged", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      const write = { kind: "monitor", owner: "key-a", value: {}, now: 1 }
      yield* store.putRecord({ ...write, id: "m1", dueAt: 5, expiresAt: 10 })
      yield* store.putRecord({ ...write, id: "m2", owner: null })
      yield* store.putRecord({ ...write, kind: "monitor-check", id: "c1", parent: "m2", label: "done", expiresAt: 10 })
      yield* store.putRecord({ ...write, kind: "snapshot", id: "s1", parent: "m2" })
      // Rewritten with other fields: the entries of the old ones go.
      yield* store.putRecord({ ...write, id: "m1", owner: "key-b", parent: "p", now: 2 })
      expect(yield* store.deleteRecord("monitor", "m2")).toBe(3)
      expect((yield* store.purgeExpired(10)).records).toBe(0)
      expect(yield* store.deleteRecord("monitor", "m1")).toBe(1)
      expect(yield* withRedis((redis) => keysOf(redis, prefix))).toEqual([])

      yield* store.putRecord({ ...write, id: "m3", dueAt: 5, parent: "p", expiresAt: 10 })
      expect((yield* store.purgeExpired(10)).records).toBe(1)
      expect(yield* withRedis((redis) => keysOf(redis, prefix))).toEqual([])
    }),
  )

  it.scopedLive("a counter's key expires a grace period after its window, and purgeExpired leaves no key of it", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      const now = Date.now()
      expect(yield* store.addToCounter("rate:key-a:1", 2, now + HOUR)).toBe(2)
      const [[key, ttl]] = (yield* ownKeys(prefix)) as [readonly [string, number]]
      expect(key).toBe(prefix + layout.counter + "rate:key-a:1")
      expect(ttl > HOUR && ttl <= HOUR + EXPIRY_GRACE_MS).toBe(true)
      expect((yield* store.purgeExpired(now + HOUR - 1)).counters).toBe(0)
      expect((yield* store.purgeExpired(now + HOUR)).counters).toBe(1)
      expect(yield* withRedis((redis) => keysOf(redis, prefix))).toEqual([])
    }),
  )

  it.scopedLive("keys of what expired by the caller's clock still live a grace period on the server's", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      yield* store.createJob(newJob({ expiresAt: 1_700_000_000_000 }), tasks(1))
      const owned = yield* ownKeys(prefix)
      expect(owned.length).toBeGreaterThan(0)
      for (const [, ttl] of owned) {
        expect(ttl).toBeGreaterThan(EXPIRY_GRACE_MS - 60_000)
        expect(ttl).toBeLessThanOrEqual(EXPIRY_GRACE_MS)
      }
    }),
  )

  it.scopedLive("purges what takes several slices: a 5 000-task job and 150 index pages", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      const now = Date.now()
      const job = yield* store.createJob(newJob({ createdAt: now, expiresAt: now + HOUR, limit: 5_000 }), tasks(5_000))
      for (let i = 0; i < 150; i++)
        yield* store.indexPage({ owner: null, url: `https://example.test/${i}`, content: `page ${i}`, scrapedAt: now })

      expect(yield* store.purgeExpired(now + HOUR, { indexBefore: now + 1 })).toMatchObject({
        jobs: 1,
        tasks: 5_000,
        indexed: 150,
      })
      expect(yield* store.getJob(job.id)).toEqual(Option.none())
      expect(yield* ownKeys(prefix)).toEqual([])
      expect(
        yield* store.searchIndex({
          terms: ["page"],
          match: "all",
          prefixLast: false,
          newestFirst: false,
          offset: 0,
          limit: 10,
        }),
      ).toEqual([])
    }),
  )
})
