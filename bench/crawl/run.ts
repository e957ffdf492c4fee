/**
 * Crawl throughput: webdata against Crawlee's `CheerioCrawler` + turndown on the same fixture sites at concurrency 8,
 * in the same run: the `articles` site (2000 pages of 15–30 KB) and the `small` site (2000 pages of ~4 KB: navigation,
 * pagination, a few related links), where the per-page fixed cost dominates. Each lane (one crawl by one engine) runs
 * in a fresh process, so its peak RSS is its own, and crawls the site once untimed before the timed crawl (WARM_UP=0
 * times the cold first crawl instead); rounds alternate between the crawlers (the order flips every round). Each
 * timed crawl must fetch every page exactly once and return every page's markdown, or the run fails. The site runs in a
 * child process so serving pages does not share the crawlers' event loop. A bare-fetch pass first measures what the
 * site and loopback alone allow at the same concurrency.
 *
 * Run: `npm run crawl -w @webdata/bench` (RUNS=3, PAGES=2000, SITES=articles,small; SIDES=crawlee or SIDES=webdata
 * runs one side; STORE=sqlite keeps webdata's crawl in a SQLite file instead of memory; INDEX=off leaves its pages out of
 * the local search index).
 */
import { fork } from "node:child_process"
import type { LaneRequest, LaneResult } from "./lane.js"
import { pagePath, type SiteOptions, spawnSite } from "./site.js"

const PAGES = Number(process.env.PAGES ?? 2000)
const RUNS = Number(process.env.RUNS ?? 3)
const SIDES = (process.env.SIDES ?? "webdata,crawlee").split(",") as Array<LaneRequest["side"]>
const SITES = (process.env.SITES ?? "articles,small").split(",") as Array<NonNullable<SiteOptions["kind"]>>
const CONCURRENCY = 8
const WARM_UP = process.env.WARM_UP !== "0"

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** One crawl in a fresh process (see lane.ts). */
const lane = (request: LaneRequest) =>
  new Promise<LaneResult>((resolve, reject) => {
    const child = fork(new URL("./lane.ts", import.meta.url), [JSON.stringify(request)], {
      // The packages from their TypeScript sources, as `npm run crawl` runs this file.
      execArgv: [
        "--conditions=source",
        "--import",
        import.meta.resolve("tsx"),
        ...(process.env.LANE_NODE_OPTIONS?.split(" ") ?? []),
      ],
    })
    let result: LaneResult | undefined
    child.on("message", (message: LaneResult) => {
      result = message
    })
    child.on("error", reject)
    child.on("exit", (code) =>
      result === undefined ? reject(new Error(`${request.side} lane exited with ${code}`)) : resolve(result),
    )
  })

/** Every page fetched and read at the crawlers' concurrency, nothing else: the ceiling of the site and loopback. */
const bareFetch = async (url: string) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PAGES) {
        const response = await fetch(new URL(pagePath(next++), url))
        await response.text()
      }
    }),
  )
  return PAGES / ((performance.now() - started) / 1000)
}

const summary: Array<string> = []
for (const kind of SITES) {
  const site = await spawnSite({ pages: PAGES, kind })
  await bareFetch(site.url)
  console.log(
    `site ${kind}: ${PAGES} pages, bare fetch at concurrency ${CONCURRENCY}: ${(await bareFetch(site.url)).toFixed(0)} pages/s`,
  )
  const results: Record<string, Array<LaneResult & { readonly rate: number }>> = {}
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse()
    for (const side of order) {
      const hitsBefore = await site.hits()
      const result = await lane({ side, url: site.url, pages: PAGES, concurrency: CONCURRENCY, warmUp: WARM_UP })
      // The warm-up crawl fetched every page once too.
      const fetched = (await site.hits()) - hitsBefore - (WARM_UP ? PAGES : 0)
      const complete =
        result.completed === PAGES && result.distinct === PAGES && result.failed === 0 && fetched === PAGES
      if (!complete) process.exitCode = 1
      const rate = PAGES / result.seconds
      results[side] = [...(results[side] ?? []), { ...result, rate }]
      console.log(
        `${kind} round ${round + 1} ${side.padEnd(7)} ${rate.toFixed(1)} pages/s (${result.seconds.toFixed(1)} s, ` +
          `${result.cpuMs.toFixed(1)} CPU-ms/page, peak RSS ${result.peakRssMb.toFixed(0)} MB) ` +
          `completed ${result.completed}, distinct ${result.distinct}, failed ${result.failed}, fetched ${fetched}` +
          (complete ? "" : "  <-- CHECK FAILED: not every page exactly once"),
      )
    }
  }
  await site.close()
  for (const side of SIDES) {
    const lanes = results[side] ?? []
    summary.push(
      `${kind.padEnd(8)} ${side.padEnd(7)} median ${median(lanes.map((r) => r.rate)).toFixed(1)} pages/s, ` +
        `${median(lanes.map((r) => r.cpuMs)).toFixed(1)} CPU-ms/page, peak RSS median ${median(lanes.map((r) => r.peakRssMb)).toFixed(0)} MB ` +
        `(rounds: ${lanes.map((r) => r.rate.toFixed(1)).join(", ")})`,
    )
  }
  const [webdata, crawlee] = [
    median((results.webdata ?? []).map((r) => r.rate)),
    median((results.crawlee ?? []).map((r) => r.rate)),
  ]
  if (webdata > 0 && crawlee > 0)
    summary.push(`${kind.padEnd(8)} ratio webdata / Crawlee: ${(webdata / crawlee).toFixed(2)}x (target ≥ 2.5x)`)
}
console.log(summary.join("\n"))
