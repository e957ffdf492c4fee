/** `webdata agent "<prompt>"`: a model reaches a goal by searching, mapping and reading pages; its steps on stderr. */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { runAgent } from "../FollowRun.js"
import { withJobClient } from "../JobClient.js"
import { connection } from "./connection.js"
import { list, some, when } from "./fields.js"
import { readSchemaFile, schemaOption } from "./schemaFile.js"

const options = {
  prompt: Args.text({ name: "prompt" }).pipe(Args.withDescription("The goal, in words")),
  url: Options.text("url").pipe(
    Options.repeated,
    Options.withDescription("A URL to start from (repeatable; a trailing /* stands for the pages under a path)"),
  ),
  schema: schemaOption("JSON Schema file the final data must match"),
  maxCredits: Options.integer("max-credits").pipe(
    Options.optional,
    Options.withDescription(
      "Budget of the run: one credit per page read, map or search, and one per 1000 model tokens (default 2500)",
    ),
  ),
  strict: Options.boolean("strict").pipe(
    Options.withDescription("Read only the --url pages (and those under a /* one)"),
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the whole status answer (steps, credits, tokens) instead of the data"),
  ),
  ...connection,
}

export const agentCommand = Command.make("agent", options, (args) =>
  Effect.gen(function* () {
    const schema = yield* readSchemaFile(args.schema)
    const body = {
      prompt: args.prompt,
      ...list("urls", args.url),
      ...(schema !== undefined ? { schema } : {}),
      ...some("maxCredits", args.maxCredits),
      ...when("strictConstrainToURLs", args.strict),
    }
    yield* withJobClient(args, runAgent(body, { json: args.json }))
  }),
).pipe(
  Command.withDescription(
    "Run an agent toward a goal (it needs a language model): its steps on stderr as they happen, then its data as JSON; Ctrl-C cancels",
  ),
)
