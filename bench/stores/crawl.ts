/**
 * Crawl throughput with 1, 2 and 4 worker processes on each durable store: SQLite (one file), Postgres and Redis, all
 * on this machine. An API process (`WEBDATA_WORKER=0`) takes the crawl; the worker processes (`webdata-worker`, 8
 * tasks at once each) share it through the store. The fixture site (bench/crawl/site.ts: 15–30 KB articles, no delay)
 * runs in a child process, so with two cores the run is CPU-bound: what it shows is how well the processes share the
 * work and what the store costs per page, not network-bound speed-ups.
 *
 * Per run: wall time from the crawl request to `completed` (status polled every 50 ms), every page fetched once (the
 * site's hit count), and CPU time (utime + stime from /proc) of the webdata processes and of the store's server
 * processes (every `postgres` or `redis-server` process; SQLite runs inside the workers, so its cost is in theirs).
 * Lanes rotate: each round runs every (store, workers) pair, in an order shifted by one each round.
 *
 * Run: `npm run store-crawl -w @webdata/bench` (PAGES=2000, ROUNDS=2, WORKERS=1,2,4, STORES=sqlite,postgres,redis).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqliteJobStore } from "@webdata/store-sqlite"
import { type Backend, freshPostgres, freshRedis } from "../../packages/server/test/support/backends.js"
import { startEntry, stopEntry } from "../../packages/server/test/support/entry.js"
import { spawnSite } from "../crawl/site.js"

const PAGES = Number(process.env.PAGES ?? 2000)
const ROUNDS = Number(process.env.ROUNDS ?? 2)
const WORKERS = (process.env.WORKERS ?? "1,2,4").split(",").map(Number)
const STORES = (process.env.STORES ?? "sqlite,postgres,redis").split(",")
const CONCURRENCY = 8
/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's times. */
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())

const dir = mkdtempSync(join(tmpdir(), "webdata-store-crawl-"))
let sqliteFiles = 0

const backends: Record<string, () => Backend> = {
  sqlite: () => {
    const file = join(dir, `crawl-${++sqliteFiles}.db`)
    return {
      name: "sqlite",
      layer: () => SqliteJobStore.layer({ filename: file }),
      env: { WEBDATA_STORE: `sqlite:${file}` },
      cleanUp: async () => rmSync(file, { force: true }),
    }
  },
  postgres: freshPostgres,
  redis: freshRedis,
}
const SERVER_PROCESS: Record<string, string | undefined> = { postgres: "postgres", redis: "redis-server" }

/** CPU milliseconds a process has used so far (0 once it is gone). */
const cpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS
  } catch {
    return 0
  }
}

const pidsOf = (name: string): Array<number> => {
  try {
    return execFileSync("pgrep", ["-x", name]).toString().trim().split("\n").map(Number)
  } catch {
    return []
  }
}

/** CPU of every process named `name` by pid, to subtract from a later reading (new processes start at 0). */
const serverCpu = (name: string | undefined): Map<number, number> =>
  new Map(name === undefined ? [] : pidsOf(name).map((pid) => [pid, cpuMs(pid)]))

const serverCpuSince = (name: string | undefined, before: Map<number, number>) =>
  [...serverCpu(name)].reduce((sum, [pid, now]) => sum + now - (before.get(pid) ?? 0), 0)

const env = (backend: Backend) => ({
  ...backend.env,
  WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
  WEBDATA_WORKER_CONCURRENCY: String(CONCURRENCY),
  HOST: "127.0.0.1",
  PORT: "0",
})

interface Run {
  readonly store: string
  readonly workers: number
  readonly seconds: number
  readonly webdataCpuMs: number
  readonly storeCpuMs: number
}

const site = await spawnSite({ pages: PAGES })

const crawlOnce = async (store: string, workers: number): Promise<Run> => {
  const backend = backends[store]!()
  const api = startEntry("main.ts", { ...env(backend), WEBDATA_WORKER: "0" })
  const [, url] = await api.waitFor(/listening on (http:\/\/\S+)/)
  const started = Array.from({ length: workers }, () => startEntry("workerMain.ts", env(backend)))
  await Promise.all(started.map((entry) => entry.waitFor(/worker running on/)))
  const processes = [api, ...started]
  const hitsBefore = await site.hits()
  const cpuBefore = processes.map((entry) => cpuMs(entry.process.pid!))
  const serverBefore = serverCpu(SERVER_PROCESS[store])
  const t0 = performance.now()
  const created = await fetch(`${url}/v2/crawl`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: new URL("/", site.url).href, limit: PAGES, scrapeOptions: { formats: ["markdown"] } }),
  })
  const { id } = (await created.json()) as { id: string }
  let status: { status: string; completed: number } = { status: "scraping", completed: 0 }
  while (status.status === "scraping") {
    await new Promise((resolve) => setTimeout(resolve, 50))
    status = (await (await fetch(`${url}/v2/crawl/${id}?limit=1`)).json()) as typeof status
  }
  const seconds = (performance.now() - t0) / 1000
  const webdataCpuMs = processes.reduce((sum, entry, i) => sum + cpuMs(entry.process.pid!) - cpuBefore[i]!, 0)
  const storeCpuMs = serverCpuSince(SERVER_PROCESS[store], serverBefore)
  const hits = (await site.hits()) - hitsBefore
  await Promise.all(processes.map(stopEntry))
  await backend.cleanUp()
  if (status.status !== "completed" || status.completed !== PAGES || hits !== PAGES)
    throw new Error(`${store} × ${workers}: ${status.status}, ${status.completed} pages, ${hits} fetches`)
  return { store, workers, seconds, webdataCpuMs, storeCpuMs }
}

const lanes = STORES.flatMap((store) => WORKERS.map((workers) => ({ store, workers })))
const runs: Array<Run> = []
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < lanes.length; k++) {
      const { store, workers } = lanes[(k + round) % lanes.length]!
      const run = await crawlOnce(store, workers)
      runs.push(run)
      console.log(
        `round ${round + 1}: ${store} × ${workers}: ${(PAGES / run.seconds).toFixed(0)} pages/s, ` +
          `webdata ${(run.webdataCpuMs / PAGES).toFixed(2)} ms CPU/page, store server ${(run.storeCpuMs / PAGES).toFixed(2)}`,
      )
    }
  }
} finally {
  await site.close()
  rmSync(dir, { recursive: true, force: true })
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
console.log(`\n${PAGES} pages, ${ROUNDS} round(s), medians:`)
console.log(
  "| store | worker processes | pages/s | scaling efficiency | webdata CPU ms/page | store server CPU ms/page |",
)
console.log("| --- | --- | --- | --- | --- | --- |")
for (const store of STORES) {
  const pagesPerSecond = (workers: number) =>
    median(runs.filter((run) => run.store === store && run.workers === workers).map((run) => PAGES / run.seconds))
  for (const workers of WORKERS) {
    const mine = runs.filter((run) => run.store === store && run.workers === workers)
    const efficiency = pagesPerSecond(workers) / (workers * pagesPerSecond(WORKERS[0]!))
    console.log(
      `| ${store} | ${workers} | ${pagesPerSecond(workers).toFixed(0)} | ${(efficiency * 100).toFixed(0)} % | ` +
        `${median(mine.map((run) => run.webdataCpuMs / PAGES)).toFixed(2)} | ` +
        `${SERVER_PROCESS[store] === undefined ? "— (in the workers)" : median(mine.map((run) => run.storeCpuMs / PAGES)).toFixed(2)} |`,
    )
  }
}
