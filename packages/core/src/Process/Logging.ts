/**
 * Log lines without secrets. URLs reach the logs in many places (a task's URL, a webhook that could not be delivered,
 * an error's message or cause), and callers put credentials in them: `https://user:pass@host/`, `?token=…`,
 * `Authorization: Bearer …`. Every line the engine logs goes through `redactSecrets` in the logger itself, so no call
 * site has to remember it.
 */
import { Logger } from "effect"

const REDACTED = "***"

/** `scheme://user:password@` → `scheme://***@` */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi

/** Query or fragment parameters whose name says they hold a secret. */
const SECRET_PARAMETER =
  /([?&;#](?:[^=&;#\s"']*?)(?:token|key|secret|password|passwd|pwd|auth|signature|sig|session|credential|code)(?:[^=&;#\s"']*)=)[^&;#\s"'<>]+/gi

/** `Bearer <token>` and `Basic <credentials>`, wherever they appear (a header echoed in an error, a cause). */
const AUTHORIZATION_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g

/** The text with URL credentials, secret query parameters and bearer tokens replaced by `***`. */
export const redactSecrets = (text: string): string =>
  text
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_PARAMETER, `$1${REDACTED}`)
    .replace(AUTHORIZATION_VALUE, `$1 ${REDACTED}`)

/** Effect's default logger (one logfmt-style line per entry on the console), its lines redacted. */
export const redactingLogger: Logger.Logger<unknown, void> = Logger.withConsoleLog(
  Logger.map(Logger.stringLogger, redactSecrets),
)

/** Replaces the default logger with `redactingLogger` for everything built on this layer. */
export const layer = Logger.replace(Logger.defaultLogger, redactingLogger)
