/**
 * Log lines without secrets. URLs reach the logs in many places (a task's URL, a webhook that could not be delivered,
 * an error's message or cause), and callers put credentials in them: `https://user:pass@host/`, `?token=…`,
 * `Authorization: Bearer …`. Every line the engine logs goes through the redaction in the logger itself, so no call
 * site has to remember it.
 *
 * Two formats: `pretty` (Effect's logfmt-style line) and `json` (one object per line, the annotations as fields, for
 * log collectors), chosen with `WEBDATA_LOG_FORMAT`; `WEBDATA_LOG_LEVEL` sets the least severe level written.
 */
import {
  Cause,
  Config,
  ConfigError,
  Effect,
  Either,
  FiberRef,
  HashMap,
  Inspectable,
  Layer,
  List,
  Logger,
  LogLevel,
} from "effect"

const REDACTED = "***"

/** `scheme://user:password@` → `scheme://***@` */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi

/** Query or fragment parameters whose name says they hold a secret. */
const SECRET_PARAMETER =
  /([?&;#](?:[^=&;#\s"']*?)(?:token|key|secret|password|passwd|pwd|auth|signature|sig|session|credential|code)(?:[^=&;#\s"']*)=)[^&;#\s"'<>]+/gi

/** Whether a URL's query or fragment has a parameter named like a secret. */
export const hasSecretParameter = (url: string): boolean => new RegExp(SECRET_PARAMETER.source, "i").test(url)

/** `Bearer <token>` and `Basic <credentials>`, wherever they appear (a header echoed in an error, a cause). */
const AUTHORIZATION_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g

/** Field names that hold a secret, whatever their value looks like. */
const SECRET_NAME =
  /^(?:authorization|proxy-authorization|cookie|set-cookie|(?:api[_-]?)?key|[a-z_-]*(?:token|secret|password|passwd|apikey|api_key))$/i

/** `apiKey=…`, `"token": "…"`, `password: …` in text (a logfmt line, an object printed as JSON or by inspect). */
const SECRET_FIELD =
  /((?:^|[\s{,;(])["']?(?:api[_-]?key|key|[a-z_]*token|[a-z_]*secret|password|passwd)["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&})"']+)/gim

const quoted = (value: string) =>
  value.startsWith('"') ? `"${REDACTED}"` : value.startsWith("'") ? `'${REDACTED}'` : REDACTED

/** The text with URL credentials, secret query parameters, secret fields and bearer tokens replaced by `***`. */
export const redactSecrets = (text: string): string =>
  text
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_PARAMETER, `$1${REDACTED}`)
    .replace(AUTHORIZATION_VALUE, `$1 ${REDACTED}`)
    .replace(SECRET_FIELD, (_, name: string, value: string) => `${name}${quoted(value)}`)

/** A value to log as JSON with every secret field replaced and every string redacted. */
export const redactValue = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return redactSecrets(value)
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? value.toString() : value
  if (depth > 8) return "[nested too deep]"
  if (value instanceof Error) return redactSecrets(Inspectable.toStringUnknown(value))
  if (Array.isArray(value)) return value.map((each) => redactValue(each, depth + 1))
  const plain = Inspectable.toJSON(value)
  if (plain !== value) return redactValue(plain, depth + 1)
  return Object.fromEntries(
    Object.entries(value).map(([name, each]) => [
      name,
      SECRET_NAME.test(name) && each !== undefined && each !== null ? REDACTED : redactValue(each, depth + 1),
    ]),
  )
}

/** Effect's default line (logfmt-style), redacted. */
const prettyLogger: Logger.Logger<unknown, string> = Logger.map(Logger.stringLogger, redactSecrets)

/** One JSON object per line: time, level, message, the annotations as fields, the log spans, the cause. */
const jsonLogger: Logger.Logger<unknown, string> = Logger.make(
  ({ annotations, cause, date, logLevel, message, spans }) => {
    const messages = Array.isArray(message) ? message : [message]
    const fields: Record<string, unknown> = {}
    for (const [name, value] of HashMap.toEntries(annotations)) fields[name] = value
    const now = date.getTime()
    const timings = Object.fromEntries(List.toArray(spans).map((span) => [span.label, now - span.startTime]))
    const line = {
      time: date.toISOString(),
      level: logLevel.label,
      message: messages.length === 1 && typeof messages[0] === "string" ? messages[0] : messages,
      ...fields,
      ...(Object.keys(timings).length > 0 ? { spans: timings } : {}),
      ...(Cause.isEmpty(cause) ? {} : { cause: Cause.pretty(cause, { renderErrorCause: true }) }),
    }
    return JSON.stringify(redactValue(line))
  },
)

export type LogFormat = "pretty" | "json"

export interface LogSettings {
  readonly format: LogFormat
  readonly level: LogLevel.LogLevel
}

/** Effect's logger in `format`, its lines redacted and written to the console. */
export const redactingLogger = (format: LogFormat = "pretty"): Logger.Logger<unknown, void> =>
  Logger.withConsoleLog(format === "json" ? jsonLogger : prettyLogger)

/** The levels `WEBDATA_LOG_LEVEL` accepts (Effect's labels, and the usual other spellings). */
const LEVELS: Readonly<Record<string, LogLevel.LogLevel>> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
  off: LogLevel.None,
}

const invalid = (name: string, value: string, expected: string) =>
  ConfigError.InvalidData([name], `${name}=${JSON.stringify(value)}: must be ${expected}`)

/** `WEBDATA_LOG_FORMAT` (`pretty` or `json`, default `pretty`) and `WEBDATA_LOG_LEVEL` (default `info`). */
export const settingsConfig: Config.Config<LogSettings> = Config.all({
  format: Config.string("WEBDATA_LOG_FORMAT").pipe(
    Config.withDefault("pretty"),
    Config.mapOrFail((raw) => {
      const value = raw.trim().toLowerCase()
      return value === "" || value === "pretty"
        ? Either.right<LogFormat>("pretty")
        : value === "json"
          ? Either.right<LogFormat>("json")
          : Either.left(invalid("WEBDATA_LOG_FORMAT", raw, "json or pretty"))
    }),
  ),
  level: Config.string("WEBDATA_LOG_LEVEL").pipe(
    Config.withDefault("info"),
    Config.mapOrFail((raw) => {
      const value = raw.trim().toLowerCase()
      const level = value === "" ? LogLevel.Info : LEVELS[value]
      return level === undefined
        ? Either.left(invalid("WEBDATA_LOG_LEVEL", raw, Object.keys(LEVELS).join(", ")))
        : Either.right(level)
    }),
  ),
})

/**
 * The level of the line each HTTP request logs: `info` where logs are collected (the `json` format), `debug` on a
 * console (`pretty`), where a line per request would bury everything else (and an embedding app's own output).
 */
export const requestLogLevel: FiberRef.FiberRef<LogLevel.LogLevel> = FiberRef.unsafeMake<LogLevel.LogLevel>(
  LogLevel.Debug,
)

/** The default logger replaced by the redacting one in `format`, with `level` as the least severe level written. */
export const layerWith = (settings: LogSettings): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, redactingLogger(settings.format)),
    Logger.minimumLogLevel(settings.level),
    Layer.locallyScoped(requestLogLevel, settings.format === "json" ? LogLevel.Info : LogLevel.Debug),
  )

/**
 * The logging of everything built on this layer, from the environment. A bad value stops the build with the
 * `ConfigError` naming the variable (the hosts check the environment before they start, so they say it first).
 */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(Effect.map(settingsConfig, layerWith)).pipe(Layer.orDie)
