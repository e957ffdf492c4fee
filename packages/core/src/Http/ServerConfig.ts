/** Settings of the HTTP API (not of the engine): who may call it, within which limits, and how big an upload may be. */
import { readFileSync } from "node:fs"
import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { environmentKeys, type KeyEntry, parseKeysFile } from "../Tenants/ApiKey.js"
import { DEFAULT_KEYLESS_LIMITS, DEFAULT_REGISTERED_KEY_LIMITS } from "../Tenants/Defaults.js"
import { type Limits, NO_LIMITS, parseLimits } from "../Tenants/Limits.js"

export interface ServerConfigShape {
  /** Keys of the environment and the keys file. With none, no admin key and no issuers, the server is open. */
  readonly keys: ReadonlyArray<KeyEntry>
  /** The admin API's key (`/v2/admin/keys`); none: no admin API, and no keys in the store. */
  readonly adminKey: Option.Option<Redacted.Redacted<string>>
  /** Every key's limits unless its own say otherwise (`WEBDATA_RATE_LIMITS`). */
  readonly limits: Limits
  /** The largest `/v2/parse` upload in bytes (413 past it). */
  readonly maxUploadBytes: number
  /**
   * The keyless tier (`WEBDATA_KEYLESS=1`): scrape, search and parse without a key, each client address its own
   * owner within these limits (`WEBDATA_KEYLESS_LIMITS`). None: off.
   */
  readonly keyless: Option.Option<Limits>
  /** Issuers whose signed identity assertions `POST /v2/keys/register` accepts (`WEBDATA_KEY_ISSUERS`); none: off. */
  readonly issuers: ReadonlyArray<KeyIssuer>
  /** The limits of keys `POST /v2/keys/register` issues (`WEBDATA_REGISTERED_KEY_LIMITS`). */
  readonly registeredLimits: Limits
}

/** An identity provider: assertions are JWTs it signed with a key of its JWKS, for `audience` when given. */
export interface KeyIssuer {
  readonly issuer: string
  readonly jwksUrl: string
  readonly audience?: string | undefined
}

const defaultLimits = (text: string) => Either.getOrThrow(parseLimits(text))

/** Firecrawl's limit for parse uploads. */
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024

export class ServerConfig extends Context.Tag("@webdata/core/ServerConfig")<ServerConfig, ServerConfigShape>() {}

/** Whether anyone may call the API without a key. */
export const isOpen = (config: ServerConfigShape): boolean =>
  config.keys.length === 0 && Option.isNone(config.adminKey) && config.issuers.length === 0

export interface ServerConfigOptions {
  /** Plain keys, named `key-1`, `key-2`, ... */
  readonly apiKeys?: ReadonlyArray<string>
  /** Keys with names, limits and flags (see `Tenants/ApiKey.ts`). */
  readonly keys?: ReadonlyArray<KeyEntry>
  readonly adminKey?: string
  readonly limits?: Limits
  readonly maxUploadBytes?: number
  /** Turns the keyless tier on, with these limits per client address. */
  readonly keyless?: Limits
  readonly issuers?: ReadonlyArray<KeyIssuer>
  readonly registeredLimits?: Limits
}

export const make = (options: ServerConfigOptions = {}): ServerConfigShape => ({
  keys: [...environmentKeys((options.apiKeys ?? []).join(",")), ...(options.keys ?? [])],
  adminKey: Option.map(Option.fromNullable(options.adminKey || undefined), Redacted.make),
  limits: options.limits ?? NO_LIMITS,
  maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
  keyless: Option.fromNullable(options.keyless),
  issuers: options.issuers ?? [],
  registeredLimits: options.registeredLimits ?? defaultLimits(DEFAULT_REGISTERED_KEY_LIMITS),
})

export const layer = (options: ServerConfigOptions = {}): Layer.Layer<ServerConfig> =>
  Layer.succeed(ServerConfig, make(options))

const invalid = (name: string, message: string) => ConfigError.InvalidData([name], `${name}: ${message}`)

