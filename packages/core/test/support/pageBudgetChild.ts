/**
 * Run as a child process by the page-budget test: serves heavy pages on loopback, scrapes each once through the engine
 * (as the library runs it: on this thread), and prints one JSON line per page with its outcome, its time and the
 * process's peak RSS growth over the state after a warm-up scrape (`maxRSS` is exact even while a page blocks).
 */
import { createServer } from "node:http"
import { gzipSync } from "node:zlib"
import { Webdata, WebdataError } from "../../src/Webdata.js"
import { listenOnLoopback } from "./loopback.js"

const cells = "<td>cell</td>".repeat(1000)
const pages: Record<string, { body: Buffer; encoding?: string }> = {
  "/small": { body: Buffer.from("<html><body><h1>Small</h1><p>A small page.</p></body></html>") },
  "/table": { body: Buffer.from(`<html><body><table>${`<tr>${cells}</tr>`.repeat(1000)}</table></body></html>`) },
  "/line": { body: Buffer.from(`<html><body><p>${"word ".repeat(3_000_000)}</p></body></html>`) },
  "/stacked": { body: gzipSync("<p>x</p>"), encoding: Array(2000).fill("gzip").join(", ") },
}
const site = await listenOnLoopback(
  createServer((req, res) => {
    const page = pages[req.url ?? ""]
    if (page === undefined) return void res.writeHead(404).end()
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      ...(page.encoding !== undefined ? { "content-encoding": page.encoding } : {}),
    })
    res.end(page.body)
  }),
)
const webdata = new Webdata({ allowPrivateAddresses: true })
const maxRssMb = () => process.resourceUsage().maxRSS / 1024
await webdata.scrape(`${site.url}/small`)
const baseline = maxRssMb()
for (const path of process.argv.slice(2)) {
  const started = performance.now()
  let outcome: string
  try {
    const document = await webdata.scrape(`${site.url}${path}`, { timeout: 30_000, formats: ["markdown"] })
    outcome = `document ${document.markdown?.length ?? 0}`
  } catch (error) {
    outcome = error instanceof WebdataError ? error.code : String(error)
  }
  const ms = performance.now() - started
  process.stdout.write(`${JSON.stringify({ path, outcome, ms, rssGrowthMb: maxRssMb() - baseline })}\n`)
}
await webdata.close()
await site.close()
