/**
 * A worker that stops mid-crawl gives its running tasks a short grace period, then gives their leases back: the next
 * worker on the same SQLite file finishes the crawl at once instead of waiting for the leases (60 s) to run out, with
 * every page recorded once.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Crawl, Engine } from "@webdata/core"
import { JobStore } from "@webdata/core/jobs"
import { Effect, ManagedRuntime, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-worker-stop-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const worker = (filename: string) =>
  ManagedRuntime.make(
    Engine.layer({
      store: SqliteJobStore.layer({ filename }),
      allowPrivateAddresses: true,
      worker: { concurrency: 4, leaseMs: 60_000, pollMs: 20, shutdownGraceMs: 100 },
    }),
  )

describe("a worker that stops", () => {
  it("gives back the leases of what it could not finish, so the next worker resumes at once", async () => {
    const filename = join(dir, "stop.db")
    const site = await startCrawlSite({ pages: chainPages(12, { delayMs: 400 }) })
    try {
      const first = worker(filename)
      const started = await first.runPromise(
        Effect.flatMap(Crawl.Crawl, (crawl) => crawl.start({ url: site.url, sitemap: "skip" }, null)),
      )
      const id = started.job.id
      const job = (runtime: typeof first) =>
        runtime.runPromise(Effect.flatMap(JobStore, (store) => Effect.map(store.getJob(id), Option.getOrThrow)))
      // Stopped with pages in flight: the crawl has begun and is far from done.
      for (const deadline = Date.now() + 10_000; (await job(first)).completed < 2; ) {
        if (Date.now() > deadline) throw new Error("the crawl did not start")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const stopping = Date.now()
      await first.dispose()
      expect(Date.now() - stopping).toBeLessThan(3000)

      const second = worker(filename)
      try {
        const resumed = Date.now()
        for (;;) {
          const current = await job(second)
          if (current.status === "completed") break
          if (Date.now() - resumed > 20_000) throw new Error(`not resumed in time: ${JSON.stringify(current)}`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        const documents = await second.runPromise(
          Effect.flatMap(JobStore, (store) => store.documents(id, { skip: 0, limit: 100 })),
        )
        const urls = documents.map((entry) => entry.url)
        expect(urls).toHaveLength(13)
        expect(new Set(urls).size).toBe(13)
        expect(await job(second)).toMatchObject({ completed: 13, failed: 0 })
      } finally {
        await second.dispose()
      }
    } finally {
      await site.close()
    }
  }, 60_000)
})
