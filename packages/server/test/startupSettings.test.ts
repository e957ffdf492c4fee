/**
 * A bad setting stops `npm start` (and `webdata-worker`) before anything starts: exit code 1 and one line naming the
 * variable, its value and what is wrong. A misspelt `WEBDATA_` name is reported and the server still starts.
 */
import { describe, expect, it } from "vitest"
import { startEntry } from "./support/entry.js"

const start = async (file: "main.ts" | "workerMain.ts", env: Record<string, string>) => {
  const entry = startEntry(file, { HOST: "127.0.0.1", PORT: "0", WEBDATA_STORE: "memory:", ...env })
  const code = await entry.exited
  return { code, lines: entry.output().trim().split("\n") }
}

describe("settings checked at start", () => {
  it.each([
    [
      { WEBDATA_WORKER_CONCURRENCY: "-2" },
      'webdata: WEBDATA_WORKER_CONCURRENCY="-2": must be a whole number of at least 1',
    ],
    [
      { WEBDATA_LOG_LEVEL: "loud" },
      'webdata: WEBDATA_LOG_LEVEL="loud": must be one of all, trace, debug, info, warn, warning, error, fatal, none, off',
    ],
    [
      { WEBDATA_STORE: "sqlite/data/webdata.db" },
      'webdata: WEBDATA_STORE="sqlite/data/webdata.db": expected sqlite:<path>, memory:, postgres://… (or postgresql://…) or redis://… (or rediss://…)',
    ],
  ])("the server with %o exits 1 with one line", async (env, line) => {
    expect(await start("main.ts", env)).toEqual({ code: 1, lines: [line] })
  })

  it("the worker too", async () => {
    expect(await start("workerMain.ts", { WEBDATA_STORE: "sqlite:x.db", WEBDATA_JOB_TTL_HOURS: "-1" })).toEqual({
      code: 1,
      lines: ['webdata: WEBDATA_JOB_TTL_HOURS="-1": must be a number more than 0'],
    })
  })

  it("a misspelt name is reported, and the server starts", async () => {
    const entry = startEntry("main.ts", { HOST: "127.0.0.1", PORT: "0", WEBDATA_STORE: "memory:", WEBDATA_STOER: "x" })
    await entry.waitFor(/listening on/)
    expect(entry.output()).toContain("webdata: WEBDATA_STOER is not a setting (ignored)")
    entry.process.kill("SIGTERM")
    expect(await entry.exited).toBe(0)
  })
})
