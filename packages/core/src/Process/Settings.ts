/**
 * Every environment variable the project reads, in one list: its name, what its value must be, its default and what it
 * means. The hosts check the environment against it before anything starts (`problems`), so that a bad value stops a
 * process with one line naming the variable instead of a failure deep in a layer; docs/configuration.md is checked
 * against it by a test, and so are the sources (a variable read anywhere must be listed here).
 *
 * The readers keep their own `Config` (they also run as libraries, with their own defaults). The checks here are at
 * least as strict as theirs on the value's form (`Config.integer` takes "1.5" as 1, this refuses it); what only a
 * reader can know (a keys file's content, a limits spec) is left to it, and stops the process there with its message.
 */
import { Either } from "effect"
import { parseModel, parseStructuredMode } from "../Llm/ModelSpec.js"
import { DEFAULT_KEYLESS_LIMITS, DEFAULT_REGISTERED_KEY_LIMITS } from "../Tenants/Defaults.js"
import { redactSecrets } from "./Logging.js"

/** What a value must be: `check` says in a few words what is wrong with one, or nothing. */
export interface Type {
  readonly check: (value: string) => string | undefined
}

/** The packages that read variables. */
export type Reader = "core" | "server" | "browser" | "parse" | "cli" | "lambda"

export interface Setting {
  readonly name: string
  readonly type: Type
  /** The default as docs/configuration.md states it; `unset` when there is none. */
  readonly default: string
  readonly description: string
  readonly readBy: ReadonlyArray<Reader>
  /** The value is never shown in a message. */
  readonly secret?: boolean
}

/** Any text; an empty value means unset. */
export const text: Type = { check: () => undefined }

/** A whole number of at least `min`. */
export const integer = (min: number): Type => ({
  check: (value) =>
    /^\s*-?\d+\s*$/.test(value) && Number(value) >= min ? undefined : `must be a whole number of at least ${min}`,
})

/** A TCP port; 0 picks a free one. */
export const port: Type = {
  check: (value) =>
    integer(0).check(value) === undefined && Number(value) <= 65_535 ? undefined : "must be a port, 0 to 65535",
}

/** A number of at least `min` (or more than it, `exclusive`). */
export const number = (min: number, exclusive = false): Type => ({
  check: (value) => {
    const parsed = value.trim() === "" ? Number.NaN : Number(value)
    const fits = Number.isFinite(parsed) && (exclusive ? parsed > min : parsed >= min)
    return fits ? undefined : `must be a number ${exclusive ? "more than" : "of at least"} ${min}`
  },
})

// Effect's `Config.boolean` words, so that what passes here is what the readers accept.
const TRUE = ["true", "yes", "on", "1", "y"]
const FALSE = ["false", "no", "off", "0", "n"]

/** On or off: `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`, in lower case as `Config.boolean` reads them. */
export const flag: Type = {
  check: (value) => ([...TRUE, ...FALSE].includes(value) ? undefined : "must be 1 or 0 (true/false, yes/no)"),
}

/** `type`, or empty for unset (where the reader takes an empty value so, as shells and .env files write it). */
export const orEmpty = (type: Type): Type => ({
  check: (value) => (value.trim() === "" ? undefined : type.check(value)),
})

/** One of `values`, exactly as `Config.literal` reads it (in any case and spacing when `caseless`). */
export const oneOf = (values: ReadonlyArray<string>, caseless = false): Type => ({
  check: (value) =>
    values.includes(caseless ? value.trim().toLowerCase() : value) ? undefined : `must be one of ${values.join(", ")}`,
})

/** A comma list of `values`. */
export const listOf = (values: ReadonlyArray<string>): Type => ({
  check: (value) => {
    const unknown = value
      .split(",")
      .map((each) => each.trim().toLowerCase())
      .filter((each) => each !== "" && !values.includes(each))
    return unknown.length === 0 ? undefined : `unknown ${unknown.join(", ")}; use a comma list of ${values.join(", ")}`
  },
})

const isUrl = (value: string, protocols: ReadonlyArray<string>): boolean => {
  const url = URL.parse(value.trim())
  return url !== null && protocols.includes(url.protocol.slice(0, -1)) && url.host !== ""
}

/** A URL with one of `protocols`; an empty value means unset. */
export const url = (protocols: ReadonlyArray<string>): Type => ({
  check: (value) =>
    value.trim() === "" || isUrl(value, protocols)
      ? undefined
      : `must be a ${protocols.map((protocol) => `${protocol}://`).join(" or ")} URL`,
})

/** A comma list of URLs with one of `protocols`. */
export const urlList = (protocols: ReadonlyArray<string>): Type => ({
  check: (value) =>
    value
      .split(",")
      .filter((each) => each.trim() !== "")
      .every((each) => isUrl(each, protocols))
      ? undefined
      : `must be a comma list of ${protocols.map((protocol) => `${protocol}://`).join(" or ")} URLs`,
})

