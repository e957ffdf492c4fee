/**
 * The parse service: an uploaded file (bytes, name, type) in, one Document out, through the same file parsers and
 * content pipeline as a scraped file. Nothing is fetched.
 */
import { Context, Effect, Layer, Option } from "effect"
import { v7 as uuidv7 } from "uuid"
import type { Document } from "./Domain/Document.js"
import type { ParseOptions } from "./Domain/ParseOptions.js"
import type { ScrapeOptions } from "./Domain/ScrapeOptions.js"
import { type LlmError, type RequestError, ScrapeError } from "./Errors.js"
import { FileParser } from "./Parse/FileParser.js"
import { readFile } from "./Parse/ReadFile.js"
import { availableEngines, unsupportedOption } from "./Scrape/Capabilities.js"
import { DocumentBuilder } from "./Scrape/DocumentBuilder.js"
import { makeLlmFormats, withLlmFormats } from "./Scrape/LlmFormats.js"
import { LocalIndex, recordDocument } from "./Search/LocalIndex.js"

export interface UploadedFile {
  readonly bytes: Uint8Array
  /** The file's name as uploaded (`report.pdf`); its extension is only a last hint. */
  readonly name: string
  readonly contentType?: string | undefined
}

export class Parse extends Context.Tag("@webdata/core/Parse")<
  Parse,
  {
    /** `owner`: who uploaded the file (the API key's owner digest; default `null`), whose search index gets it. */
    readonly parse: (
      file: UploadedFile,
      options: ParseOptions & ScrapeOptions,
      owner?: string | null,
    ) => Effect.Effect<Document, ScrapeError | RequestError | LlmError>
  }
>() {}

/** The document's URL for an upload: a `file:` URL of its name, so that relative links have a base. */
const fileUrl = (name: string) => `file:///${encodeURIComponent(name.replace(/^.*[\\/]/, "") || "upload")}`

export const make = Effect.gen(function* () {
  const parser = yield* Effect.serviceOption(FileParser)
  const builder = yield* DocumentBuilder
  const engines = yield* availableEngines
  const llmFormats = yield* makeLlmFormats
  const searchIndex = Option.getOrUndefined(yield* Effect.serviceOption(LocalIndex))
  return {
    parse: Effect.fn("Parse.parse")(function* (
      file: UploadedFile,
      options: ParseOptions & ScrapeOptions,
      owner: string | null = null,
    ) {
      // Decoding refused what an upload can never have; what needs a model is refused here, where it is known.
      const unsupported = unsupportedOption(options, { ...engines, browser: false })
      if (unsupported !== undefined) return yield* unsupported
      if (file.bytes.length === 0)
        return yield* new ScrapeError({ reason: "ParseFailed", url: file.name, message: `${file.name} is empty.` })
      const url = fileUrl(file.name)
      const content = yield* readFile(
        { bytes: file.bytes, contentType: file.contentType, name: file.name },
        options,
        parser,
      )
      const page = { url, statusCode: 200, ...content }
      const document = yield* withLlmFormats(llmFormats, (each, extras) =>
        builder.build(each, page, { sourceURL: url, scrapeId: uuidv7(), cacheState: "miss" }, extras),
      )(options, page, null)
      yield* recordDocument(searchIndex, owner, document, {
        zeroDataRetention: options.zeroDataRetention,
        upload: true,
      })
      return document
    }),
  }
})

export const layer: Layer.Layer<Parse, never, DocumentBuilder> = Layer.effect(Parse, make)
