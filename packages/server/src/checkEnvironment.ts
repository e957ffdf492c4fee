import { Settings } from "@webdata/core"

/**
 * Checks every variable the project reads (`Settings` of core) before anything starts: a bad value ends the process
 * with exit code 1 and one line per variable naming it and what is wrong. A `WEBDATA_` name that is no setting is
 * most likely misspelt: it is reported, and ignored.
 */
export const checkEnvironment = (env: NodeJS.ProcessEnv = process.env): void => {
  const problems = Settings.problems(env)
  for (const problem of problems) console.error(`webdata: ${problem.message}`)
  if (problems.length > 0) process.exit(1)
  for (const name of Settings.unknownNames(env))
    console.warn(`webdata: ${name} is not a setting (ignored); the settings are in docs/configuration.md`)
}
