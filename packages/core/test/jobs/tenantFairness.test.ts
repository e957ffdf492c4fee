/**
 * Fair leasing across tenants, measured through the real worker: one tenant floods the queue with crawls, another
 * starts one, and the second's crawl must finish about as fast as when it runs alone, not after the flood. Real
 * engine and worker, memory store, slow pages on 127.0.0.1.
 */
import { Effect, ManagedRuntime, Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Crawl } from "../../src/Crawl.js"
import * as Engine from "../../src/Engine.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import type { Owner } from "../../src/Jobs/Owner.js"
import { type SitePage, startCrawlSite } from "../support/crawlSite.js"

const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close()
})

const PAGE_MS = 200
const SLOTS = 8

/** A home page linking `count - 1` pages, each `PAGE_MS` slow: a crawl that can use every slot it is given. */
const flatSite = async (count: number) => {
  const pages: Record<string, SitePage> = {
    "/": { links: Array.from({ length: count - 1 }, (_, i) => `/p/${i}`), delayMs: PAGE_MS },
  }
  for (let i = 0; i < count - 1; i++) pages[`/p/${i}`] = { delayMs: PAGE_MS }
  const site = await startCrawlSite({ pages })
  open.push(site)
  return site
}

describe("fair leasing across tenants, through the worker", () => {
  it("a tenant's crawl finishes close to its solo time while another tenant floods the queue", async () => {
    const flood = await flatSite(20)
    const small = await flatSite(10)
    // No page cache: every crawl of the flood fetches its pages.
    const runtime = ManagedRuntime.make(
      Engine.layer({ allowPrivateAddresses: true, cacheMaxBytes: 0, worker: { concurrency: SLOTS } }),
    )
    open.push({ close: () => runtime.dispose() })
    const start = (url: string, owner: Owner) =>
      runtime.runPromise(
        Effect.map(
          Effect.flatMap(Crawl, (crawl) => crawl.start({ url, sitemap: "skip" }, owner)),
          (started) => started.job.id,
        ),
      )
    const finished = (id: string) =>
      runtime.runPromise(
        Effect.flatMap(JobStore, (store) =>
          Effect.map(store.getJob(id), (job) => Option.getOrThrow(job).status === "completed"),
        ),
      )
    /** Milliseconds from `since` until every job has completed. */
    const timeUntilDone = async (ids: ReadonlyArray<string>, since: number) => {
      while (!(await Promise.all(ids.map(finished))).every(Boolean)) {
        if (Date.now() - since > 60_000) throw new Error("crawls not done in a minute")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return Date.now() - since
    }

    // Alone (twice: the first run warms the engine up).
    await timeUntilDone([await start(small.url, "tenant-b")], Date.now())
    const soloStart = Date.now()
    const solo = await timeUntilDone([await start(small.url, "tenant-b")], soloStart)

    // Tenant A's twenty crawls take every slot; B starts once they run.
    const floodStart = Date.now()
    const floodIds: Array<string> = []
    for (let i = 0; i < 20; i++) floodIds.push(await start(flood.url, "tenant-a"))
    await new Promise((resolve) => setTimeout(resolve, 3 * PAGE_MS))
    const contendedStart = Date.now()
    const contended = await timeUntilDone([await start(small.url, "tenant-b")], contendedStart)
    const floodDone = await timeUntilDone(floodIds, floodStart)
    console.info(
      `tenant fairness: B's 10-page crawl alone ${solo} ms, beside A's 20 × 20 pages ${contended} ms`,
      `(${(contended / solo).toFixed(2)}×); A's crawls took ${floodDone} ms (${SLOTS} slots, ${PAGE_MS} ms a page)`,
    )
    expect(contended).toBeLessThan(3 * solo)
    // The flood's own work (400 pages on 8 slots) needs 10 s at least: B did not wait behind it.
    expect(floodDone).toBeGreaterThan((400 / SLOTS) * PAGE_MS)
    expect(contended).toBeLessThan(floodDone / 4)
  }, 90_000)
})
