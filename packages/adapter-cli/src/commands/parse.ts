/** `webdata parse <file...>`: files (PDF, DOCX, XLSX, PPTX, ODT, EPUB, RTF, CSV, ...) to markdown or other formats. */
import { basename } from "node:path"
import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import type { ParseOptionsInput } from "@webdata/core"
import { Console, Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import { makeSink, outputFlags } from "../PageOutput.js"
import { Scraper } from "../Scraper.js"
import { connection, withScraper } from "./connection.js"
import { some, when } from "./fields.js"
import { jsonFlag, render } from "./scrape.js"
import { scrapeFlags, splitList } from "./scrapeFlags.js"

const options = {
  files: Args.file({ name: "file", exists: "yes" }).pipe(Args.atLeast(1), Args.withDescription("Files to parse")),
  format: scrapeFlags.format,
  json: jsonFlag,
  ...outputFlags,
  pdfMode: Options.choice("pdf-mode", ["fast", "auto", "ocr"]).pipe(
    Options.optional,
    Options.withDescription(
      "PDFs: fast (text layer only), auto (OCR for pages without text; default), ocr (every page)",
    ),
  ),
  maxPages: Options.integer("max-pages").pipe(
    Options.optional,
    Options.withDescription("PDFs: read at most this many pages"),
  ),
  pageMarkers: Options.boolean("page-markers").pipe(
    Options.withDescription("PDFs: mark page breaks in the markdown (<!-- page N -->)"),
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Most milliseconds one file may take (default 30000)"),
  ),
  ...connection,
}

export const parseCommand = Command.make("parse", options, (args) =>
  withScraper(
    args,
    Effect.gen(function* () {
      const scraper = yield* Scraper
      const fs = yield* FileSystem.FileSystem
      const formats = args.format.length > 0 ? splitList(args.format) : ["markdown"]
      const pdf = {
        type: "pdf" as const,
        ...some("mode", args.pdfMode),
        ...some("maxPages", args.maxPages),
        ...when("pageMarkers", args.pageMarkers),
      }
      const request = {
        formats: formats as ParseOptionsInput["formats"],
        ...(Object.keys(pdf).length > 1 ? { parsers: [pdf] } : {}),
        ...some("timeout", args.timeout),
      } as ParseOptionsInput
      const single = args.files.length === 1 && Option.isNone(args.output) && !args.jsonl
      const sink = single
        ? undefined
        : yield* makeSink({ jsonl: args.jsonl, output: args.output, formats, startUrl: "file:///" })
      for (const path of args.files) {
        const bytes = yield* fs
          .readFile(path)
          .pipe(Effect.mapError((error) => new CliFailure(`Cannot read ${path}: ${error.message}`)))
        const document = yield* scraper.parse({ bytes, name: basename(path) }, request)
        if (sink !== undefined) yield* sink.write(document)
        else yield* Console.log(render(document, formats, args.json))
      }
    }),
  ),
).pipe(Command.withDescription("Parse files (PDF, Office, OpenDocument, EPUB, RTF, CSV, ...) into markdown"))
