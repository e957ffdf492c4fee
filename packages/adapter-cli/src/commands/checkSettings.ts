/**
 * The environment checked before `serve` or `worker` starts, as `npm start` checks it (`Settings` of core): a bad
 * value fails the command with a line per problem naming the variable; a `WEBDATA_` name that is no setting is only
 * reported.
 */
import { Console, Effect } from "effect"
import { CliFailure } from "../CliFailure.js"

export const checkSettings = (env: NodeJS.ProcessEnv = process.env): Effect.Effect<void, CliFailure> =>
  Effect.gen(function* () {
    // Core loads with the command: `--help` stays without it.
    const { Settings } = yield* Effect.promise(() => import("@webdata/core"))
    const { errors, warnings } = Settings.report(env)
    if (errors.length > 0) return yield* Effect.fail(new CliFailure(errors.join("\n")))
    yield* Effect.forEach(warnings, (warning) => Console.error(`webdata: ${warning}`), { discard: true })
  })
