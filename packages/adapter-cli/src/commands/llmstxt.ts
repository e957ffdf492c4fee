/** `webdata llmstxt <url>`: the llms.txt file of a site (or llms-full.txt with `--full`), printed as text. */
import { Args, Command, Options } from "@effect/cli"
import { Option } from "effect"
import { runLlmsTxt } from "../FollowRun.js"
import { withJobClient } from "../JobClient.js"
import { connection } from "./connection.js"
import { some, when } from "./fields.js"

const options = {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("The site's start page (http:// is assumed)")),
  maxUrls: Options.integer("max-urls").pipe(
    Options.optional,
    Options.withDescription("Pages the file lists at most, the start page included (default 10, at most 100)"),
  ),
  full: Options.boolean("full").pipe(
    Options.withDescription("Print llms-full.txt (every listed page's markdown) instead of llms.txt"),
  ),
  noCache: Options.boolean("no-cache").pipe(
    Options.withDescription("Read every page afresh instead of reusing pages scraped in the last two days"),
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription(
      "Print the whole status answer (the file, with --full llms-full.txt too, warnings, usage) as JSON",
    ),
  ),
  ...connection,
}

export const llmstxtCommand = Command.make("llmstxt", options, (args) =>
  withJobClient(
    args,
    runLlmsTxt(
      {
        url: args.url,
        ...some("maxUrls", args.maxUrls),
        ...when("showFullText", args.full),
        // Only a refusal is sent: the engine's (or server's) default is to reuse cached pages.
        ...(args.noCache ? { cache: false } : {}),
      },
      { json: args.json, full: args.full, remote: Option.isSome(args.apiUrl) },
    ),
  ),
).pipe(
  Command.withDescription(
    "Generate a site's llms.txt (a titled list of its pages, each with a one-line description) and print it",
  ),
)
