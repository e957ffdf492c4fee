/**
 * Firecrawl v1 scrape options read into the v2 scrape options they stand for, and v2 documents answered in v1's
 * shape. Fields v2 keeps under the same name and meaning pass through as they are, so v2's decoder checks them and
 * answers the same 400s; only v1's own fields are typed here.
 */
import { Schema } from "effect"

/** v1's format names: flags rather than v2's objects. */
const V1_FORMATS = [
  "markdown",
  "html",
  "rawHtml",
  "links",
  "screenshot",
  "screenshot@fullPage",
  "extract",
  "json",
  "summary",
  "changeTracking",
] as const
export type V1Format = (typeof V1_FORMATS)[number]

/** A field v2 has too: typed by v2's decoder. */
export const sameInV2 = Schema.optional(Schema.Unknown)

/**
 * The LLM options of the `extract` and `json` formats. `mode` (only "llm"), `systemPrompt` (v1 replaced it with its
 * own) and `temperature` changed nothing in v1, so they are accepted and dropped.
 */
const LlmOptions = Schema.Struct({
  mode: Schema.optional(Schema.Literal("llm")),
  schema: sameInV2,
  systemPrompt: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
  prompt: sameInV2,
  temperature: Schema.optional(Schema.Number),
})
type LlmOptions = typeof LlmOptions.Type

const ChangeTrackingOptions = Schema.Struct({
  prompt: sameInV2,
  schema: sameInV2,
  modes: sameInV2,
  tag: sameInV2,
})

/** v1's scrape options (the same for `/v1/scrape`, batch scrape and crawl `scrapeOptions`). */
export const v1ScrapeOptionFields = {
  formats: Schema.optional(Schema.Array(Schema.Literal(...V1_FORMATS))),
  extract: Schema.optional(LlmOptions),
  jsonOptions: Schema.optional(LlmOptions),
  changeTrackingOptions: Schema.optional(ChangeTrackingOptions),
  /** v2's `parsers`: `true` is `["pdf"]`, `false` is none. */
  parsePDF: Schema.optional(Schema.Boolean),
  /** v1's older name of `location`. */
  geolocation: sameInV2,
  /** Cache reads of up to 4 hours when `maxAge` is not given. */
  __experimental_cache: Schema.optional(Schema.Boolean),
  /** Firecrawl's website preview token: no meaning here, accepted as v1 did. */
  __searchPreviewToken: Schema.optional(Schema.String),
  headers: sameInV2,
  includeTags: sameInV2,
  excludeTags: sameInV2,
  onlyMainContent: sameInV2,
  timeout: sameInV2,
  waitFor: sameInV2,
  mobile: sameInV2,
  actions: sameInV2,
  location: sameInV2,
  skipTlsVerification: sameInV2,
  removeBase64Images: sameInV2,
  fastMode: sameInV2,
  useMock: sameInV2,
  blockAds: sameInV2,
  proxy: Schema.optional(Schema.Literal("basic", "stealth", "auto")),
  maxAge: sameInV2,
  storeInCache: sameInV2,
  __experimental_omce: sameInV2,
  __experimental_omceDomain: sameInV2,
}

const V1ScrapeOptionsStruct = Schema.Struct(v1ScrapeOptionFields)
export type V1ScrapeOptions = typeof V1ScrapeOptionsStruct.Type

/** v1's cross-field rules, with its messages. */
export const v1ScrapeRules = (options: V1ScrapeOptions): true | string => {
  const formats = options.formats ?? []
  if (formats.includes("screenshot") && formats.includes("screenshot@fullPage"))
    return "You may only specify either screenshot or screenshot@fullPage"
  if (
    formats.includes("extract") !== (options.extract !== undefined) ||
    formats.includes("json") !== (options.jsonOptions !== undefined)
  )
    return "When 'extract' or 'json' format is specified, corresponding options must be provided, and vice versa"
  return true
}

export const V1ScrapeOptions = V1ScrapeOptionsStruct.pipe(Schema.filter(v1ScrapeRules))

const FOUR_HOURS_MS = 4 * 60 * 60 * 1000

/** `fields` without the undefined ones (a v2 body says only what was given). */
export const defined = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

const jsonFormat = (options: LlmOptions | undefined) => ({
  type: "json",
  ...defined({ schema: options?.schema, prompt: options?.prompt }),
})

/** The v2 formats of v1's format list (`extract` and `json` are one v2 `json` format). */
const v2Formats = (options: V1ScrapeOptions, formats: ReadonlyArray<V1Format>): ReadonlyArray<unknown> =>
  formats.flatMap((format): ReadonlyArray<unknown> => {
    switch (format) {
      case "extract":
        return [jsonFormat(options.jsonOptions ?? options.extract)]
      case "json":
        return formats.includes("extract") ? [] : [jsonFormat(options.jsonOptions)]
      case "screenshot@fullPage":
        return [{ type: "screenshot", fullPage: true }]
      case "changeTracking":
        return [{ type: "changeTracking", ...defined({ ...options.changeTrackingOptions }) }]
      default:
        return [format]
    }
  })

/** What v1 decided where v2 decides otherwise (caching, TLS checks, the proxy). */
export interface V1Defaults {
  /** v1's scrape timeout when none is given; crawl and batch leave it to v2. */
  readonly timeout?: number
}

/**
 * The v2 scrape options (a body for v2's decoder) that v1 `options` stand for. v1 never answered from the cache
 * unless asked (`maxAge` 0, v2 defaults to 2 days), checked TLS certificates and used the basic proxy by default.
 */
export const toV2ScrapeOptions = (options: V1ScrapeOptions, defaults: V1Defaults = {}): Record<string, unknown> => {
  const {
    formats,
    extract: _extract,
    jsonOptions: _jsonOptions,
    changeTrackingOptions: _changeTracking,
    parsePDF,
    geolocation,
    __experimental_cache,
    __searchPreviewToken: _token,
    ...same
  } = options
  const llm = formats?.includes("extract") === true || formats?.includes("json") === true
  return defined({
    ...same,
    // v1 raised its 30 s default to 60 s for LLM formats.
    timeout: same.timeout ?? (defaults.timeout !== undefined && llm ? 60_000 : defaults.timeout),
    maxAge: same.maxAge ?? (__experimental_cache === true ? FOUR_HOURS_MS : 0),
    skipTlsVerification: same.skipTlsVerification ?? false,
    proxy: same.proxy ?? "basic",
    location: same.location ?? geolocation,
    formats: formats === undefined ? undefined : v2Formats(options, formats),
    parsers: parsePDF === undefined ? undefined : parsePDF ? ["pdf"] : [],
  })
}

/**
 * Where v1 put the LLM output: `extract` for the `extract` format, `json` for `json`; `both` when the request is not
 * known (a crawl's or batch's documents, whose stored options are v2's).
 */
export type LlmField = "extract" | "json" | "both"

export const llmFieldOf = (formats: ReadonlyArray<V1Format> | undefined): LlmField =>
  formats?.includes("json") === true ? "json" : "extract"

/** A v2 document (or search result) in v1's shape: the LLM output under v1's name; every other field is the same. */
export const toV1Document = <D extends object>(document: D & { readonly json?: unknown }, field: LlmField) => {
  if (document.json === undefined || field === "json") return { ...document }
  if (field === "both") return { ...document, extract: document.json }
  const { json, ...rest } = document
  return { ...rest, extract: json }
}
