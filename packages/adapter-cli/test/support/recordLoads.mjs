/**
 * Given to Node with `--import`: appends the URL of every file the process loads as a module to the file
 * `WEBDATA_RECORD_LOADS` names, one a line. Plain JavaScript, since it also runs in the module-hooks thread.
 */
import { appendFileSync } from "node:fs"
import { register } from "node:module"
import { isMainThread } from "node:worker_threads"

if (isMainThread) register(import.meta.url)

export const load = (url, context, next) => {
  const into = process.env.WEBDATA_RECORD_LOADS
  if (into !== undefined && url.startsWith("file:")) appendFileSync(into, `${url}\n`)
  return next(url, context)
}
