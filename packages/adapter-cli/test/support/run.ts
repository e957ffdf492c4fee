/**
 * Runs the `webdata` CLI in this process (`main`), capturing what it prints: fast enough to run many commands per
 * test file. Runs must not overlap (the capture replaces `console` methods). Private targets are allowed, and no
 * `WEBDATA_STORE` or `WEBDATA_LLM` is inherited, so local mode uses its in-memory engine without a language model.
 */
import { vi } from "vitest"
import { main } from "../../src/Cli.js"

process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES = "1"
delete process.env.WEBDATA_STORE
delete process.env.WEBDATA_API_URL
delete process.env.WEBDATA_LLM

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const capture = (method: "log" | "error", into: Array<string>) =>
  vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
    into.push(`${args.map(String).join(" ")}\n`)
  })

export const webdata = async (args: ReadonlyArray<string>): Promise<Result> => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const spies = [capture("log", stdout), capture("error", stderr)]
  try {
    const code = await main(["node", "webdata", ...args])
    return { code, stdout: stdout.join(""), stderr: stderr.join("") }
  } finally {
    for (const spy of spies) spy.mockRestore()
  }
}
