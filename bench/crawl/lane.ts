/**
 * One lane of the crawl benchmark in a process of its own, so that each engine's peak RSS is its own:
 * `lane.ts <json: { side, url, pages, concurrency, warmUp }>`. Crawls the site once untimed when `warmUp` (a fresh
 * process runs cold: its modules load and its code is not yet optimised, which cost webdata's first crawl of 2000 small
 * pages more than half of its speed under `tsx`; a server or worker is warm after its first pages), then crawls it
 * timed and sends `{ completed, distinct, failed, seconds, cpuMs, peakRssMb }` to the parent over IPC (`run.ts`).
 */
import { crawlWithCrawlee } from "./crawlee.js"
import { crawlWithWebdata } from "./webdata.js"

export interface LaneRequest {
  readonly side: "webdata" | "crawlee"
  readonly url: string
  readonly pages: number
  readonly concurrency: number
  readonly warmUp: boolean
}

export interface LaneResult {
  readonly completed: number
  readonly distinct: number
  readonly failed: number
  readonly seconds: number
  /** CPU time of the whole process (every thread) per page. */
  readonly cpuMs: number
  readonly peakRssMb: number
}

const request = JSON.parse(process.argv[2] ?? "{}") as LaneRequest
const crawl = () =>
  request.side === "webdata"
    ? crawlWithWebdata(request.url, { limit: request.pages, concurrency: request.concurrency })
    : crawlWithCrawlee(request.url, { concurrency: request.concurrency, persist: false })
if (request.warmUp) await crawl()
const cpuBefore = process.cpuUsage()
const started = performance.now()
const outcome = await crawl()
const seconds = (performance.now() - started) / 1000
const cpu = process.cpuUsage(cpuBefore)
const result: LaneResult = {
  completed: outcome.completed,
  distinct: outcome.distinct,
  failed: outcome.failed,
  seconds,
  cpuMs: (cpu.user + cpu.system) / 1000 / request.pages,
  // ru_maxrss, in KiB on Linux: the process's peak, its threads' heaps included.
  peakRssMb: process.resourceUsage().maxRSS / 1024,
}
process.send?.(result, () => process.exit(0))
