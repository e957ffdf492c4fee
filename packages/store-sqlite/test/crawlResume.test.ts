/**
 * Crash and resume of a real crawl: a process crawling a 500-page site on SQLite is killed with SIGKILL halfway,
 * a new process on the same machine takes the crawl over at once (it takes back the killed process's leases instead
 * of waiting a minute for them to expire), and the crawl ends with every page recorded exactly once.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { JobStore } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { afterAll, expect, it } from "vitest"
import { chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-resume-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: ReadonlyArray<string>): ChildProcess =>
  spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=source",
      fileURLToPath(new URL("./support/crawlProcess.ts", import.meta.url)),
      ...args,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  )

/** Resolves with the first stdout line that `match` accepts. */
const lineMatching = (child: ChildProcess, match: (line: string) => boolean): Promise<string> =>
  new Promise((resolve, reject) => {
    let buffer = ""
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString()
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      const found = lines.find(match)
      if (found !== undefined) {
        child.stdout?.off("data", onData)
        resolve(found)
      }
    }
    child.stdout?.on("data", onData)
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before the expected line`)))
  })

it("finishes a crawl killed halfway, with every page exactly once", async () => {
  // Slow enough that the kill lands mid-crawl with fetches in flight.
  const pages = chainPages(500, { delayMs: 15 })
  const site = await startCrawlSite({ pages })
  const filename = join(dir, "crawl.db")
  try {
    const first = run([filename, "start", site.url])
    const id = (await lineMatching(first, (line) => line.startsWith("job "))).slice(4)
    await lineMatching(first, (line) => line.startsWith("completed ") && Number(line.slice(10)) >= 150)
    first.kill("SIGKILL")
    await new Promise((resolve) => first.once("exit", resolve))
    const hitsAtKill = site.requests.length

    const resumedAt = Date.now()
    const second = run([filename, "resume", id])
    await lineMatching(second, (line) => line === "done")
    // The leases last 60 s: a crawl that ends sooner got the killed process's tasks back at once.
    expect(Date.now() - resumedAt).toBeLessThan(40_000)
    await new Promise((resolve) => second.once("exit", resolve))
    expect(site.requests.length).toBeGreaterThan(hitsAtKill)

    const { job, documents } = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* JobStore
        const job = Option.getOrThrow(yield* store.getJob(id))
        const documents = yield* store.documents(id, { skip: 0, limit: 10_000 })
        return { job, documents }
      }).pipe(Effect.provide(SqliteJobStore.layer({ filename }))),
    )
    expect(job.status).toBe("completed")
    const urls = documents.map((entry) => new URL(entry.url).pathname)
    const expected = Object.keys(pages)
    expect(urls).toHaveLength(expected.length)
    expect(new Set(urls)).toEqual(new Set(expected))
    expect(job.completed).toBe(expected.length)
    expect(job.failed).toBe(0)
    expect(documents.map((entry) => entry.seq)).toEqual(expected.map((_, index) => index))
  } finally {
    await site.close()
  }
}, 90_000)
