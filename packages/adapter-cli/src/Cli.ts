/**
 * The `webdata` command line: its commands and how failures end the process. The CLI imports modules of
 * `@effect/platform` and `@effect/platform-node` by their own paths: the packages' indexes load every module (the HTTP
 * server, cluster, RPC, SQL), which made up a third of start-up.
 */
import { createRequire } from "node:module"
import { Command, HelpDoc, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Context, Effect, Exit, Option } from "effect"
import { CliFailure } from "./CliFailure.js"
import { agentCommand } from "./commands/agent.js"
import { batchCommand } from "./commands/batch.js"
import { crawlCommand } from "./commands/crawl.js"
import { extractCommand } from "./commands/extract.js"
import { llmstxtCommand } from "./commands/llmstxt.js"
import { mapCommand } from "./commands/map.js"
import { monitorCommand } from "./commands/monitor.js"
import { parseCommand } from "./commands/parse.js"
import { scrapeCommand } from "./commands/scrape.js"
import { searchCommand } from "./commands/search.js"
import { serveCommand } from "./commands/serve.js"
import { sessionCommand } from "./commands/session.js"
import { workerCommand } from "./commands/worker.js"
import { CliInterrupted } from "./Signals.js"
import { firstLine, makeTerminal } from "./Terminal.js"

/** Tells the terminal that a command runs: from then on, what goes to stderr is the command's. */
class CommandStarted extends Context.Tag("@webdata/adapter-cli/CommandStarted")<
  CommandStarted,
  Effect.Effect<void>
>() {}

const tracked = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>) =>
  Command.transformHandler(command, (handler) => Effect.zipRight(Effect.flatten(CommandStarted), handler))

export const webdata = Command.make("webdata").pipe(
  Command.withDescription(
    "Turn web pages into clean data: scrape, crawl, batch scrape and map to markdown, search the web, extract structured data, generate a site's llms.txt, run an agent, monitor pages for changes, serve the Firecrawl-compatible API",
  ),
  Command.withSubcommands([
    tracked(scrapeCommand),
    tracked(parseCommand),
    tracked(crawlCommand),
    tracked(batchCommand),
    tracked(mapCommand),
    tracked(searchCommand),
    tracked(extractCommand),
    tracked(llmstxtCommand),
    tracked(agentCommand),
    tracked(monitorCommand),
    tracked(sessionCommand),
    tracked(serveCommand),
    tracked(workerCommand),
  ]),
)

// The packages share one version; reading it here keeps `--version` and `--help` from loading the engine.
const { version } = createRequire(import.meta.url)("../package.json") as { readonly version: string }

const cli = Command.run(webdata, { name: "webdata", version })

/** Runs the CLI on `argv` (as `process.argv`) and resolves with the exit code. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const terminal = makeTerminal()
  const say = (line: string) => Effect.runPromise(Console.error(line).pipe(Effect.withConsole(terminal.console)))
  const exit = await Effect.runPromiseExit(
    cli(argv).pipe(
      Effect.provide(NodeContext.layer),
      Effect.provideService(CommandStarted, terminal.started),
      Effect.withConsole(terminal.console),
    ),
  )
  await Effect.runPromise(terminal.started)
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    // @effect/cli wrote a help document for it (held back): one line instead.
    if (ValidationError.isValidationError(failure.value)) {
      const doc = "error" in failure.value ? HelpDoc.toAnsiText(failure.value.error) : terminal.held()
      await say(`webdata: ${firstLine(doc)} (see webdata --help)`)
      return 1
    }
    if (failure.value instanceof CliFailure) {
      for (const line of failure.value.message.split("\n")) await say(`webdata: ${line}`)
      return failure.value instanceof CliInterrupted ? 130 : 1
    }
  }
  const squashed = Cause.squash(exit.cause)
  await say(`webdata: ${squashed instanceof Error ? squashed.message.split("\n")[0] : String(squashed)}`)
  return 1
}
