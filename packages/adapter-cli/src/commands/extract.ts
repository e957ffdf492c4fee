/** `webdata extract <url...>`: structured data out of pages, by a JSON Schema and/or a prompt, printed as JSON. */
import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { runExtract } from "../FollowRun.js"
import { withJobClient } from "../JobClient.js"
import { connection } from "./connection.js"
import { some, when } from "./fields.js"
import { readSchemaFile, schemaOption } from "./schemaFile.js"

const options = {
  urls: Args.text({ name: "url" }).pipe(
    Args.atLeast(1),
    Args.withDescription("Pages to read; a trailing /* reads every page under that path (http:// is assumed)"),
  ),
  schema: schemaOption(
    "JSON Schema file of the data to extract; without a language model, the pages' structured data fills it",
  ),
  prompt: Options.text("prompt").pipe(
    Options.optional,
    Options.withDescription("What to extract, in words (needs a language model: WEBDATA_LLM)"),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("Pages to read at most, wildcards expanded (default 50, at most 1000)"),
  ),
  showSources: Options.boolean("show-sources").pipe(
    Options.withDescription("List on stderr which URLs gave each field (in the answer's sources with --json)"),
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the whole status answer (data, warnings, sources, usage) instead of the data"),
  ),
  ...connection,
}

export const extractCommand = Command.make("extract", options, (args) =>
  Effect.gen(function* () {
    if (Option.isNone(args.schema) && Option.isNone(args.prompt))
      return yield* Effect.fail(
        ValidationError.invalidValue(HelpDoc.p("extract needs --schema <file>, --prompt <text>, or both")),
      )
    const schema = yield* readSchemaFile(args.schema)
    const body = {
      urls: args.urls,
      ...some("prompt", args.prompt),
      ...(schema !== undefined ? { schema } : {}),
      ...some("limit", args.limit),
      ...when("showSources", args.showSources),
    }
    yield* withJobClient(
      args,
      runExtract(body, { json: args.json, showSources: args.showSources, remote: Option.isSome(args.apiUrl) }),
    )
  }),
).pipe(
  Command.withDescription(
    "Extract structured data from pages by a JSON Schema (--schema) and/or a prompt, and print it as JSON",
  ),
)
