/**
 * The server soak (`soak.ts`) for minutes: `npm run soak -w @webdata/bench` (SOAK_MINUTES=10, SCRAPERS=4, CRAWLERS=2).
 * Prints the answers by status and code, the crawls, and the server's memory after full collections before and after
 * the load; fails (exit code 1) on a late answer, an undocumented 5xx, a bare error, a logged defect, or memory that
 * does not come back to within `HEAP_GROWTH_MB` of the baseline's heap.
 */
import { mb, runSoak } from "./soak.js"

const minutes = Number(process.env.SOAK_MINUTES ?? 10)
/** Heap the server may keep after the load, over its baseline (caches filled, SQLite statements, V8's own). */
const HEAP_GROWTH_MB = 48

const result = await runSoak({
  durationMs: minutes * 60_000,
  scrapers: Number(process.env.SCRAPERS ?? 4),
  crawlers: Number(process.env.CRAWLERS ?? 2),
  log: (line) => console.log(line),
})
const heapGrowth = (result.final.heapUsed - result.baseline.heapUsed) / 1024 / 1024
console.log(
  `${minutes} min: ${result.scrapes} scrapes, crawls ${JSON.stringify(result.crawls)} (${result.crawledPages} pages)`,
)
console.log(
  `answers: ${Object.entries(result.outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, count]) => `${key} ×${count}`)
    .join(", ")}`,
)
console.log(
  `heap after GC: ${mb(result.baseline.heapUsed)} → ${mb(result.final.heapUsed)} MB (${heapGrowth.toFixed(1)} MB, bound ${HEAP_GROWTH_MB}); ` +
    `RSS after GC: ${mb(result.baseline.rss)} → ${mb(result.final.rss)} MB; peak RSS ${mb(result.peakRss)} MB`,
)
for (const problem of result.problems.slice(0, 20)) console.log(`PROBLEM ${problem}`)
if (result.problems.length > 0 || heapGrowth > HEAP_GROWTH_MB) {
  console.log(`CHECK FAILED: ${result.problems.length} problems, heap growth ${heapGrowth.toFixed(1)} MB`)
  process.exitCode = 1
}