/** A value matched by `pattern`, else `expected` says what is accepted. */
export const matching = (pattern: RegExp, expected: string): Type => ({
  check: (value) => (pattern.test(value.trim()) ? undefined : `expected ${expected}`),
})

/** A value `parse` accepts; an empty value means unset. Reuses the readers' own parsers and messages. */
export const parsed = (parse: (value: string) => Either.Either<unknown, string>): Type => ({
  check: (value) =>
    value.trim() === ""
      ? undefined
      : Either.match(parse(value), { onLeft: (message) => message, onRight: () => undefined }),
})

const HTTP = ["http", "https"]

const setting = (
  name: string,
  type: Type,
  defaultValue: string,
  readBy: ReadonlyArray<Reader>,
  description: string,
  secret = false,
): Setting => ({ name, type, default: defaultValue, readBy, description, ...(secret ? { secret } : {}) })

/** Every variable, grouped as docs/configuration.md lists them. */
export const all: ReadonlyArray<Setting> = [
  setting("PORT", port, "3002", ["server", "cli", "core"], "Port of the HTTP API."),
  setting("HOST", text, "127.0.0.1", ["server", "cli", "core"], "Address the API binds."),
  setting("WEBDATA_API_KEYS", text, "unset", ["core"], "Comma-separated bearer keys; unset: an open API.", true),
  setting("WEBDATA_KEYS_FILE", text, "unset", ["core"], "A JSON or YAML file of API keys with their names and limits."),
  setting("WEBDATA_ADMIN_KEY", text, "unset", ["core"], "The key of the admin API, at least 16 characters.", true),
  setting("WEBDATA_RATE_LIMITS", text, "unset", ["core"], "The limits of every key that its own do not set."),
  setting("WEBDATA_KEYLESS", flag, "unset", ["core"], "Serves scrape, search and parse without a key, per client."),
  setting("WEBDATA_KEYLESS_LIMITS", text, DEFAULT_KEYLESS_LIMITS, ["core"], "The limits of each keyless client."),
  setting("WEBDATA_KEY_ISSUERS", text, "unset", ["core"], "Identity issuers whose JWTs /v2/keys/register accepts."),
  setting(
    "WEBDATA_REGISTERED_KEY_LIMITS",
    text,
    DEFAULT_REGISTERED_KEY_LIMITS,
    ["core"],
    "The limits of keys /v2/keys/register issues.",
  ),
  setting("WEBDATA_TRUST_PROXY", text, "unset", ["server"], "Which peers may set X-Forwarded-* headers."),
  setting(
    "WEBDATA_ALLOW_PRIVATE_ADDRESSES",
    orEmpty(flag),
    "unset",
    ["core"],
    "Turns the URL guard's address checks off.",
  ),
  setting("WEBDATA_ALLOWED_TARGETS", text, "unset", ["core"], "Private host names and CIDRs that may be reached."),
  setting("WEBDATA_CACHE_MAX_MB", number(0), "256", ["core", "server"], "Scrape cache size in MiB; 0 turns it off."),
  setting("WEBDATA_CACHE_SCOPE", oneOf(["key", "global"]), "key", ["core"], "Who shares cached pages."),
  setting("WEBDATA_FETCH_MAX_REDIRECTS", integer(0), "10", ["core"], "Redirect hops a fetch follows."),
  setting("WEBDATA_FETCH_MAX_BODY_MB", number(0, true), "20", ["core"], "Bytes of one response read, in MiB."),
  setting(
    "WEBDATA_FETCH_MAX_DECOMPRESSED_MB",
    number(0, true),
    "50",
    ["core"],
    "Bytes of one response after decompression, in MiB.",
  ),
  setting("WEBDATA_USER_AGENT", text, "a current desktop Chrome", ["core"], "User-Agent of page fetches."),
  setting("WEBDATA_API_URL", url(HTTP), "unset", ["cli"], "The server the CLI's commands run against."),
  setting("WEBDATA_API_KEY", text, "unset", ["cli"], "The key the CLI sends to WEBDATA_API_URL.", true),
  setting(
    "WEBDATA_STORE",
    matching(
      /^(sqlite:.+|memory:|postgres(ql)?:\/\/.+|rediss?:\/\/.+)$/,
      "sqlite:<path>, memory:, postgres://… (or postgresql://…) or redis://… (or rediss://…)",
    ),
    "sqlite:.webdata/webdata.db",
    ["server", "cli", "lambda"],
    "The job store.",
  ),
  setting("WEBDATA_POSTGRES_SCHEMA", text, "webdata", ["server"], "The schema of the postgres:// store."),
  setting("WEBDATA_POSTGRES_POOL", integer(1), "10", ["server"], "Connections a process opens to PostgreSQL."),
  setting("WEBDATA_REDIS_PREFIX", text, "webdata:", ["server"], "Prefix of the redis:// store's keys."),
  setting("CHROMIUM_PATH", text, "on the PATH", ["browser"], "The Chromium the browser engine launches."),
  setting("WEBDATA_MAX_UPLOAD_BYTES", integer(1), "52428800", ["core"], "The largest POST /v2/parse upload."),
  setting("WEBDATA_PARSE_THREADS", integer(1), "cores - 1, at most 2", ["parse"], "Threads that parse files."),
  setting("WEBDATA_PARSE_THREAD_MB", integer(16), "1024", ["parse"], "Heap limit of one parse thread in MiB."),
  setting("WEBDATA_PROXY_URL", urlList(HTTP), "unset", ["core"], "Outgoing proxies, comma-separated."),
  setting(
    "WEBDATA_ARTIFACTS",
    matching(/^(|dir:.+|s3:\/\/[^/]+(\/.*)?)$/, "dir:<path> or s3://<bucket>[/<prefix>]"),
    "unset",
    ["core"],
    "Where screenshots and PDFs go.",
  ),
  setting("WEBDATA_ARTIFACTS_URL", url(HTTP), "unset", ["core"], "The public URL artifact URLs start with."),
  setting("WEBDATA_S3_ENDPOINT", url(HTTP), "https://s3.<region>.amazonaws.com", ["core"], "S3 endpoint."),
  setting("WEBDATA_S3_REGION", text, "us-east-1", ["core"], "S3 region."),
  setting("AWS_ACCESS_KEY_ID", text, "unset", ["core", "lambda"], "AWS credentials: key id."),
  setting("AWS_SECRET_ACCESS_KEY", text, "unset", ["core", "lambda"], "AWS credentials: secret.", true),
  setting("AWS_SESSION_TOKEN", text, "unset", ["lambda"], "AWS credentials: session token.", true),
  setting("AWS_REGION", text, "unset", ["lambda"], "The region of the SQS queue (set by Lambda)."),
  setting("AWS_DEFAULT_REGION", text, "unset", ["lambda"], "The region when AWS_REGION is unset."),
  setting("AWS_LAMBDA_FUNCTION_NAME", text, "unset", ["lambda"], "Set by Lambda: the handlers configure at load."),
  setting("WEBDATA_INTERACT_SESSIONS", integer(0), "4", ["core"], "Interact sessions open at once."),
  setting("WEBDATA_INTERACT_ALLOW_CODE", flag, "unset", ["core"], "Lets interact sessions run callers' code."),
  setting("WEBDATA_BROWSER_PAGES", integer(1), "4", ["browser"], "Browser pages open at once."),
  setting("WEBDATA_BROWSER_PAGE_MB", number(0, true), "256", ["browser"], "Megabytes one browser page may receive."),
  setting("WEBDATA_LLM", parsed(parseModel), "unset", ["core", "server"], "The language model, <provider>:<model>."),
  setting("OPENAI_API_KEY", text, "unset", ["core"], "Key of openai: and openai-chat: models.", true),
  setting("OPENAI_BASE_URL", url(HTTP), "https://api.openai.com/v1", ["core"], "Base URL of OpenAI models."),
  setting("ANTHROPIC_API_KEY", text, "unset", ["core"], "Key of anthropic: models.", true),
  setting("ANTHROPIC_BASE_URL", url(HTTP), "https://api.anthropic.com", ["core"], "Base URL of anthropic: models."),
  setting("OLLAMA_BASE_URL", url(HTTP), "http://127.0.0.1:11434/v1", ["core"], "Where Ollama listens."),
  setting(
    "WEBDATA_LLM_STRUCTURED",
    parsed(parseStructuredMode),
    "by provider",
    ["core"],
    "How JSON values are asked for.",
  ),
  setting("WEBDATA_LLM_CONTEXT_TOKENS", integer(1), "by model", ["core"], "The context the engine plans for."),
  setting("WEBDATA_LLM_TIMEOUT_MS", number(0, true), "120000", ["core"], "Time one model call may take."),
  setting(
    "WEBDATA_SEARCH",
    listOf(["local", "searxng", "brave", "duckduckgo", "serper"]),
    "local",
    ["core"],
    "Search providers, a fallback chain.",
  ),
  setting("SEARXNG_URL", url(HTTP), "unset", ["core"], "Base URL of a SearXNG instance."),
  setting("BRAVE_API_KEY", text, "unset", ["core"], "Key of the Brave Search API.", true),
  setting("BRAVE_API_URL", url(HTTP), "https://api.search.brave.com/res/v1", ["core"], "Base URL of Brave Search."),
  setting("SERPER_API_KEY", text, "unset", ["core"], "Key of Serper.", true),
  setting("SERPER_API_URL", url(HTTP), "https://google.serper.dev", ["core"], "Base URL of Serper."),
  setting("DUCKDUCKGO_URL", url(HTTP), "https://html.duckduckgo.com/html/", ["core"], "DuckDuckGo's HTML endpoint."),
  setting("WEBDATA_SEARCH_INDEX_SCOPE", oneOf(["key", "global"]), "key", ["core"], "Who finds what in the index."),
  setting("WEBDATA_SEARCH_INDEX_TTL_HOURS", number(0, true), "720", ["core"], "Age at which index entries go."),
  setting("WEBDATA_WEBHOOK_SECRET", text, "unset", ["core"], "Key of the webhooks' signature.", true),
  setting(
    "WEBDATA_SMTP_URL",
    url(["smtp", "smtps"]),
    "unset",
    ["server"],
    "The mail server of monitors' notifications.",
    true,
  ),
  setting("WEBDATA_SMTP_FROM", text, "webdata <monitor@localhost>", ["server"], "The sender of monitors' emails."),
  setting("WEBDATA_CONTENT_THREADS", integer(0), "cores - 1, at most 4", ["core"], "Threads that build documents."),
  setting("WEBDATA_CONTENT_THREAD_MB", integer(16), "512", ["core"], "Heap limit of one content thread in MiB."),
  setting("WEBDATA_WORKER", flag, "1", ["core", "server"], "0 runs the API without a worker."),
  setting("WEBDATA_WORK_QUEUE_URL", url(["https", "http"]), "unset", ["lambda"], "Lambda only: the SQS queue."),
  setting("WEBDATA_WORKER_CONCURRENCY", integer(1), "16", ["core"], "Tasks a worker runs at once."),
  setting("WEBDATA_WORKER_LEASE_SECONDS", number(1), "60", ["core"], "How long a worker holds a task unrenewed."),
  setting(
    "WEBDATA_SHUTDOWN_GRACE_MS",
    integer(0),
    "10000",
    ["core", "server"],
    "On stop, how long open requests and running tasks may finish.",
  ),
  setting("WEBDATA_CACHE_TTL_HOURS", number(0, true), "48", ["core"], "Age at which cached pages are purged."),
  setting("WEBDATA_HEAP_GROWTH_PERCENT", integer(0), "50", ["core"], "V8's heap growth before a full collection."),
  setting("WEBDATA_JOB_TTL_HOURS", number(0, true), "24", ["core"], "How long jobs stay readable."),
  setting(
    "WEBDATA_MONITOR_MIN_INTERVAL_MINUTES",
    number(0, true),
    "5",
    ["core"],
    "The shortest gap between a monitor's runs.",
  ),
  setting("WEBDATA_ALLOW_IGNORE_ROBOTS", flag, "unset", ["core"], "Lets crawls set ignoreRobotsTxt."),
  setting(
    "WEBDATA_LOG_LEVEL",
    oneOf(["all", "trace", "debug", "info", "warn", "warning", "error", "fatal", "none", "off"], true),
    "info",
    ["core"],
    "The least severe log level written.",
  ),
  setting(
    "WEBDATA_LOG_FORMAT",
    oneOf(["pretty", "json"], true),
    "pretty",
    ["core"],
    "How log lines are written: logfmt-style lines or one JSON object per line.",
  ),
  setting(
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    url(HTTP),
    "unset",
    ["server"],
    "Where traces and metrics are sent over OTLP/HTTP; unset: none.",
  ),
]

