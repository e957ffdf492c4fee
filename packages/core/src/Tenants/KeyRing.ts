/**
 * The keys the server accepts: those of the environment and the keys file (fixed at start) and those the admin API
 * made (records of kind `api-key` in the job store, id = the key's digest). Each process looks a store key up at
 * most every `STORE_KEY_TTL` per key, so a revocation made by any process holds everywhere within that time.
 */
import { Cache, Context, Duration, Effect, Either, Exit, Layer, Option, Redacted, Schema } from "effect"
import { RequestError } from "../Errors.js"
import { isOpen, ServerConfig } from "../Http/ServerConfig.js"
import { JobStore, type StoredRecord, type StoreError } from "../Jobs/JobStore.js"
import { digestOf, flagsOf, type KeyEntry, type KeyFlag, newKey, ownerOfDigest, sameDigest } from "./ApiKey.js"
import { formatLimits, type Limits, limitsOf, NO_LIMITS, overlay } from "./Limits.js"

export const KEY_RECORD = "api-key"
/** How long a process trusts what it read of a store key (and of an unknown one). */
export const STORE_KEY_TTL = Duration.seconds(2)

/** A key as the admin API shows it: never the key itself. */
export interface KeyView {
  readonly id: string
  readonly name: string
  readonly source: KeyEntry["source"]
  readonly limits: string
  readonly flags: ReadonlyArray<KeyFlag>
  readonly createdAt: string | null
  readonly revokedAt: string | null
}

export interface NewKeyRequest {
  readonly name: string
  readonly limits?: unknown
  readonly flags?: unknown
}

export interface KeyRingShape {
  /** No key is configured: every caller is let in, as the owner `null`. */
  readonly open: boolean
  /** The key `token` stands for, none when unknown or revoked. */
  readonly authenticate: (token: string) => Effect.Effect<Option.Option<KeyEntry>, StoreError>
  /**
   * `authenticate` for the keys the configuration fixes (`WEBDATA_API_KEYS`, the keys file), which need no store
   * read; undefined for any other token, known to the store or not.
   */
  readonly fixedKey: (token: string) => KeyEntry | undefined
  /** Whether `token` is the admin key (constant time). */
  readonly isAdmin: (token: string) => boolean
  /** A key's limits with the server's defaults filled in. */
  readonly limitsOf: (entry: KeyEntry | undefined) => Limits
  /** Makes a key (kept in the store); answers it once, with its view. */
  readonly create: (
    request: NewKeyRequest,
  ) => Effect.Effect<{ readonly key: string; readonly view: KeyView }, RequestError | StoreError>
  readonly list: (offset: number, limit: number) => Effect.Effect<ReadonlyArray<KeyView>, StoreError>
  /** Revokes a store key; environment and file keys are refused (409), unknown ids are 404. */
  readonly revoke: (id: string) => Effect.Effect<KeyView, RequestError | StoreError>
}

export class KeyRing extends Context.Tag("@webdata/core/KeyRing")<KeyRing, KeyRingShape>() {}

const StoredKey = Schema.Struct({
  name: Schema.String,
  limits: Schema.String,
  flags: Schema.Array(Schema.String),
  revokedAt: Schema.optional(Schema.Number),
})
type StoredKey = typeof StoredKey.Type
const decodeStoredKey = Schema.decodeUnknownOption(StoredKey)

const iso = (epoch: number | undefined) => (epoch === undefined ? null : new Date(epoch).toISOString())

const storedEntry = (record: StoredRecord, stored: StoredKey): KeyEntry => ({
  digest: record.id,
  owner: ownerOfDigest(record.id),
  name: stored.name,
  // Written by `create`, which refuses limits that do not parse.
  limits: Either.getOrElse(limitsOf(stored.limits), () => NO_LIMITS),
  flags: stored.flags as ReadonlyArray<KeyFlag>,
  source: "admin",
})

const storedView = (record: StoredRecord, stored: StoredKey): KeyView => ({
  id: record.id,
  name: stored.name,
  source: "admin",
  limits: stored.limits,
  flags: stored.flags as ReadonlyArray<KeyFlag>,
  createdAt: iso(record.createdAt),
  revokedAt: iso(stored.revokedAt),
})

const staticView = (entry: KeyEntry): KeyView => ({
  id: entry.digest,
  name: entry.name,
  source: entry.source,
  limits: formatLimits(entry.limits),
  flags: entry.flags,
  createdAt: null,
  revokedAt: null,
})

const badRequest = (message: string) => new RequestError({ reason: "Validation", message })

