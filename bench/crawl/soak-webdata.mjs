/**
 * webdata's side of the crawl soak, run by `soak.ts` in a process of its own on the compiled packages (`npm run build`
 * first), so that its RSS is the engine's and not a TypeScript loader's: `node soak-webdata.mjs <site url> <pages>
 * <sqlite file>`. Drains the documents page by page while the crawl runs (holding none), prints `completed <n>`
 * after each poll and, at the end, `result <json>`.
 */
import { Webdata } from "@webdata/core/engine"
import { SqliteJobStore } from "@webdata/store-sqlite"

const [url, pages, filename] = process.argv.slice(2)
const concurrency = 8
const webdata = new Webdata({
  allowPrivateAddresses: true,
  worker: { concurrency },
  contentThreads: Number(process.env.CONTENT_THREADS ?? 1),
  ...(process.env.CONTENT_THREAD_MB ? { contentThreadMb: Number(process.env.CONTENT_THREAD_MB) } : {}),
  store: SqliteJobStore.layer({ filename }),
  // What servers and workers configured from the environment apply (WEBDATA_HEAP_GROWTH_PERCENT, default 50).
  heapGrowthPercent: Number(process.env.WEBDATA_HEAP_GROWTH_PERCENT ?? 50),
})
const { id } = await webdata.startCrawl(url, {
  limit: Number(pages),
  maxConcurrency: concurrency,
  sitemap: "skip",
  scrapeOptions: { formats: ["markdown"], maxAge: 0, storeInCache: false },
})
// Page indexes of the documents seen (the site's URLs end in /articles/<i>/<slug>): a cheap exactly-once check.
const seen = new Set()
let skip = 0
let peakRss = process.memoryUsage.rss()
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 250)
for (;;) {
  const status = await webdata.getCrawlStatus(id, { skip, limit: 100 })
  for (const document of status.data) seen.add(new URL(document.metadata.url).pathname.split("/")[2] ?? "")
  skip += status.data.length
  process.stdout.write(`completed ${status.completed}\n`)
  if (status.status !== "scraping" && status.data.length === 0) {
    clearInterval(sampler)
    const result = { completed: status.completed, distinct: seen.size, failed: status.failed, peakRss }
    process.stdout.write(`result ${JSON.stringify(result)}\n`)
    break
  }
  if (status.data.length < 100) await new Promise((resolve) => setTimeout(resolve, 100))
}
await webdata.close()
