/** The store `WEBDATA_STORE` names: which package is loaded (only that one), and the one-line errors at start. */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { JobStore, MemoryJobStore, StoreError } from "@webdata/core/jobs"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { afterAll, describe, expect } from "vitest"
import { newJob, task } from "../../core/test/jobs/conformance.js"
import { StoreFromEnvironment } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-server-store-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Records the packages asked for, and answers like Node when `missing` is not installed. */
const importerWith = (modules: Partial<Record<StoreFromEnvironment.StorePackage, unknown>>) => {
  const asked: Array<StoreFromEnvironment.StorePackage> = []
  const importer: StoreFromEnvironment.ImportStore = async (name) => {
    asked.push(name)
    if (name in modules) return modules[name]
    throw Object.assign(new Error(`Cannot find package '${name}' imported from /srv/webdata/server/dist/index.js`), {
      code: "ERR_MODULE_NOT_FOUND",
    })
  }
  return { asked, importer }
}

/** A store package whose `layer` records its options and opens the memory store. */
const fakePackage = (namespace: string) => {
  const options: Array<unknown> = []
  const layer = (given: unknown) => {
    options.push(given)
    return MemoryJobStore.layer()
  }
  return { options, module: { [namespace]: { layer } } }
}

const withEnvironment = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** Creates a job in the store the environment names. */
const createJob = (env: Record<string, string>, importer?: StoreFromEnvironment.ImportStore) =>
  Effect.flatMap(JobStore, (store) => store.createJob(newJob(), [task("/")])).pipe(
    Effect.provide(StoreFromEnvironment.layerConfig(importer)),
    withEnvironment(env),
  )

const startError = (env: Record<string, string>, importer?: StoreFromEnvironment.ImportStore) =>
  Effect.flip(createJob(env, importer))

const PASSWORD = "s3cr@t-Passw0rd"

