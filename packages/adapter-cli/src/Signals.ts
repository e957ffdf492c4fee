/** Waiting for the user's Ctrl-C (or a supervisor's SIGTERM), and the failure that ends the CLI with status 130. */
import { Console, Effect } from "effect"
import { CliFailure } from "./CliFailure.js"

/** The command was stopped by a signal; the CLI exits with 130, as shells do for Ctrl-C. */
export class CliInterrupted extends CliFailure {}

/**
 * Resolves with the first of `signals`. While it waits the signals no longer end the process; each handler is
 * removed once one fired (or the wait is interrupted), so a second Ctrl-C kills a process that is slow to stop.
 */
export const waitForSignal = (signals: ReadonlyArray<NodeJS.Signals>): Effect.Effect<NodeJS.Signals> =>
  Effect.async<NodeJS.Signals>((resume) => {
    const handlers = signals.map((signal) => {
      const handler = () => {
        remove()
        resume(Effect.succeed(signal))
      }
      return [signal, handler] as const
    })
    const remove = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler)
    }
    for (const [signal, handler] of handlers) process.once(signal, handler)
    return Effect.sync(remove)
  })

/**
 * Ctrl-C while a job is followed: runs `stop` (cancelling the job; a failure to is reported, not fatal), then fails
 * with `message`, which the CLI prints before exiting with 130. Raced against the following, it ends with it.
 */
export const stopOnCtrlC = (
  stop: Effect.Effect<void, CliFailure>,
  message: string,
): Effect.Effect<never, CliInterrupted> =>
  waitForSignal(["SIGINT"]).pipe(
    Effect.zipRight(
      stop.pipe(Effect.catchAll((error) => Console.error(`webdata: could not cancel: ${error.message}`))),
    ),
    Effect.zipRight(Effect.fail(new CliInterrupted(message))),
  )
