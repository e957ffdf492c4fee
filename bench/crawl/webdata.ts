/**
 * webdata's side of the crawl benchmarks, through the library facade: a crawl of the fixture site with markdown
 * documents, the scrape cache neither read nor written (each round must fetch every page), no sitemap, `concurrency` pages at once.
 * The store is the library's default, in memory; `STORE=sqlite` puts it in a SQLite file in a temporary directory
 * (the server's default), removed afterwards; `INDEX=off` leaves the pages out of the local search index.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type CrawlOptions, Webdata } from "@webdata/core"
import { SqliteJobStore } from "@webdata/store-sqlite"

export interface WebdataRunOptions {
  readonly limit: number
  readonly concurrency: number
}

const crawlOptions = (options: WebdataRunOptions): CrawlOptions => ({
  limit: options.limit,
  maxConcurrency: options.concurrency,
  sitemap: "skip",
  scrapeOptions: { formats: ["markdown"], maxAge: 0, storeInCache: false },
})

const makeWebdata = (options: WebdataRunOptions, directory: string | undefined) =>
  new Webdata({
    allowPrivateAddresses: true,
    worker: { concurrency: options.concurrency },
    // As a server or `webdata worker` runs by default on this 2-core machine: one content thread.
    contentThreads: Number(process.env.CONTENT_THREADS ?? 1),
    // INDEX=off: a search chain without `local`, so that no page is indexed (a crawl never asks the provider).
    ...(process.env.INDEX === "off" ? { search: ["duckduckgo" as const] } : {}),
    ...(directory !== undefined ? { store: SqliteJobStore.layer({ filename: join(directory, "webdata.db") }) } : {}),
  })

/** Crawls and waits, holding every document (the 2000-page comparison, where Crawlee's dataset holds them too). */
export const crawlWithWebdata = async (url: string, options: WebdataRunOptions) => {
  const directory = process.env.STORE === "sqlite" ? mkdtempSync(join(tmpdir(), "webdata-bench-crawl-")) : undefined
  const webdata = makeWebdata(options, directory)
  try {
    const job = await webdata.crawl(url, crawlOptions(options))
    const distinct = new Set(job.data.map((document) => document.metadata.url)).size
    return { status: job.status, completed: job.completed, distinct, failed: job.failed }
  } finally {
    await webdata.close()
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true })
  }
}
