/**
 * `POST /v2/keys/register`: a caller without a key (an agent) presents a signed identity assertion, a JWT from an
 * issuer the operator trusts (`WEBDATA_KEY_ISSUERS`), and gets a key with the registered keys' limits. The JWT is
 * verified with `jose` against the issuer's JWKS (signature, issuer, audience when set, expiry; `sub` and `exp`
 * required). One key per identity: registering again revokes the identity's previous key. Anyone may call it, so it
 * is rate-limited per client address.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { JWTVerifyGetKey } from "jose"
import { RequestError } from "../Errors.js"
import { type KeyIssuer, ServerConfig } from "../Http/ServerConfig.js"
import { JobStore, type StoreError } from "../Jobs/JobStore.js"
import { digestOf, ownerOfDigest } from "./ApiKey.js"
import { KeyRing, type KeyView } from "./KeyRing.js"
import { formatLimits, type Rate } from "./Limits.js"
import { countRequest, type QuotaExceeded } from "./Quotas.js"

const REGISTRATION_RECORD = "key-registration"

/**
 * Registrations one client address may attempt: each verifies a JWT (and may fetch a JWKS). Fixed, not a setting: an
 * agent registers once and then uses its key.
 */
const REGISTRATION_RATE: Rate = { count: 10, windowMs: 60_000, unit: "min" }

export interface RegistrationShape {
  /** `client`: the caller's address as the host tells it (`ClientAddress`); without one, all share one budget. */
  readonly register: (
    assertion: string,
    client: Option.Option<string>,
  ) => Effect.Effect<{ readonly key: string; readonly view: KeyView }, RequestError | QuotaExceeded | StoreError>
}

export class Registration extends Context.Tag("@webdata/core/Registration")<Registration, RegistrationShape>() {}

const refused = (why: string) =>
  new RequestError({ reason: "Unauthorized", code: "UNAUTHORIZED", message: `Unauthorized: ${why}` })

const Registered = Schema.Struct({ digest: Schema.String })
const decodeRegistered = Schema.decodeUnknownOption(Registered)

/** The rate counter of a client address, hashed as the keyless tier's owners are: the store never keeps an address. */
const counterOf = (client: Option.Option<string>) =>
  `register:${Option.match(client, { onNone: () => "-", onSome: (address) => ownerOfDigest(digestOf(`register:${address}`)) })}`

/** Verifies assertions of `issuers`; `jose` is loaded only by a server that has issuers. */
const makeVerify = (jose: typeof import("jose"), issuers: ReadonlyArray<KeyIssuer>) => {
  // One JWKS client per issuer: jose caches the keys and refetches on an unknown `kid`.
  const jwks = new Map<string, JWTVerifyGetKey>(
    issuers.map((issuer) => [issuer.issuer, jose.createRemoteJWKSet(new URL(issuer.jwksUrl))]),
  )
  return (assertion: string) =>
    Effect.gen(function* () {
      const claimed = yield* Effect.try({
        try: () => jose.decodeJwt(assertion),
        catch: () => refused("the assertion is not a JWT"),
      })
      const issuer = issuers.find((candidate) => candidate.issuer === claimed.iss)
      const keySet = issuer === undefined ? undefined : jwks.get(issuer.issuer)
      if (issuer === undefined || keySet === undefined) return yield* refused("the assertion's issuer is not trusted")
      const { payload } = yield* Effect.tryPromise({
        try: () =>
          jose.jwtVerify(assertion, keySet, {
            issuer: issuer.issuer,
            ...(issuer.audience !== undefined ? { audience: issuer.audience } : {}),
            requiredClaims: ["sub", "exp"],
          }),
        catch: (error) => refused(`the assertion does not verify (${(error as Error).message})`),
      })
      return { issuer: issuer.issuer, subject: payload.sub as string }
    })
}

export const layer: Layer.Layer<Registration, never, ServerConfig | JobStore | KeyRing> = Layer.effect(
  Registration,
  Effect.gen(function* () {
    const { issuers, registeredLimits } = yield* ServerConfig
    const store = yield* JobStore
    const keys = yield* KeyRing
    const verify = issuers.length === 0 ? undefined : makeVerify(yield* Effect.promise(() => import("jose")), issuers)

    return {
      register: Effect.fn("Registration.register")(function* (assertion: string, client: Option.Option<string>) {
        if (verify === undefined)
          return yield* new RequestError({
            reason: "NotFound",
            message: "Key registration is off on this server (WEBDATA_KEY_ISSUERS is not set)",
          })
        yield* countRequest(store, counterOf(client), REGISTRATION_RATE, Date.now())
        const { issuer, subject } = yield* verify(assertion.trim())
        const id = digestOf(`${issuer}\n${subject}`)
        const previous = yield* store.getRecord(REGISTRATION_RECORD, id)
        const made = yield* keys.create({
          name: `${subject.slice(0, 60)} via ${issuer.slice(0, 39)}`,
          limits: formatLimits(registeredLimits),
        })
        yield* store.putRecord({
          kind: REGISTRATION_RECORD,
          id,
          owner: null,
          value: { digest: made.view.id },
          now: Date.now(),
        })
        const old = Option.flatMap(previous, (record) => decodeRegistered(record.value))
        if (Option.isSome(old))
          yield* keys.revoke(old.value.digest).pipe(Effect.catchTag("RequestError", () => Effect.void))
        return made
      }),
    }
  }),
)
