/**
 * The options of an upload to `/v2/parse` (the multipart `options` field): the scrape options that make sense for a
 * file. Those that need a page in a browser answer 400 `PARSE_UNSUPPORTED_OPTIONS`, as Firecrawl's do.
 */
import { Effect, Schema } from "effect"
import { RequestError } from "../Errors.js"
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

/** What the first unsupported option is, in Firecrawl's words. */
const unsupportedOption = (options: ParseOptions): string | undefined => {
  const types = options.formats.map((format) => format.type)
  if (options.actions !== undefined && options.actions.length > 0) return "actions"
  if (types.includes("screenshot")) return "screenshot"
  if (types.includes("branding")) return "branding"
  if (types.includes("changeTracking")) return "changeTracking"
  if (types.includes("rawBase64")) return "rawBase64"
  if (options.waitFor > 0) return "waitFor"
  if (options.location !== undefined) return "location"
  if (options.mobile) return "mobile"
  if (options.proxy !== "auto" && options.proxy !== "basic") return `proxy "${options.proxy}"`
  if (options.profile !== undefined) return "profile"
  return undefined
}

const decode = decodeStrict(ParseOptions)

/** The options from the multipart field's JSON (none: the defaults). */
export const decodeParseOptions = (
  json: string | undefined,
): Effect.Effect<ParseOptions & ScrapeOptions, RequestError> =>
  Effect.gen(function* () {
    const raw =
      json === undefined || json.trim() === ""
        ? {}
        : yield* Effect.try({
            try: () => JSON.parse(json) as unknown,
            catch: () => new RequestError({ reason: "InvalidJson", message: "The options field is not valid JSON." }),
          })
    const options = yield* decode(raw)
    const unsupported = unsupportedOption(options)
    if (unsupported !== undefined)
      return yield* new RequestError({
        reason: "Validation",
        code: "PARSE_UNSUPPORTED_OPTIONS",
        message: `Parse uploads do not support ${unsupported}.`,
      })
    return options
  })
