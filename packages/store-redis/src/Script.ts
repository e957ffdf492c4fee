/**
 * The store's Lua scripts and how they run: each operation that touches more than one key is one script, and Redis
 * runs a script whole with no other command in between, which is what makes the operation atomic. A script is sent
 * by its SHA1 (EVALSHA) and, the first time a server sees it (or after a restart), as text (EVAL), which also caches
 * it there.
 */
import { createHash } from "node:crypto"
import { StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"
import { type Redis, ReplyError } from "ioredis"

export interface Script {
  readonly name: string
  readonly lua: string
  readonly sha: string
}

/** A script of the given Lua chunks (shared helpers first, the script's own body last). */
export const script = (name: string, ...chunks: ReadonlyArray<string>): Script => {
  const lua = chunks.join("\n")
  return { name, lua, sha: createHash("sha1").update(lua).digest("hex") }
}

/** A reply as Redis gives it back from Lua: text, integers, nil (Lua `false`) and arrays of these. */
export type Reply = string | number | null | ReadonlyArray<Reply>

export type Arg = string | number

/** A reply that should be an array (anything else reads as an empty one). */
export const asList = (reply: Reply): ReadonlyArray<Reply> => (Array.isArray(reply) ? reply : [])

/**
 * Whether a failure is Redis answering with an error (a script error, a wrong type) rather than Redis out of reach.
 * By class, not by `name`: redis-errors names its errors after their constructor, which a minifying bundler renames
 * (the Lambda bundle), and then a NOSCRIPT reply would go unrecognised and fail every script on a fresh server.
 */
const isReplyError = (error: unknown): boolean => error instanceof (ReplyError as typeof Error)

export const isNoScript = (error: unknown): boolean =>
  isReplyError(error) && (error as Error).message.startsWith("NOSCRIPT")

export const toStoreError =
  (what: string) =>
  (cause: unknown): StoreError =>
    new StoreError({
      reason: isReplyError(cause) ? "QueryFailed" : "Unavailable",
      message: `Redis ${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    })

/** Runs `script` with the store's prefix as `ARGV[1]` and `args` after it. */
export const run = (redis: Redis, prefix: string, target: Script, args: ReadonlyArray<Arg> = []) => {
  // Numbers go as JavaScript writes them, which is what the scripts compare lease ends with.
  const argv = [prefix, ...args.map(String)]
  return Effect.tryPromise({
    try: (): Promise<unknown> =>
      redis
        .evalsha(target.sha, 0, ...argv)
        .catch((error: unknown) => (isNoScript(error) ? redis.eval(target.lua, 0, ...argv) : Promise.reject(error))),
    catch: toStoreError(`script ${target.name}`),
  }) as Effect.Effect<Reply, StoreError>
}

/** Runs one plain command (`redis.hgetall(…)` and the like). */
export const command = <A>(what: string, send: () => Promise<A>): Effect.Effect<A, StoreError> =>
  Effect.tryPromise({ try: send, catch: toStoreError(what) })
