/** The machine's Chromium for browser tests: they fail (never skip) without one. */
import { findChromium } from "../../src/Chromium.js"

const found = findChromium()
if (found === undefined) throw new Error("No Chromium: set CHROMIUM_PATH or install chromium (.ci/run does)")

export const executablePath: string = found
