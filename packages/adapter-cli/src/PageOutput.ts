/**
 * Where the pages of a crawl or batch scrape go: stdout as text with a `==> url <==` line before each page (the
 * convention of `head` and `tail` for several files), stdout as JSON lines (`--jsonl`), or one file per page in a
 * directory (`-o dir`).
 */
import { join } from "node:path"
import { Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import type { Document } from "@webdata/core"
import { Console, Effect, Option } from "effect"
import { CliFailure } from "./CliFailure.js"
import { render } from "./commands/scrape.js"
import { makeNamer } from "./FileNames.js"

export const outputFlags = {
  jsonl: Options.boolean("jsonl").pipe(
    Options.withDescription("Print each page's whole document as one line of JSON, as pages arrive"),
  ),
  output: Options.directory("output").pipe(
    Options.withAlias("o"),
    Options.optional,
    Options.withDescription("Write one file per page into this directory (created if missing), named after its URL"),
  ),
}

export interface OutputChoice {
  readonly jsonl: boolean
  readonly output: Option.Option<string>
  readonly formats: ReadonlyArray<string>
  /** The crawl's start URL (or the batch's first), whose host page file names leave out. */
  readonly startUrl: string
}

export interface PageSink {
  readonly write: (document: Document) => Effect.Effect<void, CliFailure>
  /** The directory written to, if any. */
  readonly directory?: string
}

/** The page's URL as it was asked for (the final URL after redirects is in `metadata.url`). */
export const urlOf = (document: Document): string => document.metadata.sourceURL || document.metadata.url

const EXTENSIONS: Record<string, string> = { markdown: "md", html: "html", rawHtml: "html" }

/** Several formats are written as the whole document in JSON, as `render` does. */
const extensionOf = (formats: ReadonlyArray<string>): string =>
  formats.length === 1 ? (EXTENSIONS[formats[0] ?? ""] ?? "txt") : "json"

const toDirectory = (directory: string, choice: OutputChoice) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs
      .makeDirectory(directory, { recursive: true })
      .pipe(Effect.mapError((error) => new CliFailure(`Cannot create ${directory}: ${error.message}`)))
    const nameFor = makeNamer(choice.startUrl)
    const extension = extensionOf(choice.formats)
    return {
      directory,
      write: (document) => {
        const url = urlOf(document)
        const path = join(directory, nameFor(url, extension))
        const text = render(document, choice.formats, false)
        return fs.writeFileString(path, text.endsWith("\n") ? text : `${text}\n`).pipe(
          Effect.mapError((error) => new CliFailure(`Cannot write ${path}: ${error.message}`)),
          Effect.zipRight(Console.log(`${path}\t${url}`)),
        )
      },
    } satisfies PageSink
  })

export const makeSink = (choice: OutputChoice): Effect.Effect<PageSink, CliFailure, FileSystem.FileSystem> => {
  if (choice.jsonl && Option.isSome(choice.output))
    return Effect.fail(new CliFailure("--jsonl prints to stdout; it cannot be combined with --output"))
  if (Option.isSome(choice.output)) return toDirectory(choice.output.value, choice)
  if (choice.jsonl) return Effect.succeed({ write: (document) => Console.log(JSON.stringify(document)) })
  let first = true
  return Effect.succeed({
    write: (document) => {
      const text = render(document, choice.formats, false).trimEnd()
      const separator = first ? "" : "\n"
      first = false
      return Console.log(`${separator}==> ${urlOf(document)} <==\n\n${text}`)
    },
  })
}
