/** One of the server's entry points (`src/main.ts`, `src/workerMain.ts`) run from its TypeScript source as a process. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

export interface Entry {
  readonly process: ChildProcess
  /** stdout and stderr so far, interleaved as they arrived. */
  readonly output: () => string
  /** The first match of `pattern` in the output, once it appears; rejects if the process exits first. */
  readonly waitFor: (pattern: RegExp) => Promise<RegExpExecArray>
  readonly exited: Promise<number | null>
}

export const startEntry = (file: "main.ts" | "workerMain.ts", env: Record<string, string>): Entry => {
  const entry = fileURLToPath(new URL(`../../src/${file}`, import.meta.url))
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", entry], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output)
        if (match !== null) resolve(match)
      }
      for (const stream of [child.stdout, child.stderr]) stream.on("data", check)
      void exited.then((code) => reject(new Error(`${file} exited (${code}) before ${pattern}: ${output}`)))
      check()
    })
  for (const stream of [child.stdout, child.stderr])
    stream.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
  return { process: child, output: () => output, waitFor, exited }
}

/** Asks the process to stop (SIGTERM, as a deployment would) and waits until it has. */
export const stopEntry = async (entry: Entry): Promise<void> => {
  entry.process.kill("SIGTERM")
  await entry.exited
}
