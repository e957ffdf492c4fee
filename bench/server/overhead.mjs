/**
 * Server overhead: latency of `POST /v2/scrape` for a ~100 KB page on loopback, against a bare fetch of the same
 * page in the same run. The difference is what the API adds: request handling, validation, the URL guard, the
 * content pipeline and JSON encoding. Run: `npm run server -w @webdata/bench` (ROUNDS and REQUESTS override). It
 * runs on the compiled packages with plain `node`, as `npm start` does: a TypeScript loader would add its own cost.
 *
 * SERVER=inline (default): the API runs in this process (memory store, pipeline on the main thread), so the
 * difference is the server's work alone. SERVER=process: `npm start`'s entry in a child process with its defaults
 * (SQLite store in a temporary folder unless WEBDATA_STORE names one, content threads, heap growth step), as
 * deployed; the difference then also holds the wake-ups between processes that the in-process bare fetch does not
 * pay. PAGE=tiny scrapes a 50-byte page instead: the fixed cost of a request.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { serve } from "@webdata/adapter-express"
import { Engine, ServerConfig } from "@webdata/core"

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const REQUESTS = Number(process.env.REQUESTS ?? 200)
const WARMUP = 30

/** A realistic ~100 KB article page: navigation, sidebar, footer and a long article with tables and lists. */
const makePage = () => {
  const paragraph = (i) =>
    `<p>Paragraph ${i} of the article explains, in plain words, how the <a href="/glossary/${i}">term ${i}</a> relates to the measurements in the previous section, with enough detail to be useful and a few numbers such as ${i * 17} and ${i * 3.5}.</p>`
  const nav = Array.from({ length: 40 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join("")
  const rows = Array.from(
    { length: 30 },
    (_, i) => `<tr><td>Row ${i}</td><td>${i * 2}</td><td>${i * 3}</td></tr>`,
  ).join("")
  const body = Array.from({ length: 400 }, (_, i) =>
    i % 40 === 0 ? `<h2>Part ${i / 40 + 1}</h2>${paragraph(i)}` : paragraph(i),
  ).join("\n")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Benchmark article</title>
<meta name="description" content="A long article for the overhead benchmark"><script>var x = 1;</script>
<style>body { font-family: sans-serif }</style></head><body>
<header><nav><ul>${nav}</ul></nav></header><div class="layout"><aside class="sidebar"><ul>${nav}</ul></aside>
<main><article><h1>Benchmark article</h1>${body}<table><thead><tr><th>Name</th><th>A</th><th>B</th></tr></thead><tbody>${rows}</tbody></table></article></main></div>
<footer><p>Footer text © 2026</p></footer></body></html>`
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const time = async (run, count) => {
  const samples = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    await run()
    samples.push(performance.now() - started)
  }
  return samples.sort((a, b) => a - b)
}

const page = process.env.PAGE === "tiny" ? "<html><body><p>Hello, tiny page.</p></body></html>" : makePage()
const site = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  res.end(page)
})
await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve))
const pageUrl = `http://127.0.0.1:${site.address().port}/article`

/** `npm start`'s entry in a child process with its default configuration; resolves once it listens. */
const startProcess = async () => {
  const folder = mkdtempSync(join(tmpdir(), "webdata-bench-server-"))
  const child = spawn(
    process.execPath,
    [new URL("../../packages/adapter-express/dist/main.js", import.meta.url).pathname],
    {
      env: {
        ...process.env,
        PORT: "0",
        WEBDATA_STORE: process.env.WEBDATA_STORE ?? `sqlite:${join(folder, "webdata.db")}`,
        WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  )
  const url = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited with code ${code}`)))
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /listening on (\S+)/.exec(line)
      if (match) resolve(match[1])
    })
  })
  const close = async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
    rmSync(folder, { recursive: true, force: true })
  }
  return { url, close }
}

const api =
  process.env.SERVER === "process"
    ? await startProcess()
    : await serve({
        port: 0,
        engine: Engine.layer({ allowPrivateAddresses: true, cacheMaxBytes: 0 }),
        serverConfig: ServerConfig.layer(),
      })

const bareFetch = async () => {
  const response = await fetch(pageUrl)
  await response.text()
}
const scrape = async () => {
  const response = await fetch(`${api.url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: pageUrl, maxAge: 0 }),
  })
  const body = await response.json()
  if (!body.success) throw new Error(`scrape failed: ${JSON.stringify(body)}`)
}

console.log(
  `page: ${(Buffer.byteLength(page) / 1024).toFixed(1)} KB, server ${process.env.SERVER ?? "inline"}, ${ROUNDS} rounds × ${REQUESTS} sequential requests`,
)
await time(bareFetch, WARMUP)
await time(scrape, WARMUP)
const rounds = []
for (let round = 0; round < ROUNDS; round++) {
  const fetched = await time(bareFetch, REQUESTS)
  const scraped = await time(scrape, REQUESTS)
  const result = {
    fetchP50: percentile(fetched, 50),
    fetchP99: percentile(fetched, 99),
    scrapeP50: percentile(scraped, 50),
    scrapeP99: percentile(scraped, 99),
  }
  rounds.push(result)
  console.log(
    `round ${round + 1}: bare fetch p50 ${result.fetchP50.toFixed(2)} ms p99 ${result.fetchP99.toFixed(2)} ms | ` +
      `POST /v2/scrape p50 ${result.scrapeP50.toFixed(2)} ms p99 ${result.scrapeP99.toFixed(2)} ms`,
  )
}
const summary = {
  fetchP50: median(rounds.map((r) => r.fetchP50)),
  fetchP99: median(rounds.map((r) => r.fetchP99)),
  scrapeP50: median(rounds.map((r) => r.scrapeP50)),
  scrapeP99: median(rounds.map((r) => r.scrapeP99)),
}
console.log(
  `median of rounds: overhead p50 ${(summary.scrapeP50 - summary.fetchP50).toFixed(2)} ms, ` +
    `p99 ${(summary.scrapeP99 - summary.fetchP99).toFixed(2)} ms ` +
    `(bare fetch p50 ${summary.fetchP50.toFixed(2)} ms, scrape p50 ${summary.scrapeP50.toFixed(2)} ms)`,
)
await api.close()
site.close()
