/**
 * Crawl soak: a 20 000-page crawl of the fixture site at concurrency 8 with the job store on SQLite (in a temporary
 * directory, removed afterwards). The documents are drained page by page while the crawl runs, so the benchmark
 * holds none. Samples the process's RSS every 250 ms (peak) and the time at which each thousand pages completed.
 * Targets (issue 3): peak RSS under 300 MB; the last thousand pages no more than 20 % slower than the first.
 *
 * The site runs in a child process, so its memory is not in the RSS. webdata runs in a process of its own on the
 * compiled packages (`soak-webdata.mjs`; the script builds first), as `npm start` and `webdata worker` run it, so the
 * RSS is the engine's and not a TypeScript loader's; it samples its own RSS. CRAWLER=crawlee runs Crawlee's
 * `CheerioCrawler` + turndown in this process instead (request queue and dataset persisted to disk, its default) as
 * a reference.
 *
 * Run: `npm run crawl-soak -w @webdata/bench` (PAGES=20000, CRAWLER=webdata|crawlee, CONTENT_THREADS=1; CHILD_FLAGS passes
 * Node flags to the webdata process, e.g. `--max-old-space-size=128`).
 */

import { spawn } from "node:child_process"
import { mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { crawlWithCrawlee } from "./crawlee.js"
import { spawnSite } from "./site.js"

const PAGES = Number(process.env.PAGES ?? 20_000)
const CRAWLER = process.env.CRAWLER ?? "webdata"
const CONCURRENCY = 8
const STEP = 1000
const MB = 1024 * 1024

const site = await spawnSite({ pages: PAGES })
const directory = await mkdtemp(join(tmpdir(), "webdata-bench-soak-"))
const database = join(directory, "webdata.db")

let peakRss = process.memoryUsage.rss()
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 250)

/** marks[k]: when the k-th thousand was first seen complete; marks[0]: the first completed page. */
const marks: Array<number> = []
const progress = (completed: number) => {
  if (completed > 0 && marks[0] === undefined) marks[0] = performance.now()
  for (let k = marks.length; k * STEP <= completed; k++) {
    marks[k] = performance.now()
    // webdata's RSS is its own process's, reported at the end.
    if (k > 0)
      console.log(
        CRAWLER === "crawlee"
          ? `${k * STEP} pages, RSS ${(process.memoryUsage.rss() / MB).toFixed(0)} MB (peak ${(peakRss / MB).toFixed(0)})`
          : `${k * STEP} pages`,
      )
  }
}

const started = performance.now()
let completedPages = 0
/** webdata in its own process: progress lines on stdout, then the result with the child's own peak RSS. */
const crawlWithWebdata = async () => {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.CHILD_FLAGS ? process.env.CHILD_FLAGS.split(" ") : []),
      new URL("./soak-webdata.mjs", import.meta.url).pathname,
      site.url,
      String(PAGES),
      database,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  )
  let result: { completed: number; distinct: number; failed: number; peakRss: number } | undefined
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith("completed ")) progress(Number(line.slice("completed ".length)))
    if (line.startsWith("result ")) result = JSON.parse(line.slice("result ".length))
  }
  if (result === undefined) throw new Error("the webdata process ended without a result")
  peakRss = result.peakRss
  return result
}

const outcome =
  CRAWLER === "crawlee"
    ? await crawlWithCrawlee(site.url, {
        concurrency: CONCURRENCY,
        persist: true,
        onPage: () => progress(++completedPages),
      })
    : await crawlWithWebdata()
const seconds = (performance.now() - started) / 1000
clearInterval(sampler)
const fetched = await site.hits()
const databaseBytes = CRAWLER === "crawlee" ? 0 : (await stat(database)).size
await site.close()
await rm(directory, { recursive: true, force: true })

const thousands = marks.slice(1).map((mark, k) => (mark - (marks[k] ?? mark)) / 1000)
const first = thousands[0] ?? Number.NaN
const last = thousands[thousands.length - 1] ?? Number.NaN
console.log(
  `${CRAWLER}: ${PAGES} pages in ${seconds.toFixed(1)} s (${(PAGES / seconds).toFixed(1)} pages/s), ` +
    `completed ${outcome.completed}, distinct ${outcome.distinct}, failed ${outcome.failed}, fetched ${fetched}`,
)
console.log(`peak RSS ${(peakRss / MB).toFixed(0)} MB (target < 300 MB)`)
console.log(
  `seconds per thousand pages: first ${first.toFixed(2)}, last ${last.toFixed(2)} ` +
    `(last/first ${(last / first).toFixed(2)}, target ≤ 1.20); all: ${thousands.map((s) => s.toFixed(1)).join(" ")}`,
)
if (databaseBytes > 0) console.log(`SQLite file at the end: ${(databaseBytes / MB).toFixed(0)} MB`)
if (outcome.completed !== PAGES || outcome.distinct !== PAGES || outcome.failed !== 0 || fetched !== PAGES) {
  console.log("CHECK FAILED: not every page exactly once")
  process.exitCode = 1
}
