/**
 * Callers' Node.js code against a session's page, in a child process of its own: its memory capped, its time limited
 * (killed when it runs over), its environment empty of the server's settings and secrets, its output bounded. The code
 * reaches the browser only through the session's DevTools relay, so it is held to the session's context like any
 * other DevTools client.
 */
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { CodeRun } from "@webdata/core/engine"

/** Output kept per stream; the rest is cut (the code keeps running). */
const MAX_OUTPUT = 1024 * 1024
const HEAP_MB = 256

/**
 * The child's program: connects to the session, runs the code as the body of an async function of `page`, `context`
 * and `browser`, prints what it returns, and reports what it throws on descriptor 3.
 */
const RUNNER = `
import { writeSync } from "node:fs"
const playwright = await import(process.env.WEBDATA_PLAYWRIGHT)
const chromium = playwright.chromium ?? playwright.default.chromium
let code = ""
for await (const chunk of process.stdin) code += chunk
const browser = await chromium.connectOverCDP(process.env.WEBDATA_CDP_ENDPOINT)
const context = browser.contexts()[0]
const page = context.pages().at(-1) ?? (await context.newPage())
try {
  const AsyncFunction = (async () => {}).constructor
  const value = await new AsyncFunction("page", "context", "browser", code)(page, context, browser)
  if (value !== undefined) console.log(typeof value === "string" ? value : JSON.stringify(value))
} catch (error) {
  writeSync(3, error instanceof Error ? error.message : String(error))
  process.exitCode = 1
}
process.stdout.write("", () => process.exit())
`

/** Resolved when code runs, so that loading this module needs no playwright-core (a bundle may leave it out). */
const playwrightEntry = () => createRequire(import.meta.url).resolve("playwright-core")

/** Collects a stream's text up to the cap. */
const collect = (stream: NodeJS.ReadableStream | null) => {
  let text = ""
  stream?.on("data", (chunk: Buffer) => {
    if (text.length < MAX_OUTPUT) text += chunk.toString("utf8").slice(0, MAX_OUTPUT - text.length)
  })
  return () => text
}

export const runCode = async (cdpEndpoint: string, code: string, timeoutMs: number): Promise<CodeRun> => {
  const cwd = await mkdtemp(join(tmpdir(), "webdata-code-"))
  try {
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${HEAP_MB}`, "--input-type=module", "--eval", RUNNER],
      {
        cwd,
        env: { PATH: process.env.PATH ?? "", WEBDATA_CDP_ENDPOINT: cdpEndpoint, WEBDATA_PLAYWRIGHT: playwrightEntry() },
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      },
    )
    const stdout = collect(child.stdout)
    const stderr = collect(child.stderr)
    const thrown = collect(child.stdio[3] as NodeJS.ReadableStream)
    child.stdin?.end(code)
    let killed = false
    const timer = setTimeout(() => {
      killed = true
      child.kill("SIGKILL")
    }, timeoutMs)
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on("close", (status) => resolve(status))
      child.on("error", () => resolve(null))
    })
    clearTimeout(timer)
    const error = killed ? `The code ran longer than ${timeoutMs} ms and was stopped.` : thrown() || undefined
    return { stdout: stdout(), stderr: stderr(), exitCode, killed, ...(error !== undefined ? { error } : {}) }
  } finally {
    await rm(cwd, { recursive: true, force: true })
  }
}