export const layer: Layer.Layer<KeyRing, never, ServerConfig | JobStore> = Layer.scoped(
  KeyRing,
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const store = yield* JobStore
    const fixed = new Map(config.keys.map((entry) => [entry.digest, entry]))
    const adminDigest = Option.map(config.adminKey, (key) => digestOf(Redacted.value(key)))
    // Keys in the store come from the admin API or from registration; without either, none is looked up.
    const storeKeys = Option.isSome(adminDigest) || config.issuers.length > 0

    const readStored = (digest: string) =>
      Effect.map(store.getRecord(KEY_RECORD, digest), (record) =>
        Option.flatMap(record, (found) =>
          Option.flatMap(decodeStoredKey(found.value), (stored) =>
            stored.revokedAt === undefined ? Option.some(storedEntry(found, stored)) : Option.none(),
          ),
        ),
      )
    const stored = yield* Cache.makeWith({
      capacity: 10_000,
      lookup: readStored,
      // A failed read is not remembered: the next request asks the store again.
      timeToLive: (exit) => (Exit.isSuccess(exit) ? STORE_KEY_TTL : Duration.zero),
    })

    const fixedOf = (digest: string) => {
      const entry = fixed.get(digest)
      return entry !== undefined && sameDigest(entry.digest, digest) ? entry : undefined
    }

    const authenticate = (token: string) => {
      const digest = digestOf(token)
      const entry = fixedOf(digest)
      if (entry !== undefined) return Effect.succeed(Option.some(entry))
      return storeKeys ? stored.get(digest) : Effect.succeed(Option.none<KeyEntry>())
    }

    const getStored = (id: string) =>
      Effect.map(store.getRecord(KEY_RECORD, id), (record) =>
        Option.flatMap(record, (found) => Option.map(decodeStoredKey(found.value), (value) => ({ found, value }))),
      )

    return {
      open: isOpen(config),
      authenticate,
      fixedKey: (token) => fixedOf(digestOf(token)),
      isAdmin: (token) => Option.isSome(adminDigest) && sameDigest(adminDigest.value, digestOf(token)),
      limitsOf: (entry) => (entry === undefined ? config.limits : overlay(config.limits, entry.limits)),
      create: Effect.fn("KeyRing.create")(function* (request: NewKeyRequest) {
        const name = request.name.trim()
        if (name === "" || name.length > 100) return yield* badRequest("name must be 1 to 100 characters")
        const limits = limitsOf(request.limits)
        if (limits._tag === "Left") return yield* badRequest(`limits: ${limits.left}`)
        const flags = flagsOf(request.flags)
        if (flags._tag === "Left") return yield* badRequest(flags.left)
        const key = newKey()
        const value: StoredKey = { name, limits: formatLimits(limits.right), flags: [...flags.right] }
        const record = yield* store.putRecord({
          kind: KEY_RECORD,
          id: digestOf(key),
          owner: ownerOfDigest(digestOf(key)),
          label: name,
          value,
          now: Date.now(),
          expectedVersion: 0,
        })
        if (Option.isNone(record)) return yield* Effect.die(new Error("A new key's digest is already stored"))
        return { key, view: storedView(record.value, value) }
      }),
      list: (offset, limit) =>
        Effect.map(
          store.listRecords({ kind: KEY_RECORD, offset: Math.max(0, offset - fixed.size), limit }),
          (records) =>
            [
              ...[...fixed.values()].slice(offset, offset + limit).map(staticView),
              ...records.flatMap((record) =>
                Option.match(decodeStoredKey(record.value), {
                  onNone: () => [],
                  onSome: (value) => [storedView(record, value)],
                }),
              ),
            ].slice(0, limit),
        ),
      revoke: Effect.fn("KeyRing.revoke")(function* (id: string) {
        const entry = fixed.get(id)
        if (entry !== undefined)
          return yield* new RequestError({
            reason: "Conflict",
            message: `The key ${entry.name} comes from ${entry.source === "file" ? "WEBDATA_KEYS_FILE" : "WEBDATA_API_KEYS"}: remove it there and restart`,
          })
        const current = yield* getStored(id)
        if (Option.isNone(current)) return yield* new RequestError({ reason: "NotFound", message: "Key not found" })
        const { found, value } = current.value
        if (value.revokedAt !== undefined) return storedView(found, value)
        const revoked: StoredKey = { ...value, revokedAt: Date.now() }
        const written = yield* store.putRecord({
          kind: KEY_RECORD,
          id,
          owner: found.owner,
          label: value.name,
          value: revoked,
          now: Date.now(),
          expectedVersion: found.version,
        })
        yield* stored.invalidate(id)
        // A concurrent revocation won the write: the key is revoked either way.
        return storedView(
          Option.getOrElse(written, () => found),
          revoked,
        )
      }),
    }
  }),
)