/** A keys file read and checked now, so that a mistake stops the server at start. */
const keysFile = Config.string("WEBDATA_KEYS_FILE").pipe(
  Config.option,
  Config.mapOrFail((path) => {
    if (Option.isNone(path) || path.value.trim() === "") return Either.right([])
    let text: string
    try {
      text = readFileSync(path.value.trim(), "utf8")
    } catch (error) {
      return Either.left(invalid("WEBDATA_KEYS_FILE", `cannot read ${path.value}: ${(error as Error).message}`))
    }
    return Either.mapLeft(parseKeysFile(text), (message) => invalid("WEBDATA_KEYS_FILE", `${path.value}: ${message}`))
  }),
)

const limitsVariable = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((text) => Either.mapLeft(parseLimits(text), (message) => invalid(name, message))),
  )

const KeyIssuers = Schema.Array(
  Schema.Struct({ issuer: Schema.String, jwksUrl: Schema.String, audience: Schema.optional(Schema.String) }),
)
const decodeIssuers = Schema.decodeUnknownEither(Schema.parseJson(KeyIssuers))

/** `WEBDATA_KEY_ISSUERS`: a JSON list of `{ issuer, jwksUrl, audience? }`, each JWKS URL an http(s) URL. */
const keyIssuers = Config.string("WEBDATA_KEY_ISSUERS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    if (text.trim() === "") return Either.right([])
    const decoded = decodeIssuers(text)
    if (Either.isLeft(decoded))
      return Either.left(invalid("WEBDATA_KEY_ISSUERS", 'expected JSON such as [{"issuer":"…","jwksUrl":"https://…"}]'))
    const bad = decoded.right.find((entry) => !/^https?:\/\//.test(entry.jwksUrl))
    return bad === undefined
      ? Either.right(decoded.right)
      : Either.left(invalid("WEBDATA_KEY_ISSUERS", `${bad.issuer}: jwksUrl must be an http(s) URL`))
  }),
)

/**
 * `WEBDATA_API_KEYS` (comma-separated), `WEBDATA_KEYS_FILE`, `WEBDATA_ADMIN_KEY`, `WEBDATA_RATE_LIMITS` and
 * `WEBDATA_MAX_UPLOAD_BYTES`; warns when the server runs open.
 */
export const layerConfig: Layer.Layer<ServerConfig> = Layer.effect(
  ServerConfig,
  Effect.gen(function* () {
    const plain = environmentKeys(yield* Config.string("WEBDATA_API_KEYS").pipe(Config.withDefault("")))
    const fromFile = yield* keysFile
    const adminKey = yield* Config.redacted("WEBDATA_ADMIN_KEY").pipe(
      Config.option,
      Config.map(Option.filter((key) => Redacted.value(key).trim() !== "")),
    )
    if (Option.isSome(adminKey) && Redacted.value(adminKey.value).trim().length < 16)
      return yield* Effect.fail(invalid("WEBDATA_ADMIN_KEY", "use at least 16 characters"))
    const config: ServerConfigShape = {
      keys: [...plain, ...fromFile],
      adminKey,
      limits: yield* limitsVariable("WEBDATA_RATE_LIMITS", ""),
      maxUploadBytes: yield* Config.integer("WEBDATA_MAX_UPLOAD_BYTES").pipe(
        Config.withDefault(DEFAULT_MAX_UPLOAD_BYTES),
        Config.validate({ message: "WEBDATA_MAX_UPLOAD_BYTES must be positive", validation: (n) => n > 0 }),
      ),
      keyless: (yield* Config.boolean("WEBDATA_KEYLESS").pipe(Config.withDefault(false)))
        ? Option.some(yield* limitsVariable("WEBDATA_KEYLESS_LIMITS", DEFAULT_KEYLESS_LIMITS))
        : Option.none(),
      issuers: yield* keyIssuers,
      registeredLimits: yield* limitsVariable("WEBDATA_REGISTERED_KEY_LIMITS", DEFAULT_REGISTERED_KEY_LIMITS),
    }
    if (isOpen(config))
      yield* Effect.logWarning("WEBDATA_API_KEYS is not set: the API is open to anyone who can reach it.")
    return config
  }).pipe(Effect.orDie),
)