export const byName: ReadonlyMap<string, Setting> = new Map(all.map((each) => [each.name, each]))

export interface Problem {
  readonly name: string
  /** One line naming the variable, its value (unless secret) and what is wrong. */
  readonly message: string
}

/** What is wrong with the variables set in `env`, in the registry's order; empty when every one is fine. */
export const problems = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<Problem> =>
  all.flatMap((each) => {
    const value = env[each.name]
    if (value === undefined) return []
    const wrong = each.type.check(value)
    if (wrong === undefined) return []
    const shown = each.secret === true ? "" : `=${JSON.stringify(redactSecrets(value))}`
    return [{ name: each.name, message: `${each.name}${shown}: ${wrong}` }]
  })

/** `WEBDATA_*` variables in `env` that no setting has: most likely misspelt. */
export const unknownNames = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> =>
  Object.keys(env).filter((name) => name.startsWith("WEBDATA_") && !byName.has(name))

/** What a host says about `env` before it starts, one line each: any `errors` stop it, `warnings` do not. */
export interface Report {
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

/** The problems of `env`, and its `WEBDATA_` names that are no setting (reported, and ignored). */
export const report = (env: Readonly<Record<string, string | undefined>>): Report => ({
  errors: problems(env).map((problem) => problem.message),
  warnings: unknownNames(env).map(
    (name) => `${name} is not a setting (ignored); the settings are in docs/configuration.md`,
  ),
})
