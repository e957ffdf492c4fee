/**
 * Scrape options shared by `/v2/scrape`, batch scrape, crawl `scrapeOptions` and the library. Defaults are v2's;
 * validation rules and messages follow Firecrawl's, so its clients see the same 400s.
 */
import { Schema } from "effect"
import { type Action, Actions, actionsWaitMs } from "./Actions.js"
import { DEFAULT_FORMATS, Formats } from "./Formats.js"
import { TargetUrl } from "./Url.js"

const TWO_DAYS_MS = 2 * 24 * 60 * 60 * 1000
export const DEFAULT_TIMEOUT_MS = 60_000

const PdfParser = Schema.Struct({
  type: Schema.Literal("pdf"),
  mode: Schema.optional(Schema.Literal("fast", "auto", "ocr")),
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000))),
  pages: Schema.optional(Schema.Boolean),
  pageMarkdown: Schema.optional(Schema.Boolean),
  blocks: Schema.optional(Schema.Boolean),
  pageMarkers: Schema.optional(Schema.Boolean),
})
const Parser = Schema.Union(
  PdfParser,
  Schema.transform(Schema.Literal("pdf"), PdfParser, {
    strict: true,
    decode: () => ({ type: "pdf" as const }),
    encode: () => "pdf" as const,
  }),
)

const Location = Schema.Struct({
  country: Schema.optional(
    Schema.String.pipe(
      Schema.filter(
        (country) =>
          /^[a-z]{2}$/i.test(country) ||
          ["us-generic", "us-whitelist"].includes(country.toLowerCase()) ||
          "Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code.",
      ),
    ),
  ),
  languages: Schema.optional(Schema.Array(Schema.String)),
})

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())

/** What HTTP allows in a header (RFC 9110: a token, then Latin-1 text without control characters but tab). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/** Headers sent with the page request: one the HTTP client would refuse is the caller's mistake, a 400. */
const RequestHeaders = Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
  Schema.filter((headers) => {
    const bad = Object.entries(headers).find(([name, value]) => !HEADER_NAME.test(name) || !HEADER_VALUE.test(value))
    return bad === undefined || `Invalid header "${bad[0].slice(0, 100)}": not a valid HTTP header name and value`
  }),
)

const RedactPii = Schema.Union(
  Schema.Boolean,
  Schema.Struct({
    mode: Schema.optional(Schema.Literal("accurate", "aggressive", "fast")),
    entities: Schema.optional(
      Schema.Array(Schema.Literal("PERSON", "EMAIL", "PHONE", "LOCATION", "FINANCIAL", "SECRET")),
    ),
    replaceStyle: Schema.optional(Schema.Literal("tag", "mask", "remove")),
  }),
)

/** The scrape option fields, without cross-field rules (crawl and batch reuse them). */
export const scrapeOptionFields = {
  formats: Schema.optionalWith(Formats, { default: () => DEFAULT_FORMATS }),
  headers: Schema.optional(RequestHeaders),
  includeTags: Schema.optional(Schema.Array(Schema.String)),
  excludeTags: Schema.optional(Schema.Array(Schema.String)),
  onlyMainContent: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  onlyCleanContent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  timeout: Schema.optionalWith(Schema.Int.pipe(Schema.between(1000, 300_000)), {
    default: () => DEFAULT_TIMEOUT_MS,
  }),
  waitFor: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 60_000)), { default: () => 0 }),
  mobile: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  parsers: Schema.optional(Schema.Array(Parser)),
  actions: Schema.optional(Actions),
  location: Schema.optional(Location),
  /** Unset means: true, except false when `headers` or `actions` are given (Firecrawl's rule). */
  skipTlsVerification: Schema.optional(Schema.Boolean),
  removeBase64Images: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  fastMode: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  blockAds: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  proxy: Schema.optionalWith(Schema.Literal("basic", "stealth", "enhanced", "auto"), {
    default: () => "auto" as const,
  }),
  maxAge: Schema.optionalWith(NonNegativeInt, { default: () => TWO_DAYS_MS }),
  minAge: Schema.optional(NonNegativeInt),
  storeInCache: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  lockdown: Schema.optional(Schema.Boolean),
  redactPII: Schema.optional(RedactPii),
  profile: Schema.optional(
    Schema.Struct({
      name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
      saveChanges: Schema.optional(Schema.Boolean),
    }),
  ),
  /** Firecrawl's test hook; accepted so its test suite's requests validate, ignored. */
  useMock: Schema.optional(Schema.String),
  /** Firecrawl's cloud-only repeated-block removal (needs its signature index); accepted and ignored. */
  __experimental_omce: Schema.optional(Schema.Boolean),
  __experimental_omceDomain: Schema.optional(Schema.String),
}

export const waitForWithinTimeout = <A extends { readonly waitFor: number; readonly timeout: number }>(options: A) =>
  options.waitFor <= options.timeout / 2 || {
    path: ["waitFor"],
    message: "waitFor must not exceed half of timeout",
  }

export const totalWaitWithinLimit = <
  A extends { readonly waitFor: number; readonly actions?: ReadonlyArray<Action> | undefined },
>(
  options: A,
) =>
  options.waitFor + actionsWaitMs(options.actions ?? []) <= 60_000 || {
    path: ["actions"],
    message: "Total wait time (waitFor + wait actions) cannot exceed 60 seconds",
  }

export const ScrapeOptions = Schema.Struct(scrapeOptionFields).pipe(
  Schema.filter(waitForWithinTimeout),
  Schema.filter(totalWaitWithinLimit),
  Schema.annotations({ identifier: "ScrapeOptions" }),
)
export type ScrapeOptions = typeof ScrapeOptions.Type
export type ScrapeOptionsInput = typeof ScrapeOptions.Encoded

/** Integrations Firecrawl knows; any name starting with `_` is accepted too. */
const INTEGRATIONS = [
  "dify",
  "zapier",
  "pipedream",
  "raycast",
  "langchain",
  "crewai",
  "llamaindex",
  "n8n",
  "camelai",
  "make",
  "flowise",
  "metagpt",
  "relevanceai",
  "viasocket",
  "cli",
  "hermes",
  "gstack",
  "prometheus",
]
export const Integration = Schema.String.pipe(
  Schema.filter(
    (name) =>
      name.startsWith("_") ||
      INTEGRATIONS.includes(name) ||
      `Invalid enum value. Expected one of ${INTEGRATIONS.map((n) => `'${n}'`).join(" | ")}, received '${name}'`,
  ),
)

/** Keys every POST body accepts besides its own. */
export const requestMetaFields = {
  origin: Schema.optional(Schema.String),
  integration: Schema.optional(Integration),
  zeroDataRetention: Schema.optional(Schema.Boolean),
}

export const ScrapeRequest = Schema.Struct({
  url: TargetUrl,
  ...scrapeOptionFields,
  ...requestMetaFields,
}).pipe(
  Schema.filter(waitForWithinTimeout),
  Schema.filter(totalWaitWithinLimit),
  Schema.annotations({ identifier: "ScrapeRequest" }),
)
export type ScrapeRequest = typeof ScrapeRequest.Type
