/**
 * The environment checked as the server checks it at start (`Settings` of core). A function cannot exit with a status
 * that anyone reads: a bad value throws, which fails the container's initialisation with every problem in the error
 * Lambda reports. A `WEBDATA_` name that is no setting is most likely misspelt: it is logged, and ignored.
 */
import { Settings } from "@webdata/core"

export const checkSettings = (env: Readonly<Record<string, string | undefined>> = process.env): void => {
  const { errors, warnings } = Settings.report(env)
  // The lines the server prints, one per problem.
  if (errors.length > 0) throw new Error(errors.map((error) => `webdata: ${error}`).join("\n"))
  for (const warning of warnings) console.warn(`webdata: ${warning}`)
}
