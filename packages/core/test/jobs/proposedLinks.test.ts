/**
 * A crawl sends the store each link once its page's commit is recorded: the links every page repeats (navigation,
 * pagination) are not filtered and sent again with every page. A page whose commit was not recorded (its lease was
 * lost) proposes its links again when it runs again, so none is lost. A page with thousands of links sends them in
 * slices ahead of its own commit, which repeat harmlessly when it runs again.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { Webdata } from "../../src/Webdata.js"
import { type CrawlSite, type SitePage, startCrawlSite } from "../support/crawlSite.js"

const PAGES = 30
const paths = ["/", ...Array.from({ length: PAGES }, (_, index) => `/p/${index}`)]
// Every page links every page: a crawl meets each link 31 times.
const mesh: Record<string, SitePage> = Object.fromEntries(paths.map((path) => [path, { links: paths }]))

/**
 * The memory store, counting the links sent with commits (and the sizes of the slices sent ahead of a commit); `lose`
 * says which commits to answer "not recorded".
 */
const countingStore = (lose: (url: string) => boolean) => {
  const sent = { links: 0, lost: 0, slices: [] as Array<number>, commits: [] as Array<{ url: string; links: number }> }
  const layer = Layer.effect(
    JobStore,
    Effect.map(JobStore, (store) =>
      JobStore.of({
        ...store,
        completeTask: (task, outcome) => {
          if (lose(task.url)) {
            sent.lost++
            // As when another worker took the lease over: nothing is written; the task runs again after its lease.
            return Effect.succeed({
              recorded: false,
              finished: false,
              job: store.getJob(task.jobId).pipe(Effect.runSync),
            })
          }
          sent.links += outcome.discovered.length
          sent.commits.push({ url: task.url, links: outcome.discovered.length })
          return store.completeTask(task, outcome)
        },
        addTasks: (jobId, tasks, now) => {
          sent.slices.push(tasks.length)
          return store.addTasks(jobId, tasks, now)
        },
      }),
    ),
  ).pipe(Layer.provide(MemoryJobStore.layer()))
  return { sent, layer }
}

/** Loses the start page's first commit, whichever run makes it (a run can also end by a lease lost to a stall). */
const firstCommitOfStartPage = () => {
  let commits = 0
  return (url: string) => new URL(url).pathname === "/" && commits++ === 0
}

let site: CrawlSite
beforeAll(async () => {
  site = await startCrawlSite({ pages: mesh })
})
afterAll(() => site?.close())

/** An engine on `store` whose worker takes a lost lease back after `leaseMs`. */
const engineOn = (store: ReturnType<typeof countingStore>, leaseMs = 300) =>
  new Webdata({ allowPrivateAddresses: true, store: store.layer, worker: { concurrency: 2, leaseMs, pollMs: 20 } })

const crawl = async (store: ReturnType<typeof countingStore>) => {
  const webdata = engineOn(store)
  try {
    return await webdata.crawl(site.url, { limit: 100, sitemap: "skip", scrapeOptions: { maxAge: 0 } })
  } finally {
    await webdata.close()
  }
}

describe("links a crawl has proposed", () => {
  it("are sent to the store once, not with every page that repeats them", async () => {
    const store = countingStore(() => false)
    const job = await crawl(store)
    expect(job.status).toBe("completed")
    expect(job.data).toHaveLength(PAGES + 1)
    for (const path of paths) expect(site.hits(path)).toBe(1)
    // Without the memory of proposed links: 31 pages × 30 links each.
    expect(store.sent.links).toBeLessThan(4 * PAGES)
  })

  it("are proposed again by a page whose commit was not recorded", async () => {
    // The start page's first commit is lost: only its next run can give the crawl its links.
    const store = countingStore(firstCommitOfStartPage())
    const job = await crawl(store)
    expect(store.sent.lost).toBe(1)
    expect(job.status).toBe("completed")
    expect(job.data).toHaveLength(PAGES + 1)
  })
})

describe("a page with thousands of links", () => {
  const LINKS = 4_500
  const LIMIT = 3_000
  let wide: CrawlSite
  beforeAll(async () => {
    wide = await startCrawlSite({
      pages: { "/": { links: Array.from({ length: LINKS }, (_, index) => `/w/${index}`) } },
    })
  })
  afterAll(() => wide?.close())

  /**
   * Starts a crawl of the wide site, waits for the start page's recorded commit, and cancels the crawl. The lease
   * outlasts the start page's first run (~0.8 s here, cold, with the event loop held for stretches while it sorts its
   * 4 500 links): a 300 ms lease ran out during it, so the page's first commit came from its second run. A page whose
   * commit was lost runs again after the pages it admitted, which are due before it: that test crawls up to the limit.
   */
  const admitted = async (store: ReturnType<typeof countingStore>) => {
    const webdata = engineOn(store, 2_000)
    try {
      const { id } = await webdata.startCrawl(wide.url, { limit: LIMIT, sitemap: "skip", scrapeOptions: { maxAge: 0 } })
      const startPage = () => store.sent.commits.find((commit) => new URL(commit.url).pathname === "/")
      for (const until = Date.now() + 20_000; startPage() === undefined && Date.now() < until; )
        await new Promise((resolve) => setTimeout(resolve, 20))
      const { total } = await webdata.getCrawlStatus(id, { limit: 1 })
      await webdata.cancelCrawl(id)
      return { total, startPage: startPage() }
    } finally {
      await webdata.close()
    }
  }

  it("admits them in slices committed before its own, up to the crawl's limit", async () => {
    const store = countingStore(() => false)
    const { total, startPage } = await admitted(store)
    expect(total).toBe(LIMIT)
    // 2 000 and 2 000 ahead of the start page's commit, which carries the rest (with its link home).
    expect(store.sent.slices).toEqual([2_000, 2_000])
    expect(startPage?.links).toBe(LINKS + 1 - 4_000)
  })

  it("admits each once when the page runs again after its commit was lost", async () => {
    const store = countingStore(firstCommitOfStartPage())
    const { total, startPage } = await admitted(store)
    expect(store.sent.lost).toBe(1)
    // The slices went in with each run (before the lost commit and before the recorded one); the store took each link
    // once.
    expect(store.sent.slices.length).toBeGreaterThanOrEqual(4)
    expect(store.sent.slices.length % 2).toBe(0)
    expect(new Set(store.sent.slices)).toEqual(new Set([2_000]))
    expect(startPage?.links).toBe(LINKS + 1 - 4_000)
    expect(total).toBe(LIMIT)
  })
})
