/**
 * Run as a child process by the crash-resume test: an engine on the SQLite file with a worker whose leases last a
 * minute, so a crawl that resumes sooner than that shows the leases of the killed process were taken back at once.
 * `start <site> <webhook>` starts a crawl with that webhook and prints its id; `resume <id>` waits for the crawl to
 * end. Both print `completed <n>` as the crawl advances and `done` at the end.
 */
import { Webdata } from "@webdata/core"
import { SqliteJobStore } from "../../src/index.js"

const [filename, mode, target, webhook] = process.argv.slice(2) as [string, "start" | "resume", string, string]

const webdata = new Webdata({
  allowPrivateAddresses: true,
  store: SqliteJobStore.layer({ filename }),
  worker: { concurrency: 8, leaseMs: 60_000 },
})

const id = mode === "start" ? (await webdata.startCrawl(target, { sitemap: "skip", limit: 1000, webhook })).id : target
process.stdout.write(`job ${id}\n`)
for (;;) {
  const status = await webdata.getCrawlStatus(id, { limit: 1 })
  process.stdout.write(`completed ${status.completed}\n`)
  if (status.status !== "scraping") break
  await new Promise((resolve) => setTimeout(resolve, 50))
}
process.stdout.write("done\n")
await webdata.close()
