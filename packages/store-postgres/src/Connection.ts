/**
 * From the store's options to a connection pool's settings: the schema goes into every connection's startup
 * `options` (`-c search_path=<schema>`), so each pooled connection, the LISTEN connection included, resolves the
 * store's unqualified table names in that schema from its first statement on, whichever fiber borrows it. (A
 * pooler in front of Postgres must pass startup options on, and keep sessions: LISTEN needs one.)
 */
import { StoreError } from "@webdata/core/jobs"
import { Either, Redacted } from "effect"

export interface PostgresJobStoreOptions {
  /** `postgres://user:password@host:port/database?…` (`postgresql://` too). */
  readonly url: string
  /** The schema holding the store's tables, created when missing. Default `webdata`. */
  readonly schema?: string
  /** Connections in the pool. Default 10. */
  readonly poolSize?: number
}

export interface ConnectionSettings {
  /** The URL with the schema's search_path added: it holds the password, hence redacted. */
  readonly url: Redacted.Redacted
  readonly schema: string
  readonly poolSize: number
  /** `host:port/database`, for messages (never the user or password). */
  readonly target: string
}

/**
 * Lower-case identifiers only: the schema is spliced into `search_path`, LISTEN channel names and lock keys, and
 * stays well under Postgres's 63-byte identifier limit with a suffix added.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/

const invalid = (message: string) => Either.left(new StoreError({ reason: "Unavailable", message }))

/** `host:port/database` of a connection URL (a `host` query parameter names a Unix socket directory). */
const describe = (url: URL): string => {
  const host = url.searchParams.get("host") ?? (url.hostname === "" ? "localhost" : decodeURIComponent(url.hostname))
  const database = decodeURIComponent(url.pathname.slice(1)) || "postgres"
  return `${host}:${url.port === "" ? "5432" : url.port}/${database}`
}

export const settings = (options: PostgresJobStoreOptions): Either.Either<ConnectionSettings, StoreError> => {
  const schema = options.schema ?? "webdata"
  if (!SCHEMA_NAME.test(schema))
    return invalid(`Invalid PostgreSQL schema name "${schema}": expected [a-z_][a-z0-9_]*, at most 48 characters`)
  const poolSize = options.poolSize ?? 10
  if (!Number.isInteger(poolSize) || poolSize < 1)
    return invalid(`Invalid PostgreSQL pool size ${poolSize}: expected a positive integer`)
  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    // Not the URL itself, nor the error (it carries the input): either may hold a password.
    return invalid("Invalid PostgreSQL URL: expected postgres://user:password@host:port/database")
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    return invalid(`Invalid PostgreSQL URL: the scheme is "${url.protocol}", expected postgres: or postgresql:`)
  // READ COMMITTED pinned too: the locking in Locks.ts relies on each statement seeing the latest commits.
  const startup = url.searchParams.get("options")
  url.searchParams.set(
    "options",
    `${startup === null ? "" : `${startup} `}-c search_path=${schema} -c default_transaction_isolation=read\\ committed`,
  )
  return Either.right({ url: Redacted.make(url.href), schema, poolSize, target: describe(url) })
}
