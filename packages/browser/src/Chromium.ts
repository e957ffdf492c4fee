/** Where the system Chromium is: `CHROMIUM_PATH`, else the first of the usual names on the PATH. */
import { accessSync, constants } from "node:fs"
import { delimiter, join } from "node:path"

const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The Chromium executable to launch, or undefined when there is none. */
export const findChromium = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const configured = env.CHROMIUM_PATH
  if (configured !== undefined && configured !== "") return executable(configured) ? configured : undefined
  for (const directory of (env.PATH ?? "").split(delimiter).filter((entry) => entry !== ""))
    for (const name of NAMES) {
      const path = join(directory, name)
      if (executable(path)) return path
    }
  return undefined
}
