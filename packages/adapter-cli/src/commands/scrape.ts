/** `webdata scrape <url>`: markdown to stdout, or the formats / whole document asked for. */
import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import type { Document } from "@webdata/core"
import { Console, Effect, Option } from "effect"
import { CliFailure, Scraper } from "../Scraper.js"
import { connection, withScraper } from "./connection.js"

const url = Args.text({ name: "url" }).pipe(
  Args.withDescription("The page to scrape (http:// is assumed without a scheme)"),
)

const options = {
  url,
  format: Options.text("format").pipe(
    Options.withAlias("f"),
    Options.repeated,
    Options.withDescription("Output format: markdown (default), html, rawHtml, links, images; repeat for several"),
  ),
  json: Options.boolean("json").pipe(Options.withDescription("Print the whole document (metadata included) as JSON")),
  noMainContent: Options.boolean("no-main-content").pipe(
    Options.withDescription("Keep navigation, headers and footers instead of extracting the main content"),
  ),
  includeTags: Options.text("include-tags").pipe(
    Options.repeated,
    Options.withDescription("CSS selector of elements to keep (repeatable; commas separate several)"),
  ),
  excludeTags: Options.text("exclude-tags").pipe(
    Options.repeated,
    Options.withDescription("CSS selector of elements to remove (repeatable; commas separate several)"),
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Timeout of the scrape in milliseconds (default 60000)"),
  ),
  header: Options.text("header").pipe(
    Options.withAlias("H"),
    Options.repeated,
    Options.withDescription('Request header "Name: value" sent to the target (repeatable)'),
  ),
  output: Options.file("output").pipe(
    Options.withAlias("o"),
    Options.optional,
    Options.withDescription("Write to this file instead of stdout"),
  ),
  ...connection,
}

const splitList = (values: ReadonlyArray<string>) =>
  values
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value !== "")

const parseHeaders = (values: ReadonlyArray<string>): Effect.Effect<Record<string, string>, CliFailure> =>
  Effect.forEach(values, (value) => {
    const colon = value.indexOf(":")
    return colon <= 0
      ? Effect.fail(new CliFailure(`Invalid --header "${value}": expected "Name: value"`))
      : Effect.succeed([value.slice(0, colon).trim(), value.slice(colon + 1).trim()] as const)
  }).pipe(Effect.map(Object.fromEntries))

/** What to print: one requested field as text, or JSON when several fields or the whole document are wanted. */
export const render = (document: Document, formats: ReadonlyArray<string>, json: boolean): string => {
  if (json || formats.length > 1) return JSON.stringify(document, null, 2)
  const only = formats[0] ?? "markdown"
  const value = document[only as keyof Document]
  if (Array.isArray(value)) return value.join("\n")
  return typeof value === "string" ? value : JSON.stringify(value, null, 2)
}

export const scrapeCommand = Command.make("scrape", options, (args) =>
  withScraper(
    args,
    Effect.gen(function* () {
      const scraper = yield* Scraper
      const headers = yield* parseHeaders(args.header)
      const includeTags = splitList(args.includeTags)
      const excludeTags = splitList(args.excludeTags)
      const formats = args.format.length > 0 ? splitList(args.format) : ["markdown"]
      const document = yield* scraper.scrape(args.url, {
        formats,
        onlyMainContent: !args.noMainContent,
        ...(includeTags.length > 0 ? { includeTags } : {}),
        ...(excludeTags.length > 0 ? { excludeTags } : {}),
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        ...Option.match(args.timeout, { onNone: () => ({}), onSome: (timeout) => ({ timeout }) }),
      })
      const text = render(document, formats, args.json)
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
