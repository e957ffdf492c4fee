/** From `@effect/sql`'s `SqlError` (node-postgres underneath) to the port's `StoreError`. */
import type { SqlError } from "@effect/sql/SqlError"
import { StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"

/** Socket errors of a server that cannot be reached (or went away). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
])

/**
 * SQLSTATEs of a server that cannot serve us: connection exceptions (class 08), authorization (28), an unknown
 * database (3D000), too many connections (53300), shutdown or startup in progress (57P01–57P03).
 */
const UNAVAILABLE_STATES = /^(08|28|3D000|53300|57P0[123])/

/** node-postgres and pg-pool report a dropped or timed-out connection with these messages, without a code. */
const CONNECTION_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection timed out|not queryable/i

interface Cause {
  readonly code?: unknown
  readonly message?: unknown
  readonly errors?: ReadonlyArray<unknown>
}

const causeOf = (error: SqlError): Cause => (typeof error.cause === "object" && error.cause !== null ? error.cause : {})

/** A readable detail of the driver's error. Node's AggregateError (every address refused) has an empty message. */
const detail = (cause: Cause): string => {
  if (typeof cause.message === "string" && cause.message !== "") return cause.message
  const inner = (cause.errors ?? []).map((error) => (error instanceof Error ? error.message : String(error)))
  return inner.length > 0 ? inner.join("; ") : typeof cause.code === "string" ? cause.code : "unknown error"
}

const isUnavailable = (error: SqlError, cause: Cause): boolean =>
  typeof cause.code === "string"
    ? NETWORK_CODES.has(cause.code) || UNAVAILABLE_STATES.test(cause.code)
    : CONNECTION_MESSAGES.test(`${error.message} ${detail(cause)}`)

/**
 * The `StoreError` of a failed statement: `Unavailable` when the server at `target` (`host:port/database`) cannot be
 * reached or refuses us, `QueryFailed` otherwise. Messages name the server, never the user's password.
 */
export const fromSqlError =
  (target: string) =>
  (error: SqlError): StoreError => {
    const cause = causeOf(error)
    if (isUnavailable(error, cause))
      return new StoreError({
        reason: "Unavailable",
        message: `PostgreSQL at ${target} is unavailable: ${detail(cause)}`,
        cause: error,
      })
    const state = typeof cause.code === "string" ? ` (SQLSTATE ${cause.code})` : ""
    return new StoreError({
      reason: "QueryFailed",
      message: `${error.message}: ${detail(cause)}${state}`,
      cause: error,
    })
  }

/** Maps the `SqlError`s of `effect` (its `StoreError`s pass through). */
export const orStoreError =
  (target: string) =>
  <A>(effect: Effect.Effect<A, SqlError | StoreError>): Effect.Effect<A, StoreError> =>
    Effect.catchTag(effect, "SqlError", (error) => Effect.fail(fromSqlError(target)(error)))
