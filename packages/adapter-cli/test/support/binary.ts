/** Runs the real `webdata` binary (from its TypeScript source) as a child process and collects what it printed. */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `nodeArgs` go to Node before the binary (e.g. an `--import` that watches the process). */
export const runWebdata = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  nodeArgs: ReadonlyArray<string> = [],
): Promise<Result> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--conditions=source", ...nodeArgs, bin, ...args],
      { env: { ...process.env, WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1", ...env }, timeout: 60_000 },
      // Killed (by the timeout, or a signal) is no exit status: -1.
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    )
  })
