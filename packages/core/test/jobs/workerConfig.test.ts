import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import * as Engine from "../../src/Engine.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import * as Worker from "../../src/Jobs/Worker.js"

const HOUR = 60 * 60 * 1000
const page = { url: "https://example.test/", statusCode: 200, contentType: undefined, body: "x" }

/** Builds the engine from `env` over a store holding cache entries 1 and 60 hours old; returns which survive. */
const survivors = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const store = MemoryJobStore.make()
    const now = Date.now()
    yield* store.cacheSet("fresh", { ...page, cachedAt: now - HOUR })
    yield* store.cacheSet("old", { ...page, cachedAt: now - 60 * HOUR })
    const engine = Engine.layerConfig(Layer.succeed(JobStore, store))
    const provider = ConfigProvider.fromMap(new Map(Object.entries({ WEBDATA_CONTENT_THREADS: "0", ...env })))
    return yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Layer.build(engine)
        // The worker purges once as it starts, then every minute.
        yield* Effect.sleep("200 millis")
        const kept: Array<string> = []
        for (const key of ["fresh", "old"]) if (Option.isSome(yield* store.cacheGet(key))) kept.push(key)
        return kept
      }),
    ).pipe(Effect.withConfigProvider(provider))
  })

describe("worker settings from the environment", () => {
  it.live("purges cached pages older than WEBDATA_CACHE_TTL_HOURS (default 48)", () =>
    Effect.gen(function* () {
      expect(yield* survivors({})).toEqual(["fresh"])
      expect(yield* survivors({ WEBDATA_CACHE_TTL_HOURS: "72" })).toEqual(["fresh", "old"])
    }),
  )

  it.live("refuses a TTL of 0 with the variable's name", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(survivors({ WEBDATA_CACHE_TTL_HOURS: "0" }))
      expect(Exit.isFailure(exit) && String(exit.cause)).toMatch(/WEBDATA_CACHE_TTL_HOURS/)
    }),
  )

  it.effect("reads WEBDATA_SHUTDOWN_GRACE_MS and refuses a negative one with its name", () =>
    Effect.gen(function* () {
      const read = (value: string) =>
        Worker.optionsConfig.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["WEBDATA_SHUTDOWN_GRACE_MS", value]]))),
        )
      expect((yield* read("2500")).shutdownGraceMs).toBe(2500)
      expect(
        (yield* Worker.optionsConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))))
          .shutdownGraceMs,
      ).toBe(10_000)
      const exit = yield* Effect.exit(read("-1"))
      expect(Exit.isFailure(exit) && String(exit.cause)).toMatch(/WEBDATA_SHUTDOWN_GRACE_MS/)
    }),
  )
})
