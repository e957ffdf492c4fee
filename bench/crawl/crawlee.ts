/**
 * The baseline: Crawlee's `CheerioCrawler` doing what webdata's crawl does — fetch each page, turn its HTML into
 * markdown with turndown, store the result, enqueue the same-site links — until every page of the site is done.
 *
 * Concurrency is pinned (`minConcurrency = maxConcurrency`) so the autoscaler cannot run below the level webdata gets.
 * Storage goes to a fresh temporary directory that is removed afterwards; `persist: false` keeps Crawlee's request
 * queue and dataset in memory only (the counterpart of webdata's `memory:` store), `persist: true` is Crawlee's
 * default of also writing them to that directory (the counterpart of a SQLite store).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CheerioCrawler, Configuration, LogLevel, log } from "@crawlee/cheerio"
import TurndownService from "turndown"

export interface CrawleeOptions {
  readonly concurrency: number
  readonly persist: boolean
  /** Called after each page's markdown is stored. */
  readonly onPage?: () => void
}

export interface CrawlResult {
  /** Pages the crawler reported done. */
  readonly completed: number
  /** Distinct URLs among the stored documents. */
  readonly distinct: number
  readonly failed: number
}

export const crawlWithCrawlee = async (url: string, options: CrawleeOptions): Promise<CrawlResult> => {
  log.setLevel(process.env.CRAWLEE_DEBUG ? LogLevel.DEBUG : LogLevel.WARNING)
  const directory = await mkdtemp(join(tmpdir(), "webdata-bench-crawlee-"))
  try {
    const config = new Configuration({
      storageClientOptions: { localDataDirectory: directory, persistStorage: options.persist },
      persistStorage: options.persist,
      purgeOnStart: true,
    })
    const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
    const crawler = new CheerioCrawler(
      {
        // No `maxRequestsPerCrawl`: with it Crawlee 3.18 stops enqueueing once enqueued + handled reaches the limit,
        // counting links that deduplication then drops (apify/crawlee#3153), and ends with fewer pages than the
        // site has (with the queue in memory it stalled outright in our trials). The fixture site has exactly the pages the
        // benchmark wants, so an unlimited crawl does the same work as webdata's `limit = pages`.
        minConcurrency: options.concurrency,
        maxConcurrency: options.concurrency,
        async requestHandler({ request, body, enqueueLinks, pushData }) {
          const markdown = turndown.turndown(body.toString())
          await pushData({ url: request.loadedUrl ?? request.url, markdown })
          await enqueueLinks()
          options.onPage?.()
        },
      },
      config,
    )
    const stats = await crawler.run([url])
    const dataset = await crawler.getDataset()
    const urls = new Set<string>()
    await dataset.forEach((item) => {
      urls.add(String(item.url))
    })
    return { completed: stats.requestsFinished, distinct: urls.size, failed: stats.requestsFailed }
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}
