/**
 * Output formats of a scrape. Each may be sent as a string (`"markdown"`) or an object (`{ "type": "markdown" }`);
 * both decode to the object form. Formats that need a capability this build lacks are accepted by the schema and
 * refused by the scrape service with a clear 400 (see `Scrape/Capabilities.ts`).
 */
import { Schema } from "effect"
import { compileIgnore } from "../ChangeTracking/Normalize.js"
import { schemaProblem } from "./JsonSchema.js"

/** A JSON Schema for a model: Firecrawl refuses objects that allow any property but list none. */
export const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
  .pipe(Schema.filter((schema) => schemaProblem(schema) ?? true))
  .annotations({ description: "A JSON Schema" })
const Prompt = Schema.String.pipe(Schema.maxLength(10_000))
const Viewport = Schema.Struct({
  width: Schema.Int.pipe(Schema.between(1, 7680)),
  height: Schema.Int.pipe(Schema.between(1, 4320)),
})

const plain = <T extends string>(type: T) => Schema.Struct({ type: Schema.Literal(type) })

export const MarkdownFormat = plain("markdown")
export const HtmlFormat = plain("html")
export const RawHtmlFormat = plain("rawHtml")
export const LinksFormat = plain("links")
export const ImagesFormat = plain("images")
export const SummaryFormat = plain("summary")
export const BrandingFormat = plain("branding")
export const ProductFormat = plain("product")
export const MenuFormat = plain("menu")
export const AudioFormat = plain("audio")
export const VideoFormat = plain("video")
export const RawBase64Format = plain("rawBase64")
export const ScreenshotFormat = Schema.Struct({
  type: Schema.Literal("screenshot"),
  fullPage: Schema.optional(Schema.Boolean),
  quality: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))),
  viewport: Schema.optional(Viewport),
})
export const JsonFormat = Schema.Struct({
  type: Schema.Literal("json"),
  schema: Schema.optional(JsonSchemaObject),
  prompt: Schema.optional(Prompt),
})
export const DeterministicJsonFormat = Schema.Struct({
  type: Schema.Literal("deterministicJson"),
  schema: Schema.optional(JsonSchemaObject),
  prompt: Schema.optional(Prompt),
})
export const ChangeTrackingFormat = Schema.Struct({
  type: Schema.Literal("changeTracking"),
  modes: Schema.optional(Schema.Array(Schema.Literal("git-diff", "json"))),
  schema: Schema.optional(JsonSchemaObject),
  prompt: Schema.optional(Prompt),
  tag: Schema.optional(Schema.NullOr(Schema.String)),
  /** webdata's own: RE2 patterns whose matches are left out of the comparison (a rotating timestamp, a counter). */
  ignore: Schema.optional(
    Schema.Array(Schema.String).pipe(
      Schema.filter((patterns) => {
        const compiled = compileIgnore(patterns)
        return compiled.ok || `Invalid ignore pattern ${JSON.stringify(compiled.pattern)}: ${compiled.message}`
      }),
    ),
  ),
})
export const AttributesFormat = Schema.Struct({
  type: Schema.Literal("attributes"),
  selectors: Schema.Array(Schema.Struct({ selector: Schema.String, attribute: Schema.String })),
})
export const QuestionFormat = Schema.Struct({
  type: Schema.Literal("question"),
  question: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)),
})
export const HighlightsFormat = Schema.Struct({
  type: Schema.Literal("highlights"),
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)),
})
export const QueryFormat = Schema.Struct({
  type: Schema.Literal("query"),
  prompt: Prompt,
  mode: Schema.optional(Schema.Literal("freeform", "directQuote")),
})

export const FormatObject = Schema.Union(
  MarkdownFormat,
  HtmlFormat,
  RawHtmlFormat,
  LinksFormat,
  ImagesFormat,
  SummaryFormat,
  ScreenshotFormat,
  JsonFormat,
  DeterministicJsonFormat,
  ChangeTrackingFormat,
  BrandingFormat,
  AttributesFormat,
  ProductFormat,
  MenuFormat,
  QuestionFormat,
  HighlightsFormat,
  QueryFormat,
  AudioFormat,
  VideoFormat,
  RawBase64Format,
).annotations({ identifier: "FormatObject" })
export type Format = typeof FormatObject.Type
export type FormatType = Format["type"]

/** The string shorthand: `"markdown"` means `{ "type": "markdown" }`. */
const FormatName = Schema.transform(
  Schema.String.annotations({ description: "A format name, shorthand for { type: name }" }),
  FormatObject,
  { strict: false, decode: (type) => ({ type }), encode: (format) => format.type },
)

export const FormatInput = Schema.Union(FormatObject, FormatName)

export const Formats = Schema.Array(FormatInput).pipe(
  Schema.filter((formats) => {
    const types = formats.map((format) => format.type)
    if (types.filter((type) => type === "screenshot").length > 1) return "You may only specify one screenshot format"
    if (types.includes("changeTracking") && !types.includes("markdown"))
      return "The changeTracking format requires the markdown format to be specified as well"
    const tracking = formats.find((format) => format.type === "changeTracking")
    if (
      tracking?.type === "changeTracking" &&
      (tracking.schema !== undefined || tracking.prompt !== undefined) &&
      types.includes("json")
    )
      return "Give change tracking's schema or prompt either in the changeTracking format or in the json format, not in both"
    if (types.includes("json") && types.includes("deterministicJson"))
      return "You may not specify both json and deterministicJson formats"
    if (types.includes("rawBase64") && types.length > 1) return "The rawBase64 format must be the only format"
    return true
  }),
)

export const DEFAULT_FORMATS: ReadonlyArray<Format> = [{ type: "markdown" }]

export { hasFormat } from "./HasFormat.js"
