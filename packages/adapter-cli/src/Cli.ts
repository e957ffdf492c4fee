/** The `webdata` command line: its commands and how failures end the process. */
import { Command, ValidationError } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { VERSION } from "@webdata/core"
import { Cause, Console, Effect, Exit, Option } from "effect"
import { batchCommand } from "./commands/batch.js"
import { crawlCommand } from "./commands/crawl.js"
import { mapCommand } from "./commands/map.js"
import { scrapeCommand } from "./commands/scrape.js"
import { serveCommand } from "./commands/serve.js"
import { workerCommand } from "./commands/worker.js"
import { CliFailure } from "./Scraper.js"
import { CliInterrupted } from "./Signals.js"

export const webdata = Command.make("webdata").pipe(
  Command.withDescription(
    "Turn web pages into clean data: scrape, crawl, batch scrape and map to markdown, serve the Firecrawl-compatible API",
  ),
  Command.withSubcommands([scrapeCommand, crawlCommand, batchCommand, mapCommand, serveCommand, workerCommand]),
)

const cli = Command.run(webdata, { name: "webdata", version: VERSION })

/** Runs the CLI on `argv` (as `process.argv`) and resolves with the exit code. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const exit = await Effect.runPromiseExit(cli(argv).pipe(Effect.provide(NodeContext.layer)))
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    // @effect/cli has already printed usage problems together with the help.
    if (ValidationError.isValidationError(failure.value)) return 1
    if (failure.value instanceof CliFailure) {
      await Effect.runPromise(Console.error(`webdata: ${failure.value.message}`))
      return failure.value instanceof CliInterrupted ? 130 : 1
    }
  }
  const squashed = Cause.squash(exit.cause)
  await Effect.runPromise(
    Console.error(`webdata: ${squashed instanceof Error ? squashed.message.split("\n")[0] : String(squashed)}`),
  )
  return 1
}
