/**
 * Bearer-key authentication and the caller's limits: one middleware for every protected group, the same key check for
 * the WebSocket, and the admin key's middleware for key management.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer, Option, Redacted } from "effect"
import { digestOf, ownerOfDigest } from "../Tenants/ApiKey.js"
import { endpointClassOf } from "../Tenants/EndpointClass.js"
import { KeyRing } from "../Tenants/KeyRing.js"
import type { EndpointClass, Limits } from "../Tenants/Limits.js"
import { admitsUncounted, type QuotaExceeded, Quotas } from "../Tenants/Quotas.js"
import { AdminAuthorization, Authorization, type CallerShape, Unauthorized } from "./Api.js"
import { ClientAddress } from "./ClientAddress.js"
import { ServerConfig } from "./ServerConfig.js"

const unauthorized = (error: string) => new Unauthorized({ success: false, code: "UNAUTHORIZED", error })

/** The caller `token` stands for (anyone, as owner `null`, on an open server). A store failure is a defect. */
export const identify = (token: string): Effect.Effect<CallerShape, Unauthorized, KeyRing> =>
  Effect.flatMap(KeyRing, (keys): Effect.Effect<CallerShape, Unauthorized> => {
    if (keys.open) return Effect.succeed({ owner: null, key: undefined })
    const key = token.trim()
    if (key === "") return Effect.fail(unauthorized("Unauthorized: missing API key (Authorization: Bearer <key>)"))
    return keys.authenticate(key).pipe(
      Effect.orDie,
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.fail(unauthorized("Unauthorized: Invalid token")),
          onSome: (entry) => Effect.succeed({ owner: entry.owner, key: entry }),
        }),
      ),
    )
  })

/** A key sent without its scheme (`Authorization: <key>`) is told so, instead of being called invalid. */
const wrongScheme = (authorization: string | undefined) => {
  const header = authorization?.trim() ?? ""
  return header !== "" && !hasBearerScheme(header)
    ? Effect.fail(unauthorized("Unauthorized: send the key as `Authorization: Bearer <key>`"))
    : Effect.void
}

const hasBearerScheme = (authorization: string | undefined) => /^\s*bearer\s/i.test(authorization ?? "")

/** What the keyless tier serves: one page or one query at a time, never a job. */
const KEYLESS_CLASSES: ReadonlySet<EndpointClass> = new Set(["scrape", "search", "parse"])

/**
 * A request without a key on the keyless tier: its client address (hashed) is its owner, with the tier's limits.
 * Without an address from the host there is nothing to limit by, so the request needs a key after all.
 */
const keylessCaller = (limits: Limits) =>
  Effect.flatMap(Effect.serviceOption(ClientAddress), (address) =>
    Option.match(address, {
      onNone: () => Effect.fail(unauthorized("Unauthorized: missing API key (Authorization: Bearer <key>)")),
      onSome: (ip): Effect.Effect<CallerShape> => {
        const digest = digestOf(`keyless:${ip}`)
        const owner = `keyless-${ownerOfDigest(digest).slice(0, 24)}`
        return Effect.succeed({ owner, key: { digest, owner, name: "keyless", limits, flags: [], source: "keyless" } })
      },
    }),
  )

/** What authorizing a request needs of it. */
export interface AuthorizedRequest {
  readonly method: string
  readonly pathname: string
  /** The `Authorization` header as sent. */
  readonly authorization: string | undefined
}

export interface Authorize {
  /** The caller of `request` with the bearer `token` it sent, admitted by its limits; else why not. */
  readonly authorize: (
    request: AuthorizedRequest,
    token: string,
  ) => Effect.Effect<CallerShape, Unauthorized | QuotaExceeded>
  /**
   * `authorize`'s caller when finding it takes no store and no wait (an open server, or a fixed key sent as a bearer
   * token, with no limit to count for the request's class); else undefined, and `authorize` answers.
   */
  readonly authorizeNow: (request: AuthorizedRequest, token: string) => CallerShape | undefined
}

/** The one check of every protected route: the API's middleware and the hot read routes (`HotRoutes.ts`) use it. */
export const makeAuthorize: Effect.Effect<Authorize, never, KeyRing | Quotas | ServerConfig> = Effect.gen(function* () {
  const keys = yield* KeyRing
  const quotas = yield* Quotas
  const { keyless } = yield* ServerConfig
  return {
    authorizeNow: (request, token) => {
      const key = token.trim()
      const entry = keys.open || key === "" || !hasBearerScheme(request.authorization) ? undefined : keys.fixedKey(key)
      if (!keys.open && entry === undefined) return undefined
      const endpoint = endpointClassOf(request.method, request.pathname)
      return admitsUncounted(keys.limitsOf(entry), endpoint) ? { owner: entry?.owner ?? null, key: entry } : undefined
    },
    // An open server ignores whatever authorization a caller sends.
    authorize: (request, token) =>
      Effect.gen(function* () {
        if (!keys.open) yield* wrongScheme(request.authorization)
        const endpoint = endpointClassOf(request.method, request.pathname)
        const caller =
          Option.isSome(keyless) && token.trim() === "" && !keys.open && KEYLESS_CLASSES.has(endpoint)
            ? yield* keylessCaller(keyless.value)
            : yield* identify(token).pipe(Effect.provideService(KeyRing, keys))
        yield* quotas
          .admit(caller.owner, keys.limitsOf(caller.key), endpoint, Date.now())
          .pipe(Effect.catchTag("StoreError", Effect.die))
        return caller
      }),
  }
})

export const layer: Layer.Layer<Authorization, never, KeyRing | Quotas | ServerConfig> = Layer.effect(
  Authorization,
  Effect.map(makeAuthorize, ({ authorize }) => ({
    bearer: (token) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        authorize(
          {
            method: request.method,
            pathname: new URL(request.url, "http://localhost").pathname,
            authorization: request.headers.authorization,
          },
          Redacted.value(token),
        ),
      ),
  })),
)

/** The key-management routes: only the admin key passes (nobody, when `WEBDATA_ADMIN_KEY` is not set). */
export const adminLayer: Layer.Layer<AdminAuthorization, never, KeyRing> = Layer.effect(
  AdminAuthorization,
  Effect.map(KeyRing, (keys) => ({
    bearer: (token) =>
      keys.isAdmin(Redacted.value(token).trim())
        ? Effect.void
        : Effect.fail(unauthorized("Unauthorized: this route needs the admin key (WEBDATA_ADMIN_KEY)")),
  })),
)
