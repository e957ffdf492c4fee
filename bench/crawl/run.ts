/**
 * Crawl throughput: webdata against Crawlee's `CheerioCrawler` + turndown on the same 2000-page fixture site at
 * concurrency 8, in the same run. Rounds alternate between the crawlers (the order flips every round); each round
 * must fetch every page exactly once and return every page's markdown, or the run fails. The site runs in a child
 * process so serving pages does not share the crawlers' event loop. A bare-fetch pass first measures what the site
 * and loopback alone allow at the same concurrency.
 *
 * Run: `npm run crawl -w @webdata/bench` (RUNS=3, PAGES=2000; SIDES=crawlee or SIDES=webdata runs one side).
 */
import { crawlWithCrawlee } from "./crawlee.js"
import { pagePath, spawnSite } from "./site.js"
import { crawlWithWebdata } from "./webdata.js"

const PAGES = Number(process.env.PAGES ?? 2000)
const RUNS = Number(process.env.RUNS ?? 3)
const SIDES = (process.env.SIDES ?? "webdata,crawlee").split(",")
const CONCURRENCY = 8

interface Outcome {
  readonly completed: number
  readonly distinct: number
  readonly failed: number
}

const crawlers: Record<string, (url: string) => Promise<Outcome>> = {
  webdata: (url) => crawlWithWebdata(url, { limit: PAGES, concurrency: CONCURRENCY }),
  crawlee: (url) => crawlWithCrawlee(url, { concurrency: CONCURRENCY, persist: false }),
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const site = await spawnSite({ pages: PAGES })

/** Every page fetched and read at the crawlers' concurrency, nothing else: the ceiling of the site and loopback. */
const bareFetch = async () => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PAGES) {
        const response = await fetch(new URL(pagePath(next++), site.url))
        await response.text()
      }
    }),
  )
  return PAGES / ((performance.now() - started) / 1000)
}
await bareFetch()
console.log(`site: ${PAGES} pages, bare fetch at concurrency ${CONCURRENCY}: ${(await bareFetch()).toFixed(0)} pages/s`)

const rates: Record<string, Array<number>> = {}
const cpuPerPage: Record<string, Array<number>> = {}
for (let round = 0; round < RUNS; round++) {
  const order = round % 2 === 0 ? SIDES : [...SIDES].reverse()
  for (const name of order) {
    const crawl = crawlers[name]
    if (crawl === undefined) throw new Error(`unknown side ${name}`)
    const hitsBefore = await site.hits()
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    const outcome = await crawl(site.url)
    const seconds = (performance.now() - started) / 1000
    const cpu = process.cpuUsage(cpuBefore)
    const fetched = (await site.hits()) - hitsBefore
    const complete =
      outcome.completed === PAGES && outcome.distinct === PAGES && outcome.failed === 0 && fetched === PAGES
    if (!complete) process.exitCode = 1
    const rate = PAGES / seconds
    const cpuMs = (cpu.user + cpu.system) / 1000 / PAGES
    rates[name] = [...(rates[name] ?? []), rate]
    cpuPerPage[name] = [...(cpuPerPage[name] ?? []), cpuMs]
    console.log(
      `round ${round + 1} ${name.padEnd(7)} ${rate.toFixed(1)} pages/s (${seconds.toFixed(1)} s, ${cpuMs.toFixed(1)} CPU-ms/page) ` +
        `completed ${outcome.completed}, distinct ${outcome.distinct}, failed ${outcome.failed}, fetched ${fetched}` +
        (complete ? "" : "  <-- CHECK FAILED: not every page exactly once"),
    )
  }
}
await site.close()

for (const name of SIDES)
  console.log(
    `${name.padEnd(7)} median ${median(rates[name] ?? []).toFixed(1)} pages/s, ${median(cpuPerPage[name] ?? []).toFixed(1)} CPU-ms/page`,
  )
const [webdata, crawlee] = [median(rates.webdata ?? []), median(rates.crawlee ?? [])]
if (webdata > 0 && crawlee > 0)
  console.log(`ratio webdata / Crawlee: ${(webdata / crawlee).toFixed(2)}x (target ≥ 1.5x)`)
