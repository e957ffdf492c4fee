import { Settings } from "@webdata/core"

/**
 * Checks every variable the project reads (`Settings` of core) before anything starts: a bad value ends the process
 * with exit code 1 and one line per variable naming it and what is wrong. A `WEBDATA_` name that is no setting is
 * most likely misspelt: it is reported, and ignored.
 */
export const checkEnvironment = (env: NodeJS.ProcessEnv = process.env): void => {
  const { errors, warnings } = Settings.report(env)
  for (const error of errors) console.error(`webdata: ${error}`)
  if (errors.length > 0) process.exit(1)
  for (const warning of warnings) console.warn(`webdata: ${warning}`)
}
