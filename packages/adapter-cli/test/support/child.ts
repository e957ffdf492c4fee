/** The real `webdata` binary (from its TypeScript source) as a child process, for what needs one: signals. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

export interface Child {
  readonly process: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves once `predicate` holds for what the child printed so far (checked on every chunk). */
  readonly waitFor: (predicate: (stdout: string, stderr: string) => boolean) => Promise<void>
  readonly exited: Promise<number | null>
}

export const spawnWebdata = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Child => {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", bin, ...args], {
    env: { ...process.env, WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  let err = ""
  const waiters: Array<() => void> = []
  const check = () => {
    for (const waiter of waiters.splice(0)) waiter()
  }
  child.stdout.on("data", (chunk) => {
    out += chunk
    check()
  })
  child.stderr.on("data", (chunk) => {
    err += chunk
    check()
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const waitFor = async (predicate: (stdout: string, stderr: string) => boolean) => {
    while (!predicate(out, err)) {
      if (child.exitCode !== null) throw new Error(`webdata exited (${child.exitCode}): ${err}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        child.once("exit", () => resolve())
      })
    }
  }
  return { process: child, stdout: () => out, stderr: () => err, waitFor, exited }
}
