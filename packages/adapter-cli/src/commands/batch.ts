/** `webdata batch <file>`: scrape a list of URLs (one per line) and print (or write) every page. */

import { text } from "node:stream/consumers"
import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { withJobClient } from "../JobClient.js"
import { outputFlags } from "../PageOutput.js"
import { runJob } from "../RunJob.js"
import { CliFailure } from "../Scraper.js"
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

/** The URLs of a list: one per line, trimmed; blank lines and `#` comments skipped. */
export const parseUrlList = (content: string): Array<string> =>
  content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))

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
      const urls = parseUrlList(yield* readList(args.file))
      const first = urls[0]
      if (first === undefined)
        return yield* Effect.fail(new CliFailure(`No URLs in ${args.file === "-" ? "stdin" : args.file}`))
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
