/** `webdata scrape <url>`: markdown to stdout, or the formats / whole document asked for. */
import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import type { Document } from "@webdata/core"
import { Console, Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import { Scraper } from "../Scraper.js"
import { connection, withScraper } from "./connection.js"
import { formatsOf, scrapeFlags, scrapeOptionsOf } from "./scrapeFlags.js"

const url = Args.text({ name: "url" }).pipe(
  Args.withDescription("The page to scrape (http:// is assumed without a scheme)"),
)

/** `--json`: the whole document instead of its formats (scrape and parse). */
export const jsonFlag = Options.boolean("json").pipe(
  Options.withDescription("Print the whole document (metadata included) as JSON"),
)

const options = {
  url,
  ...scrapeFlags,
  json: jsonFlag,
  output: Options.file("output").pipe(
    Options.withAlias("o"),
    Options.optional,
    Options.withDescription("Write to this file instead of stdout"),
  ),
  screenshot: Options.file("screenshot").pipe(
    Options.optional,
    Options.withDescription("Write a screenshot of the page to this file (PNG; JPEG for .jpg/.jpeg), in the browser"),
  ),
  fullPage: Options.boolean("full-page").pipe(
    Options.withDescription("With --screenshot: the whole page rather than the viewport"),
  ),
  ...connection,
}

/** What to print: one requested field as text, or JSON when several fields or the whole document are wanted. */
export const render = (document: Document, formats: ReadonlyArray<string>, json: boolean): string => {
  if (json || formats.length > 1) return JSON.stringify(document, null, 2)
  const only = formats[0] ?? "markdown"
  const value = document[only as keyof Document]
  if (Array.isArray(value)) return value.join("\n")
  return typeof value === "string" ? value : JSON.stringify(value, null, 2)
}

/** The screenshot's `data:` URL as the image file it stands for. */
const writeScreenshot = (path: string, dataUrl: string | undefined) =>
  Effect.gen(function* () {
    const base64 = dataUrl?.match(/^data:image\/[a-z]+;base64,(.*)$/)?.[1]
    if (base64 === undefined) return yield* Effect.fail(new CliFailure("The page came back without a screenshot"))
    const fs = yield* FileSystem.FileSystem
    yield* fs
      .writeFile(path, Buffer.from(base64, "base64"))
      .pipe(Effect.mapError((error) => new CliFailure(`Cannot write ${path}: ${error.message}`)))
  })

export const scrapeCommand = Command.make("scrape", options, (args) =>
  withScraper(
    args,
    Effect.gen(function* () {
      const scraper = yield* Scraper
      const requested = yield* scrapeOptionsOf(args)
      const shot = Option.map(args.screenshot, (path) => ({
        path,
        format: {
          type: "screenshot" as const,
          fullPage: args.fullPage,
          ...(/\.jpe?g$/i.test(path) ? { quality: 80 } : {}),
        },
      }))
      const document = yield* scraper.scrape(
        args.url,
        Option.match(shot, {
          onNone: () => requested,
          onSome: ({ format }) => ({ ...requested, formats: [...(requested.formats ?? []), format] }),
        }),
      )
      if (Option.isSome(shot)) yield* writeScreenshot(shot.value.path, document.screenshot)
      const text = render(document, formatsOf(args), args.json)
      yield* Option.match(args.output, {
        onNone: () => Console.log(text),
        onSome: (path) =>
          FileSystem.FileSystem.pipe(
            Effect.flatMap((fs) => fs.writeFileString(path, text.endsWith("\n") ? text : `${text}\n`)),
            Effect.mapError((error) => new CliFailure(`Cannot write ${path}: ${error.message}`)),
          ),
      })
    }),
  ),
).pipe(Command.withDescription("Scrape one page and print it as markdown (or other formats)"))
