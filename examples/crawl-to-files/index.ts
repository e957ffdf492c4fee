/**
 * Crawls a site into `out/` (one markdown file per page) with the engine embedded in this process:
 * `npm start -w @webdata/example-crawl-to-files -- https://example.com 50`. The job and its id live under `.webdata/`
 * (git ignores it); run the same command again after a crash or Ctrl-C and the crawl picks up where it stopped.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Webdata } from "@webdata/core/engine"
import { SqliteJobStore } from "@webdata/store-sqlite"

const [url = "https://example.com", limit = "25"] = process.argv.slice(2)
const STATE = ".webdata"
const ID_FILE = join(STATE, "crawl.id")
await mkdir(STATE, { recursive: true })
const webdata = new Webdata({
  store: SqliteJobStore.layer({ filename: join(STATE, "crawl.db") }),
  contentThreads: 1, // parse on another core
})

/** A running crawl of the same URL from an earlier run, else a new one. */
const resumeOrStart = async (): Promise<string> => {
  const previous = await readFile(ID_FILE, "utf8").catch(() => undefined)
  if (previous !== undefined) {
    const status = await webdata.getCrawlStatus(previous).catch(() => undefined)
    if (status?.status === "scraping") return previous
  }
  const { id } = await webdata.startCrawl(url, { limit: Number(limit), scrapeOptions: { formats: ["markdown"] } })
  await writeFile(ID_FILE, id)
  return id
}

const id = await resumeOrStart()
await mkdir("out", { recursive: true })
let written = 0
for await (const page of webdata.crawlDocuments(id)) {
  const path = new URL(page.metadata.url).pathname.replace(/\/+$/, "").replace(/[^a-zA-Z0-9._-]+/g, "_") || "index"
  await writeFile(join("out", `${path}.md`), page.markdown ?? "")
  written++
}
const errors = await webdata.getCrawlErrors(id)
console.log(
  `${written} pages written to out/, ${errors.errors.length} failed, ${errors.robotsBlocked.length} blocked by robots.txt`,
)
await webdata.close()
