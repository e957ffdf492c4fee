/**
 * The formats a language model answers — `summary`, `json` and the `onlyCleanContent` pass — added to a built
 * document. With a model they go to it; without one, `summary` is an extractive summary of the main content and
 * `json` with a schema is filled by the offline extractor from the page's structured data (JSON-LD, microdata, RDFa,
 * meta tags, tables, labelled text). Which one answered is in the metadata (`summaryMode`, `jsonMode`), and the tokens
 * a model used in `llmUsage`.
 */
import { Effect, Option } from "effect"
import type { Document } from "../Domain/Document.js"
import type { JsonFormat } from "../Domain/Formats.js"
import { hasFormat } from "../Domain/HasFormat.js"
import { prepareSchema } from "../Domain/JsonSchema.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { LlmError } from "../Errors.js"
import { extractiveSummary } from "../Extract/Offline/ExtractiveSummary.js"
import type { Owner } from "../Jobs/Owner.js"
import { addUsage, type JsonSchema, Llm, NO_USAGE, type TokenUsage } from "../Llm/Llm.js"
import { LlmUsage } from "../Llm/LlmUsage.js"
import type { BuildExtras } from "./BuildDocument.js"

/** What the formats read besides the document: the page's body (HTML for the offline extractor) and type. */
export interface PageSource {
  readonly url: string
  readonly body: string
  readonly contentType: string | undefined
}

const JSON_SYSTEM =
  "You extract structured data from a web page. Use only what the page says; leave out (or set to null) what it does not give. Never invent values."
const SUMMARY_SYSTEM = "You summarise web pages faithfully and briefly, in the page's language."
const CLEAN_SYSTEM =
  "You clean up the markdown of a web page: remove navigation, cookie notices, ads, sharing buttons and other boilerplate; keep the main content exactly as written, in markdown. Answer with the cleaned markdown only."

/** Whether the options ask for anything this module answers. */
export const wantsLlmFormats = (options: ScrapeOptions): boolean =>
  hasFormat(options.formats, "summary") || hasFormat(options.formats, "json") || options.onlyCleanContent === true

export interface LlmFormats {
  /**
   * The document with the model's formats added. `document.markdown` must be there (the caller builds it even when
   * it was not asked for, and removes it after).
   */
  readonly apply: (
    options: ScrapeOptions,
    page: PageSource,
    document: Document,
    owner: Owner,
  ) => Effect.Effect<Document, LlmError>
  /** Without a model: the schema the offline extractor fills as the document is built, if `json` is asked for. */
  readonly offlineJsonOf: (options: ScrapeOptions) => JsonSchema | undefined
}

type JsonRequest = typeof JsonFormat.Type

/** The formats over the model in the context, if any (services built after it, scrape and parse, make theirs). */
export const makeLlmFormats: Effect.Effect<LlmFormats> = Effect.gen(function* () {
  const model = Option.getOrUndefined(yield* Effect.serviceOption(Llm))
  const meter = Option.getOrUndefined(yield* Effect.serviceOption(LlmUsage))

  const apply = Effect.fn("LlmFormats.apply")(function* (
    options: ScrapeOptions,
    page: PageSource,
    document: Document,
    owner: Owner,
  ) {
    const json = options.formats.find((format): format is JsonRequest => format.type === "json")
    const summary = hasFormat(options.formats, "summary")
    const markdown = document.markdown ?? ""
    if (model === undefined) {
      if (summary) {
        document.summary = extractiveSummary(markdown)
        document.metadata = { ...document.metadata, summaryMode: "extractive" }
      }
      // json was filled offline as the document was built (`offlineJsonOf`).
      return document
    }
    let usage: TokenUsage = NO_USAGE
    let content = markdown
    if (options.onlyCleanContent === true && markdown.trim() !== "") {
      const cleaned = yield* model.generateText({
        system: CLEAN_SYSTEM,
        prompt: "Clean up this page's markdown.",
        content: markdown,
      })
      usage = addUsage(usage, cleaned.usage)
      content = cleaned.value.trim()
      if (document.markdown !== undefined) document.markdown = content
    }
    const pageLine = `The page is ${page.url}.`
    // A schema-less json format asks for any object the prompt describes.
    const prepared = json?.schema === undefined ? undefined : prepareSchema(json.schema)
    const asked = yield* Effect.all(
      {
        summary: summary
          ? model.generateText({
              system: SUMMARY_SYSTEM,
              prompt: `${pageLine} Summarise it in a short paragraph.`,
              content,
            })
          : Effect.succeed(undefined),
        json:
          json === undefined
            ? Effect.succeed(undefined)
            : model.generateObject({
                system: JSON_SYSTEM,
                prompt: `${pageLine} ${json.prompt ?? "Extract the data the schema describes."}`,
                content,
                schema: prepared?.schema ?? { type: "object" },
                objectName: "extract",
              }),
      },
      { concurrency: 2 },
    )
    if (asked.summary !== undefined) {
      document.summary = asked.summary.value.trim()
      usage = addUsage(usage, asked.summary.usage)
    }
    if (asked.json !== undefined) {
      document.json = prepared === undefined ? asked.json.value : prepared.unwrap(asked.json.value)
      usage = addUsage(usage, asked.json.usage)
    }
    document.metadata = {
      ...document.metadata,
      ...(summary ? { summaryMode: "model" } : {}),
      ...(json !== undefined ? { jsonMode: "model" } : {}),
      llmUsage: { model: model.model, ...usage },
    }
    if (meter !== undefined) yield* meter.record(owner, usage)
    return document
  })

  return {
    apply,
    offlineJsonOf: (options: ScrapeOptions) =>
      model === undefined
        ? options.formats.find((format): format is JsonRequest => format.type === "json")?.schema
        : undefined,
  }
})

/**
 * `build` for options that may ask for the model's formats: markdown is built for them when not asked for (and
 * removed after), then the formats are added.
 */
export const withLlmFormats =
  <E, R>(formats: LlmFormats, build: (options: ScrapeOptions, extras: BuildExtras) => Effect.Effect<Document, E, R>) =>
  (options: ScrapeOptions, page: PageSource, owner: Owner): Effect.Effect<Document, E | LlmError, R> => {
    if (!wantsLlmFormats(options)) return build(options, {})
    const asked = hasFormat(options.formats, "markdown")
    const extras = { offlineJson: formats.offlineJsonOf(options) }
    return build(asked ? options : { ...options, formats: [...options.formats, { type: "markdown" }] }, extras).pipe(
      Effect.flatMap((document) => formats.apply(options, page, document, owner)),
      Effect.map((document) => {
        if (!asked) delete document.markdown
        return document
      }),
    )
  }
