/** `webdata batch <file>`: scrape a list of URLs (one per line) and print (or write) every page. */

import { text } from "node:stream/consumers"
import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { CliFailure } from "../CliFailure.js"
import { withJobClient } from "../JobClient.js"
import { outputFlags } from "../PageOutput.js"
import { runJob } from "../RunJob.js"
import { connection } from "./connection.js"
import { some, when } from "./fields.js"
import { formatsOf, scrapeFlags, scrapeOptionsOf } from "./scrapeFlags.js"

const options = {
  file: Args.text({ name: "file" }).pipe(
    Args.withDescription(
      "File with one URL per line (blank lines and # comments are skipped); - reads stdin (options go before it)",
    ),
  ),
  ignoreInvalidUrls: Options.boolean("ignore-invalid-urls").pipe(
    Options.withDescription("Skip invalid URLs (listed on stderr) instead of failing"),
  ),
  maxConcurrency: Options.integer("max-concurrency").pipe(
    Options.optional,
    Options.withDescription("Pages of this batch fetched at once"),
  ),
  ...scrapeFlags,
  ...outputFlags,
  ...connection,
}

/** The URLs of a list with their 1-based line numbers: trimmed; blank lines and `#` comments skipped. */
const listEntries = (content: string) =>
  content
    .split(/\r?\n/)
    .map((text, index) => ({ url: text.trim(), line: index + 1 }))
    .filter(({ url }) => url !== "" && !url.startsWith("#"))

/** The URLs of a list: one per line, trimmed; blank lines and `#` comments skipped. */
export const parseUrlList = (content: string): Array<string> => listEntries(content).map(({ url }) => url)

/** The first line of a list whose URL the API would refuse. */
const firstInvalidLine = (content: string) =>
  Effect.map(
    Effect.promise(() => import("@webdata/core/engine")),
    ({ urlProblem }) =>
      listEntries(content)
        .map((entry) => ({ ...entry, problem: urlProblem(entry.url) }))
        .find((entry) => entry.problem !== undefined),
  )

const readList = (file: string) =>
  file === "-"
    ? Effect.tryPromise({
        try: () => text(process.stdin),
        catch: (error) => new CliFailure(`Cannot read stdin: ${(error as Error).message}`),
      })
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
        Effect.mapError((error) => new CliFailure(`Cannot read ${file}: ${error.message}`)),
      )

export const batchCommand = Command.make("batch", options, (args) =>
  withJobClient(
    args,
    Effect.gen(function* () {
      const content = yield* readList(args.file)
      const source = args.file === "-" ? "stdin" : args.file
      const urls = parseUrlList(content)
      const first = urls[0]
      if (first === undefined) return yield* Effect.fail(new CliFailure(`No URLs in ${source}`))
      // The API would name the list's index; a line number is what the user can find in the file.
      const bad = args.ignoreInvalidUrls ? undefined : yield* firstInvalidLine(content)
      if (bad !== undefined)
        return yield* Effect.fail(new CliFailure(`${source} line ${bad.line}: ${bad.problem}: ${bad.url}`))
      yield* runJob(
        "batch",
        {
          urls,
          ...(yield* scrapeOptionsOf(args)),
          ...when("ignoreInvalidURLs", args.ignoreInvalidUrls),
          ...some("maxConcurrency", args.maxConcurrency),
        },
        { jsonl: args.jsonl, output: args.output, formats: formatsOf(args), startUrl: first },
      )
    }),
  ),
).pipe(
  Command.withDescription(
    "Scrape every URL of a list: print each page as markdown (or --jsonl, or -o dir); Ctrl-C cancels",
  ),
)
