/**
 * The job store `WEBDATA_STORE` names: `sqlite:<path>` (the default, `sqlite:.webdata/webdata.db`), `memory:`,
 * `postgres://…` / `postgresql://…` or `redis://…` / `rediss://…`.
 *
 * Each durable store is a package of its own and an optional dependency of the server: it is imported only when
 * named, so a deployment needs only the driver it uses (a machine where better-sqlite3 does not build still runs on
 * Postgres or Redis), and a store whose package is missing fails at start with the command that installs it.
 */
import { type JobStore, MemoryJobStore, StoreError } from "@webdata/core/jobs"
import { Config, type ConfigError, Effect, Layer } from "effect"

export type StorePackage = "@webdata/store-sqlite" | "@webdata/store-postgres" | "@webdata/store-redis"

/** Loads a store package. Injectable so that a test can play a package that is not installed. */
export type ImportStore = (name: StorePackage) => Promise<unknown>

// Literal specifiers, so that bundlers and tsc see the packages; only the one named is ever evaluated.
const importers: Record<StorePackage, () => Promise<unknown>> = {
  "@webdata/store-sqlite": () => import("@webdata/store-sqlite"),
  "@webdata/store-postgres": () => import("@webdata/store-postgres"),
  "@webdata/store-redis": () => import("@webdata/store-redis"),
}

const importStore: ImportStore = (name) => importers[name]()

/** What the store packages' `layer` take (the packages are loaded by name, so their types are restated here). */
interface SqliteOptions {
  readonly filename: string
}
interface PostgresOptions {
  readonly url: string
  readonly schema: string
  readonly poolSize: number
}
interface RedisOptions {
  readonly url: string
  readonly prefix: string
}

/** What `WEBDATA_STORE` unset means for a server: a SQLite file under the working directory. */
export const DEFAULT_STORE = "sqlite:.webdata/webdata.db"

/** `WEBDATA_STORE`, else `fallback`. */
export const specOr = (fallback: string): Config.Config<string> =>
  Config.string("WEBDATA_STORE").pipe(Config.withDefault(fallback))

/** `WEBDATA_STORE`, with the server's default. */
export const spec: Config.Config<string> = specOr(DEFAULT_STORE)

/**
 * `value` as it may be shown in a message or a log: the user info of a URL (`user:password@`, or a lone token) and a
 * `password=` query parameter masked. Everything up to the last `@` counts as user info, since a password may hold
 * an unescaped `@`: a message then hides too much rather than too little.
 */
