/**
 * A server process stopped by SIGTERM, as a deployment stops it:
 *
 * - mid-crawl, it exits 0 within the shutdown grace (and a margin for closing the engine), leaving no task leased; a
 *   process restarted on the same store finishes the crawl with every page recorded once, far sooner than the leases
 *   would have run out;
 * - a scrape in flight when the signal arrives still gets its 200, while new connections are refused;
 * - the browser's processes end with the server's;
 * - a second signal ends the process at once.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { allPages, startCrawl, status, until } from "./support/crawlApi.js"
import { type Entry, startEntry } from "./support/entry.js"

const PAGES = 200
const PAGE_DELAY_MS = 100
/** Shorter than a page takes: the tasks running at SIGTERM are cut at the grace and their leases given back. */
const GRACE_MS = 50
/** Closing the engine after the grace: the content threads, the store, the process's own exit. */
const MARGIN_MS = 5_000
/** The default lease: what a task left leased by a stopped process would wait for. */
const LEASE_SECONDS = 60

const directory = mkdtempSync(join(tmpdir(), "webdata-shutdown-"))
const running: Array<Entry> = []
afterAll(() => {
  for (const entry of running.splice(0)) entry.process.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})

const startServer = async (env: Record<string, string>) => {
  const entry = startEntry("main.ts", {
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
    HOST: "127.0.0.1",
    PORT: "0",
    ...env,
  })
  running.push(entry)
  const [, url] = await entry.waitFor(/listening on (http:\/\/\S+)/)
  return { entry, url: url! }
}

/** Sends `signal` and resolves with the exit code and how long the process took to exit. */
const stop = async (entry: Entry, signal: NodeJS.Signals = "SIGTERM") => {
  const start = Date.now()
  entry.process.kill(signal)
  const code = await entry.exited
  return { code, ms: Date.now() - start }
}

/** How many of the store's tasks are in each state, read from the SQLite file. */
const taskStates = (filename: string) =>
  Effect.runPromise(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ status: string; count: number }>`SELECT status, count(*) AS count FROM tasks GROUP BY status`,
    ).pipe(
      Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.status, row.count]))),
      Effect.provide(SqliteClient.layer({ filename })),
    ),
  )

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `pid`'s state letter (`Z` for a zombie), or undefined once it is gone. */
const processState = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[0]
  } catch {
    return undefined
  }
}

/** The processes `pid` started, and theirs, with their command lines. */
const descendants = (pid: number): Array<{ pid: number; command: string }> => {
  const children = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const ppid = Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.split(" ")[1])
        return ppid === pid
          ? [{ pid: Number(name), command: readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ") }]
          : []
      } catch {
        return []
      }
    })
  return children.flatMap((child) => [child, ...descendants(child.pid)])
}

