/**
 * How long a stopping process lets what it runs finish: the worker's running tasks, and a server's open requests.
 * One setting for both, `WEBDATA_SHUTDOWN_GRACE_MS`, since a deployment's stop timeout bounds them together.
 */
import { Config } from "effect"

export const DEFAULT_MS = 10_000

/** `WEBDATA_SHUTDOWN_GRACE_MS`, default 10 s. */
export const config: Config.Config<number> = Config.integer("WEBDATA_SHUTDOWN_GRACE_MS").pipe(
  Config.validate({ message: "must be 0 or more", validation: (ms) => ms >= 0 }),
  Config.withDefault(DEFAULT_MS),
)