export const redact = (value: string): string =>
  value
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)(.*)@/i, (_, scheme: string, userInfo: string) => {
      const colon = userInfo.indexOf(":")
      return `${scheme}${colon >= 0 ? `${userInfo.slice(0, colon)}:***` : "***"}@`
    })
    .replace(/([?&](?:ssl)?password=)[^&#]*/gi, "$1***")

const decoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** The passwords of a URL `spec`, as written and decoded: a driver's error may quote either. */
const secretsOf = (spec: string): ReadonlyArray<string> => {
  if (!URL.canParse(spec)) return []
  const url = new URL(spec)
  return [url.password, url.searchParams.get("password") ?? ""]
    .filter((secret) => secret !== "")
    .flatMap((secret) => [secret, decoded(secret)])
}

/** The store's own errors (opening, connecting) with the URL's passwords masked, whatever they quote. */
const masked =
  (spec: string) =>
  (error: StoreError): StoreError =>
    new StoreError({
      reason: error.reason,
      message: secretsOf(spec).reduce((message, secret) => message.replaceAll(secret, "***"), error.message),
      ...(error.cause !== undefined ? { cause: error.cause } : {}),
    })

const unavailable = (message: string, cause?: unknown) =>
  new StoreError({ reason: "Unavailable", message, ...(cause !== undefined ? { cause } : {}) })

/** Node's error for an import of `name` itself not being installed (not for a module missing inside it). */
const isMissing = (error: unknown, name: StorePackage): boolean =>
  (error as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND" &&
  String((error as Error).message).includes(`'${name}'`)

const load = Effect.fn("StoreFromEnvironment.load")(function* (
  importer: ImportStore,
  name: StorePackage,
  spec: string,
) {
  return yield* Effect.tryPromise({
    try: () => importer(name),
    catch: (error) =>
      isMissing(error, name)
        ? unavailable(
            `WEBDATA_STORE=${redact(spec)} needs the package ${name}, which is not installed: npm install ${name}`,
            error,
          )
        : unavailable(`WEBDATA_STORE=${redact(spec)}: cannot load ${name}: ${(error as Error).message}`, error),
  })
})

/** The store `namespace.layer(options)` of the package `name`, imported when the layer is built. */
const storeOf = <Options>(
  importer: ImportStore,
  spec: string,
  name: StorePackage,
  namespace: string,
  options: Options,
): Layer.Layer<JobStore, StoreError> =>
  Layer.unwrapEffect(
    Effect.flatMap(load(importer, name, spec), (module) => {
      const store = (module as Record<string, { readonly layer?: unknown } | undefined>)[namespace]
      return typeof store?.layer === "function"
        ? Effect.succeed(
            Layer.mapError(
              (store.layer as (options: Options) => Layer.Layer<JobStore, StoreError>)(options),
              masked(spec),
            ),
          )
        : Effect.fail(
            unavailable(`${name} has no ${namespace}.layer: install the version that matches @webdata/server`),
          )
    }),
  )

const memory = Effect.map(
  // The memory store holds the scrape cache in the process: this bounds it (0: the engine turns the cache off).
  Config.number("WEBDATA_CACHE_MAX_MB").pipe(Config.withDefault(256)),
  (cacheMb) => MemoryJobStore.layer(cacheMb > 0 ? { cacheMaxBytes: Math.round(cacheMb * 1024 * 1024) } : {}),
)

const postgresSettings = Config.all({
  schema: Config.string("WEBDATA_POSTGRES_SCHEMA").pipe(Config.withDefault("webdata")),
  poolSize: Config.integer("WEBDATA_POSTGRES_POOL").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n: number) => n > 0 }),
    Config.withDefault(10),
  ),
})

const redisPrefix = Config.string("WEBDATA_REDIS_PREFIX").pipe(Config.withDefault("webdata:"))

/**
 * The store `WEBDATA_STORE` names, `fallback` when it is unset (settings from the environment: `WEBDATA_CACHE_MAX_MB` for `memory:`,
 * `WEBDATA_POSTGRES_SCHEMA` and `WEBDATA_POSTGRES_POOL`, `WEBDATA_REDIS_PREFIX`). Anything else, or a store whose
 * package is not installed, fails with a `StoreError` of one line that says what to do.
 */
export const layerConfig = (
  importer: ImportStore = importStore,
  fallback: string = DEFAULT_STORE,
): Layer.Layer<JobStore, StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.flatMap(
      specOr(fallback),
      (value): Effect.Effect<Layer.Layer<JobStore, StoreError>, StoreError | ConfigError.ConfigError> => {
        if (value === "memory:") return memory
        if (value.startsWith("sqlite:") && value.length > "sqlite:".length)
          return Effect.succeed(
            storeOf<SqliteOptions>(importer, value, "@webdata/store-sqlite", "SqliteJobStore", {
              filename: value.slice("sqlite:".length),
            }),
          )
        if (/^postgres(ql)?:\/\//.test(value))
          return Effect.map(postgresSettings, (settings) =>
            storeOf<PostgresOptions>(importer, value, "@webdata/store-postgres", "PostgresJobStore", {
              url: value,
              ...settings,
            }),
          )
        if (/^rediss?:\/\//.test(value))
          return Effect.map(redisPrefix, (prefix) =>
            storeOf<RedisOptions>(importer, value, "@webdata/store-redis", "RedisJobStore", { url: value, prefix }),
          )
        return Effect.fail(
          unavailable(
            `Unsupported WEBDATA_STORE "${redact(value)}": expected sqlite:<path>, memory:, postgres://… (or postgresql://…) or redis://… (or rediss://…)`,
          ),
        )
      },
    ),
  )
