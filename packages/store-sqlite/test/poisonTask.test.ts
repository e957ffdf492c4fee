/**
 * A page whose worker dies every time (its lease runs out again and again) is given up on, so the crawl ends instead
 * of crashing one worker after another.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webdata } from "@webdata/core"
import { JobStore } from "@webdata/core/jobs"
import { Effect } from "effect"
import { afterAll, expect, it } from "vitest"
import { startCrawlSite } from "../../core/test/support/crawlSite.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-poison-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it("fails a task whose lease expired on every attempt, without fetching it again", async () => {
  const site = await startCrawlSite({ pages: { "/": { links: ["/a"] }, "/a": {} } })
  const filename = join(dir, "poison.db")
  const store = SqliteJobStore.layer({ filename })
  const api = new Webdata({ allowPrivateAddresses: true, store, worker: false })
  try {
    const { id } = await api.startCrawl(site.url, { sitemap: "skip" })
    // Three workers took the seed and vanished: each lease ran out.
    await Effect.runPromise(
      Effect.gen(function* () {
        const jobs = yield* JobStore
        for (let i = 0; i < 3; i++) {
          const leased = yield* jobs.leaseTasks({ worker: `dead-${i}`, now: Date.now(), leaseMs: 1, max: 10 })
          expect(leased).toHaveLength(1)
          yield* Effect.sleep("5 millis")
        }
      }).pipe(Effect.provide(store)),
    )
    const worker = new Webdata({ allowPrivateAddresses: true, store, worker: { pollMs: 20 } })
    try {
      for (let i = 0; i < 200 && (await worker.getCrawlStatus(id)).status === "scraping"; i++)
        await new Promise((resolve) => setTimeout(resolve, 25))
      const status = await worker.getCrawlStatus(id)
      expect(status.status).toBe("completed")
      expect(status.data).toEqual([])
      const errors = await worker.getCrawlErrors(id)
      expect(errors.errors).toEqual([expect.objectContaining({ code: "SCRAPE_RETRY_LIMIT", url: `${site.url}/` })])
      expect(site.hits("/")).toBe(0)
    } finally {
      await worker.close()
    }
  } finally {
    await api.close()
    await site.close()
  }
}, 30_000)
