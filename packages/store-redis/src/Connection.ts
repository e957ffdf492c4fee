/**
 * The store's two connections to Redis: one for commands and scripts, one for pub/sub (a subscribed connection
 * takes no other command). Both are opened when the layer starts, which fails fast when Redis is out of reach, and
 * closed when its scope closes.
 */
import { StoreError } from "@webdata/core/jobs"
import { Duration, Effect, Runtime, type Scope } from "effect"
import { Redis, type RedisOptions } from "ioredis"

export interface RedisClients {
  readonly commands: Redis
  readonly subscriber: Redis
}

export interface ConnectionOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://…` (TLS). */
  readonly url: string
  /** How long the start waits for Redis before failing. */
  readonly connectTimeoutMs: number
}

/** Where Redis is, for messages: scheme, host, port and database, never the credentials. */
export const describe = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return "Redis (the URL does not parse)"
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || "6379"}${parsed.pathname.length > 1 ? parsed.pathname : ""}`
}

const clientOptions = (connectTimeoutMs: number): RedisOptions => ({
  lazyConnect: true,
  connectTimeout: connectTimeoutMs,
  // Once running, a lost connection is retried for good, a little slower each time up to every 2 s.
  retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  // A command waits through two reconnection attempts (about a third of a second), then fails as Unavailable: the
  // default of 20 would hold every request for half a minute while Redis is down.
  maxRetriesPerRequest: 2,
  // A command whose reply was lost with the connection fails rather than being sent again: the script may have run,
  // and running it twice is not the same (a completed task would answer `recorded: false` to its own holder).
  autoResendUnfulfilledCommands: false,
})

const unavailable = (where: string, cause: unknown) =>
  new StoreError({
    reason: "Unavailable",
    message: `Cannot reach Redis at ${where}: ${cause instanceof Error ? cause.message : String(cause)}`,
    cause,
  })

/** Closes a connection: QUIT, so that what is in flight gets its reply, or a hard close when that hangs. */
const close = (client: Redis) =>
  Effect.tryPromise(() => client.quit()).pipe(
    Effect.timeout(Duration.seconds(1)),
    Effect.ignore,
    Effect.ensuring(Effect.sync(() => client.disconnect())),
  )

/**
 * Opens `client`, within `connectTimeoutMs`. Connection errors are logged once per outage after it was up (ioredis
 * reconnects by itself); one at the start fails it, with its cause (ioredis itself only says the connection closed).
 */
const open = (client: Redis, role: string, where: string, connectTimeoutMs: number) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    let up = false
    let reported = false
    let startError: Error | undefined
    client.on("ready", () => {
      up = true
      reported = false
    })
    client.on("error", (error: Error) => {
      if (!up) startError = error
      if (!up || reported) return
      reported = true
      Runtime.runFork(runtime)(Effect.logWarning(`Redis ${role} connection to ${where} lost: ${error.message}`))
    })
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => client.connect(),
        catch: (cause) => unavailable(where, startError ?? cause),
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(connectTimeoutMs),
          onTimeout: () => unavailable(where, `no answer within ${connectTimeoutMs} ms`),
        }),
        // Stops the reconnection attempts ioredis would go on with after a failed start.
        Effect.tapError(() => Effect.sync(() => client.disconnect())),
        Effect.as(client),
      ),
      close,
    )
  })

/** The value of `field` in an INFO reply. */
const infoField = (info: string, field: string): string | undefined =>
  new RegExp(`^${field}:(.*)$`, "m").exec(info)?.[1]?.trim()

/**
 * Fails the start on a server the scripts cannot run on: before 7.0 (they use `PEXPIREAT … NX`), or Redis Cluster
 * (they compute keys as they go, which a cluster cannot route).
 */
const checkServer = (redis: Redis, where: string) =>
  Effect.gen(function* () {
    const info = yield* Effect.tryPromise({
      try: () => redis.info("server", "cluster"),
      catch: (cause) => unavailable(where, cause),
    })
    const version = infoField(info, "redis_version") ?? "unknown"
    const refuse = (why: string) =>
      new StoreError({ reason: "Unavailable", message: `Redis at ${where} cannot hold the job store: ${why}` })
    if (!(Number.parseInt(version, 10) >= 7)) return yield* refuse(`version ${version}, and 7.0 or later is needed`)
    if (infoField(info, "cluster_enabled") === "1") return yield* refuse("Redis Cluster is not supported")
  })

/**
 * Warns when Redis may evict keys: eviction would drop queue state without a word. Managed services that hide
 * CONFIG get a warning that the policy could not be checked.
 */
const checkEvictionPolicy = (redis: Redis, where: string) =>
  Effect.tryPromise(() => redis.config("GET", "maxmemory-policy") as Promise<ReadonlyArray<string>>).pipe(
    Effect.flatMap((reply) =>
      reply[1] === "noeviction"
        ? Effect.void
        : Effect.logWarning(
            `Redis at ${where} has maxmemory-policy ${reply[1]}: set it to noeviction, or Redis may drop jobs and ` +
              "tasks when it runs out of memory",
          ),
    ),
    Effect.catchAll((error) =>
      Effect.logWarning(`Could not read the maxmemory-policy of Redis at ${where} (it must be noeviction)`, error),
    ),
  )

export const acquire = (options: ConnectionOptions): Effect.Effect<RedisClients, StoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const where = describe(options.url)
    const settings = clientOptions(options.connectTimeoutMs)
    const commands = yield* open(new Redis(options.url, settings), "command", where, options.connectTimeoutMs)
    const subscriber = yield* open(new Redis(options.url, settings), "subscriber", where, options.connectTimeoutMs)
    yield* checkServer(commands, where)
    yield* checkEvictionPolicy(commands, where)
    return { commands, subscriber }
  })