describe("StoreFromEnvironment.layerConfig", () => {
  it.effect("memory: is the in-memory store, with no store package loaded", () =>
    Effect.gen(function* () {
      const { asked, importer } = importerWith({})
      const job = yield* createJob({ WEBDATA_STORE: "memory:" }, importer)
      expect(job.status).toBe("scraping")
      expect(asked).toEqual([])
    }),
  )

  it.effect("sqlite:<path> opens that file through @webdata/store-sqlite, which keeps the jobs", () =>
    Effect.gen(function* () {
      const filename = join(dir, "nested", "webdata.db")
      const env = { WEBDATA_STORE: `sqlite:${filename}` }
      const created = yield* createJob(env)
      expect(existsSync(filename)).toBe(true)
      const reopened = yield* Effect.flatMap(JobStore, (store) => store.getJob(created.id)).pipe(
        Effect.provide(StoreFromEnvironment.layerConfig()),
        withEnvironment(env),
      )
      expect(Option.isSome(reopened)).toBe(true)
    }),
  )

  it.effect("the default is sqlite:.webdata/webdata.db, loaded only when the layer is built", () =>
    Effect.gen(function* () {
      const { asked, importer } = importerWith({})
      const layer = StoreFromEnvironment.layerConfig(importer)
      expect(asked).toEqual([])
      const error = yield* Effect.flip(Effect.provide(JobStore, layer).pipe(withEnvironment({})))
      expect(asked).toEqual(["@webdata/store-sqlite"])
      expect(error.message).toBe(
        "WEBDATA_STORE=sqlite:.webdata/webdata.db needs the package @webdata/store-sqlite, which is not installed: npm install @webdata/store-sqlite",
      )
    }),
  )

  it.effect("anything else fails with one line listing what is accepted, credentials masked", () =>
    Effect.gen(function* () {
      for (const bad of [
        "sqlite:",
        "memory",
        "nonsense",
        "POSTGRES://db/x",
        `mysql://app:${PASSWORD}@db:3306/webdata`,
      ]) {
        const error = yield* startError({ WEBDATA_STORE: bad })
        expect(error).toBeInstanceOf(StoreError)
        expect((error as StoreError).reason).toBe("Unavailable")
        expect(error.message).toContain("expected sqlite:<path>, memory:, postgres://")
        expect(error.message).toContain("redis://")
        expect(error.message).not.toContain("\n")
        expect(error.message).not.toContain(PASSWORD)
      }
      const error = yield* startError({ WEBDATA_STORE: `mysql://app:${PASSWORD}@db:3306/webdata` })
      expect(error.message).toContain(`"mysql://app:***@db:3306/webdata"`)
    }),
  )

  it.effect("a named store whose package is not installed says which one to install, without the password", () =>
    Effect.gen(function* () {
      const cases = [
        [`postgres://webdata:${PASSWORD}@db.internal:5432/webdata`, "@webdata/store-postgres"],
        [`postgresql://webdata:${PASSWORD}@db.internal/webdata?sslmode=require`, "@webdata/store-postgres"],
        [`rediss://default:${PASSWORD}@cache.internal:6380/0`, "@webdata/store-redis"],
        [`redis://:${PASSWORD}@127.0.0.1:6379`, "@webdata/store-redis"],
      ] as const
      for (const [spec, name] of cases) {
        const { asked, importer } = importerWith({})
        const error = yield* startError({ WEBDATA_STORE: spec }, importer)
        expect(asked).toEqual([name])
        expect(error.message).toBe(
          `WEBDATA_STORE=${StoreFromEnvironment.redact(spec)} needs the package ${name}, which is not installed: npm install ${name}`,
        )
        expect(error.message).not.toContain(PASSWORD)
      }
    }),
  )

  it.effect("a package that is installed but cannot load is not called missing", () =>
    Effect.gen(function* () {
      const importer: StoreFromEnvironment.ImportStore = () =>
        Promise.reject(
          Object.assign(
            new Error("Cannot find package 'pg' imported from /srv/node_modules/@webdata/store-postgres/x.js"),
            {
              code: "ERR_MODULE_NOT_FOUND",
            },
          ),
        )
      const error = yield* startError({ WEBDATA_STORE: `postgres://app:${PASSWORD}@db/webdata` }, importer)
      expect(error.message).toBe(
        "WEBDATA_STORE=postgres://app:***@db/webdata: cannot load @webdata/store-postgres: Cannot find package 'pg' imported from /srv/node_modules/@webdata/store-postgres/x.js",
      )
    }),
  )

  it.effect("a package without the store's layer fails with one line instead of a crash", () =>
    Effect.gen(function* () {
      const { importer } = importerWith({ "@webdata/store-redis": {} })
      const error = yield* startError({ WEBDATA_STORE: "redis://127.0.0.1:6379" }, importer)
      expect(error.message).toBe(
        "@webdata/store-redis has no RedisJobStore.layer: install the version that matches @webdata/server",
      )
    }),
  )

  it.effect("the store's own errors come out with the URL's password masked", () =>
    Effect.gen(function* () {
      const url = `postgres://webdata:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/webdata`
      const layer = (options: { url: string }) =>
        Layer.fail(
          new StoreError({
            reason: "Unavailable",
            message: `Cannot connect to ${options.url} (password ${PASSWORD}): connection refused`,
          }),
        )
      const { importer } = importerWith({ "@webdata/store-postgres": { PostgresJobStore: { layer } } })
      const error = yield* startError({ WEBDATA_STORE: url }, importer)
      expect(error.message).toBe(
        "Cannot connect to postgres://webdata:***@127.0.0.1:1/webdata (password ***): connection refused",
      )
    }),
  )

  it.effect("postgres:// gets the URL, WEBDATA_POSTGRES_SCHEMA and WEBDATA_POSTGRES_POOL", () =>
    Effect.gen(function* () {
      const url = `postgres://webdata:${PASSWORD}@db.internal:5432/webdata`
      const postgres = fakePackage("PostgresJobStore")
      const { importer } = importerWith({ "@webdata/store-postgres": postgres.module })
      yield* createJob({ WEBDATA_STORE: url }, importer)
      yield* createJob(
        { WEBDATA_STORE: url, WEBDATA_POSTGRES_SCHEMA: "tenant_a", WEBDATA_POSTGRES_POOL: "25" },
        importer,
      )
      expect(postgres.options).toEqual([
        { url, schema: "webdata", poolSize: 10 },
        { url, schema: "tenant_a", poolSize: 25 },
      ])
      for (const pool of ["0", "many"]) {
        const error = yield* startError({ WEBDATA_STORE: url, WEBDATA_POSTGRES_POOL: pool }, importer)
        expect(String(error)).toContain("Invalid data at WEBDATA_POSTGRES_POOL")
      }
    }),
  )

  it.effect("redis:// and rediss:// get the URL and WEBDATA_REDIS_PREFIX", () =>
    Effect.gen(function* () {
      const redis = fakePackage("RedisJobStore")
      const { importer } = importerWith({ "@webdata/store-redis": redis.module })
      yield* createJob({ WEBDATA_STORE: "redis://127.0.0.1:6379/2" }, importer)
      yield* createJob({ WEBDATA_STORE: "rediss://cache:6380", WEBDATA_REDIS_PREFIX: "crawls:" }, importer)
      expect(redis.options).toEqual([
        { url: "redis://127.0.0.1:6379/2", prefix: "webdata:" },
        { url: "rediss://cache:6380", prefix: "crawls:" },
      ])
    }),
  )
})

describe("StoreFromEnvironment.redact", () => {
  it("masks the user info of a URL and a password parameter, and leaves the rest", () => {
    expect(StoreFromEnvironment.redact("postgres://app:pw@db:5432/webdata")).toBe("postgres://app:***@db:5432/webdata")
    expect(StoreFromEnvironment.redact("redis://:pw@127.0.0.1:6379")).toBe("redis://:***@127.0.0.1:6379")
    // A lone user info may be a token.
    expect(StoreFromEnvironment.redact("rediss://token@cache:6380")).toBe("rediss://***@cache:6380")
    // An unescaped @ in the password hides it all the same.
    expect(StoreFromEnvironment.redact("postgres://app:p@ss@db/webdata")).toBe("postgres://app:***@db/webdata")
    expect(StoreFromEnvironment.redact("postgres://db/webdata?user=app&password=pw&sslmode=require")).toBe(
      "postgres://db/webdata?user=app&password=***&sslmode=require",
    )
    expect(StoreFromEnvironment.redact("sqlite:/var/lib/webdata/webdata.db")).toBe("sqlite:/var/lib/webdata/webdata.db")
  })
})
