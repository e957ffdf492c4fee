/**
 * The options of an upload to `/v2/parse` (the multipart `options` field): the scrape options that make sense for a
 * file. Those that need a page in a browser answer 400 `PARSE_UNSUPPORTED_OPTIONS`, as Firecrawl's do.
 */
import { Effect, Schema } from "effect"
import { RequestError } from "../Errors.js"
import { browserOptionOf, unsupportedOption } from "../Scrape/Capabilities.js"
import { decodeStrict } from "./Decode.js"
import { requestMetaFields, type ScrapeOptions, scrapeOptionFields } from "./ScrapeOptions.js"

/** Parse's default timeout (Firecrawl's documented 30 s). */
const PARSE_TIMEOUT_MS = 30_000

export const ParseOptions = Schema.Struct({
  ...scrapeOptionFields,
  timeout: Schema.optionalWith(Schema.Int.pipe(Schema.between(1000, 300_000)), { default: () => PARSE_TIMEOUT_MS }),
  ...requestMetaFields,
}).annotations({ identifier: "ParseOptions" })
export type ParseOptions = typeof ParseOptions.Type
export type ParseOptionsInput = typeof ParseOptions.Encoded

/** Formats that have no meaning for a file, beside the browser's. */
const PAGE_ONLY_FORMATS = ["branding", "changeTracking", "rawBase64"] as const

/** The first option that needs a page rather than a file, in Firecrawl's words. */
const pageOnlyOption = (options: ParseOptions): string | undefined =>
  browserOptionOf(options) ??
  PAGE_ONLY_FORMATS.find((type) => options.formats.some((format) => format.type === type)) ??
  (options.proxy !== "auto" && options.proxy !== "basic" ? `proxy "${options.proxy}"` : undefined)

const decode = decodeStrict(ParseOptions)

/** Parse options given as a value (the library's and the CLI's): decoded, and refused as `/v2/parse` refuses them. */
export const decodeParseOptionsValue = (raw: unknown): Effect.Effect<ParseOptions & ScrapeOptions, RequestError> =>
  Effect.gen(function* () {
    const options = yield* decode(raw)
    const pageOnly = pageOnlyOption(options)
    if (pageOnly !== undefined)
      return yield* new RequestError({
        reason: "Validation",
        code: "PARSE_UNSUPPORTED_OPTIONS",
        message: `Parse uploads do not support ${pageOnly}.`,
      })
    // The rest as for a scrape: what this build cannot honour (redactPII, ...) is a 400 too; what needs a model is
    // checked by the parse service, which knows whether there is one.
    const unsupported = unsupportedOption(options, { browser: false, llm: true })
    if (unsupported !== undefined) return yield* unsupported
    return options
  })

/** The options from the multipart field's JSON (none: the defaults). */
export const decodeParseOptions = (
  json: string | undefined,
): Effect.Effect<ParseOptions & ScrapeOptions, RequestError> =>
  json === undefined || json.trim() === ""
    ? decodeParseOptionsValue({})
    : Effect.try({
        try: () => JSON.parse(json) as unknown,
        catch: () => new RequestError({ reason: "InvalidJson", message: "The options field is not valid JSON." }),
      }).pipe(Effect.flatMap(decodeParseOptionsValue))