describe("SIGTERM", () => {
  it("mid-crawl: exits 0 within the grace, leases given back; a restarted process finishes every page once, before the leases would expire", async () => {
    const site = await startCrawlSite({ pages: chainPages(PAGES, { delayMs: PAGE_DELAY_MS }) })
    const filename = join(directory, "crawl.db")
    const env = {
      WEBDATA_STORE: `sqlite:${filename}`,
      WEBDATA_WORKER_CONCURRENCY: "8",
      WEBDATA_WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
      WEBDATA_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    }
    const first = await startServer(env)
    const id = await startCrawl(first.url, site.url, { limit: PAGES + 1 })
    await until(
      () => status(first.url, id),
      (s) => s.completed >= PAGES / 4,
      60_000,
    )
    const stopped = await stop(first.entry)
    expect(stopped.code).toBe(0)
    expect(stopped.ms).toBeLessThan(GRACE_MS + MARGIN_MS)
    expect(first.entry.output()).toContain("SIGTERM: stopping")

    // Nothing is left leased: the tasks that did not finish within the grace were given back, due at once.
    const states = await taskStates(filename)
    expect(states.leased).toBeUndefined()
    expect(states.pending).toBeGreaterThan(0)

    const restart = Date.now()
    const second = await startServer(env)
    const end = await until(
      () => status(second.url, id),
      (s) => s.status === "completed",
      LEASE_SECONDS * 1000,
    )
    const resumeMs = Date.now() - restart
    console.info(`stopped in ${stopped.ms} ms (grace ${GRACE_MS} ms); resumed and finished in ${resumeMs} ms`)
    expect(end).toMatchObject({ status: "completed", completed: PAGES + 1, total: PAGES + 1 })
    const urls = await allPages(second.url, id)
    expect(urls).toHaveLength(PAGES + 1)
    expect(new Set(urls).size).toBe(PAGES + 1)
    // The tasks cut at the grace ran again (their pages were fetched twice), yet each page was recorded once.
    const fetches = new Map<string, number>()
    for (const { path } of site.requests) fetches.set(path, (fetches.get(path) ?? 0) + 1)
    expect([...fetches.values()].some((count) => count > 1)).toBe(true)
    // Leases left to run out would have held those tasks for up to LEASE_SECONDS after the stop.
    expect(resumeMs).toBeLessThan(LEASE_SECONDS * 1000 * 0.75)
    expect((await stop(second.entry)).code).toBe(0)
    await site.close()
  }, 120_000)

  it("a scrape in flight gets its 200; new connections are refused; the process then exits 0", async () => {
    const site = await startCrawlSite({ pages: { "/slow": { delayMs: 1_500 } } })
    const server = await startServer({ WEBDATA_STORE: "memory:" })
    const answer = fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/slow`, formats: ["markdown"] }),
    })
    while (site.hits("/slow") === 0) await sleep(20)
    const stopping = stop(server.entry)
    await sleep(200)
    await expect(fetch(`${server.url}/`)).rejects.toThrow()
    const response = await answer
    expect(response.status).toBe(200)
    const body = (await response.json()) as { success: boolean; data: { markdown: string } }
    expect(body.success).toBe(true)
    expect(body.data.markdown).toContain("the content of the page at /slow")
    expect((await stopping).code).toBe(0)
    await site.close()
  }, 60_000)

  it("the browser's processes end with the server's", async () => {
    const site = await startCrawlSite({ pages: { "/rendered": {} } })
    const server = await startServer({ WEBDATA_STORE: "memory:" })
    await server.entry.waitFor(/engines: http, browser \(Chromium at/)
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/rendered`, formats: ["markdown"], waitFor: 100 }),
    })
    expect(response.status).toBe(200)
    const browsers = descendants(server.entry.process.pid!).filter(({ command }) => /chrom/i.test(command))
    expect(browsers.length).toBeGreaterThan(0)
    expect((await stop(server.entry)).code).toBe(0)
    // Orphans would live on under init; closed ones are gone (or reaped within moments).
    const deadline = Date.now() + 5_000
    while (browsers.some(({ pid }) => processState(pid) !== undefined && processState(pid) !== "Z")) {
      if (Date.now() > deadline) throw new Error(`browser processes left running: ${JSON.stringify(browsers)}`)
      await sleep(100)
    }
    await site.close()
  }, 60_000)

  it("a second signal ends the process at once, without waiting for open requests", async () => {
    const site = await startCrawlSite({ pages: { "/stuck": { delayMs: 30_000 } } })
    const server = await startServer({ WEBDATA_STORE: "memory:" })
    const answer = fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/stuck`, formats: ["markdown"] }),
    }).catch((error: unknown) => error)
    while (site.hits("/stuck") === 0) await sleep(20)
    server.entry.process.kill("SIGTERM")
    await sleep(300)
    const again = await stop(server.entry, "SIGINT")
    expect(again.code).toBe(1)
    expect(again.ms).toBeLessThan(2_000)
    expect(server.entry.output()).toContain("SIGINT again")
    expect(await answer).toBeInstanceOf(Error)
    await site.close()
  }, 60_000)
})
