/**
 * Server overhead: latency of `POST /v2/scrape` for ~100 KB pages on loopback, against a bare fetch of the same
 * pages in the same run. The difference is what the API adds: request handling, validation, the URL guard, the
 * content pipeline and JSON encoding. Run: `npm run server -w @webdata/bench` (ROUNDS and REQUESTS override). It
 * runs on the compiled packages with plain `node`, as `npm start` does: a TypeScript loader would add its own cost.
 *
 * PAGE=synthetic (default): one text-dense 96 KB article, the pipeline's worst case per byte (its markdown is as long
 * as its HTML). PAGE=corpus: the real pages of 80–120 KB of the Zyte article-extraction benchmark, one after the
 * other (read from its git directory, ARTICLE_BENCHMARK_REPO, as the content benchmark does). PAGE=tiny: a 50-byte
 * page, the fixed cost of a request.
 *
 * SERVER, a comma list (default `floor,floor-process,inline,process`), names the servers measured; their requests
 * are interleaved (a bare fetch, then one scrape on each), so that all see the same moments of this machine.
 * - inline: the API in this process (memory store, pipeline on the main thread): the server's work alone.
 * - process: `npm start`'s entry in a child process with its defaults (SQLite store in a temporary folder unless
 *   WEBDATA_STORE names one, content threads, heap growth step), as deployed; the difference then also holds the
 *   wake-ups between processes that the in-process bare fetch does not pay. `process+NAME=value+...` adds
 *   environment variables; CHILD_FLAGS passes Node flags to the children.
 * - floor: no framework at all, in this process: a bare `node:http` server that reads the JSON body, fetches the page
 *   with `fetch`, runs the same content pipeline (`@webdata/core/content`) and answers the document as JSON; no
 *   validation, URL guard, limits, cache or store. What the API costs beyond it is the framework's share.
 * - floor-process: the floor in a child process (compare with `process`).
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { gunzipSync } from "node:zlib"
import { Engine, ServerConfig } from "@webdata/core"
import { serve } from "@webdata/server"
import { articlePage } from "../lambda/site.mjs"
import { startFloor } from "./floor.mjs"

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const REQUESTS = Number(process.env.REQUESTS ?? 200)
const WARMUP = 30

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** The article benchmark's pages of 80–120 KB (the corpus's median page is 112 KB). */
const corpusPages = () => {
  const repo = process.env.ARTICLE_BENCHMARK_REPO
  if (!repo)
    throw new Error(
      "PAGE=corpus: set ARTICLE_BENCHMARK_REPO to the git directory of a clone of https://github.com/scrapinghub/article-extraction-benchmark",
    )
  const git = (...args) => execFileSync("git", [`--git-dir=${repo}`, ...args], { maxBuffer: 256 * 1024 * 1024 })
  const ids = Object.keys(JSON.parse(git("show", "HEAD:ground-truth.json").toString("utf8")))
  return ids
    .map((id) => gunzipSync(git("show", `HEAD:html/${id}.html.gz`)))
    .filter((page) => page.length >= 80 * 1024 && page.length <= 120 * 1024)
}

const PAGE = process.env.PAGE ?? "synthetic"
const pages =
  PAGE === "tiny"
    ? [Buffer.from("<html><body><p>Hello, tiny page.</p></body></html>")]
    : PAGE === "corpus"
      ? corpusPages()
      : PAGE === "synthetic"
        ? [Buffer.from(articlePage())]
        : undefined
if (pages === undefined || pages.length === 0) throw new Error(`PAGE=${PAGE}: expected synthetic, corpus or tiny`)
const site = createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  res.end(pages[Number(req.url.slice(1)) % pages.length])
})
await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve))
// Each request asks for the next page: bare fetches and scrapes go through the same sequence.
let sent = 0
const nextPageUrl = () => `http://127.0.0.1:${site.address().port}/${sent++}`

/** `entry` in a child process (by default `npm start`'s, with its defaults) and `env`; resolves once it listens. */
const startProcess = async (env, entry = new URL("../../packages/server/dist/main.js", import.meta.url)) => {
  const folder = mkdtempSync(join(tmpdir(), "webdata-bench-server-"))
  const flags = (process.env.CHILD_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
  const child = spawn(process.execPath, [...flags, entry.pathname], {
    env: {
      ...process.env,
      PORT: "0",
      WEBDATA_STORE: process.env.WEBDATA_STORE ?? `sqlite:${join(folder, "webdata.db")}`,
      WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  })
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

/**
 * `inline`, `floor`, `floor-process` (the floor in a child process), `process`, or `process+NAME=value+...` (the
 * child's environment on top of the defaults).
 */
const startServer = async (spec) => {
  const [kind, ...assignments] = spec.split("+")
  if (kind === "inline" && assignments.length === 0)
    return serve({
      port: 0,
      engine: Engine.layer({ allowPrivateAddresses: true, cacheMaxBytes: 0 }),
      serverConfig: ServerConfig.layer(),
    })
  if (kind === "floor" && assignments.length === 0) return startFloor()
  if (kind === "floor-process" && assignments.length === 0)
    return startProcess({ BENCH_FLOOR_SERVER: "1" }, new URL("./floor.mjs", import.meta.url))
  // Split at the first "=" only: values such as NODE_OPTIONS=--max-semi-space-size=32 hold one too.
  const variables = assignments.map((assignment) => /^([^=]+)=(.*)$/.exec(assignment))
  if (kind === "process" && variables.every((match) => match !== null))
    return startProcess(Object.fromEntries(variables.map(([, name, value]) => [name, value])))
  throw new Error(`SERVER=${spec}: expected inline, floor, floor-process, process or process+NAME=value`)
}

const SERVER = (process.env.SERVER ?? "floor,floor-process,inline,process").split(",")
const servers = []
for (const spec of SERVER) servers.push({ spec, ...(await startServer(spec)) })

const bareFetch = async () => {
  const response = await fetch(nextPageUrl())
  await response.text()
}
const scrape = async (server) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: nextPageUrl(), maxAge: 0 }),
  })
  const body = await response.json()
  if (!body.success) throw new Error(`scrape failed: ${JSON.stringify(body)}`)
}

/** One request of each lane in turn, so that every lane sees the same moments of the machine. */
const lanes = [
  { name: "bare fetch", run: bareFetch },
  ...servers.map((server) => ({ name: server.spec, run: () => scrape(server) })),
]
const timeLanes = async (count) => {
  const samples = lanes.map(() => [])
  for (let i = 0; i < count; i++)
    for (const [index, lane] of lanes.entries()) {
      const started = performance.now()
      await lane.run()
      samples[index].push(performance.now() - started)
    }
  return samples.map((values) => values.sort((a, b) => a - b))
}

const sizes = pages.map((page) => page.length / 1024)
console.log(
  `page ${PAGE}: ${pages.length} page(s) of ${Math.min(...sizes).toFixed(1)}–${Math.max(...sizes).toFixed(1)} KB; ` +
    `servers ${SERVER.join(", ")}; ${ROUNDS} rounds × ${REQUESTS} requests per lane, lanes interleaved`,
)
await timeLanes(WARMUP)
const rounds = []
for (let round = 0; round < ROUNDS; round++) {
  const samples = await timeLanes(REQUESTS)
  const result = samples.map((sorted) => ({ p50: percentile(sorted, 50), p99: percentile(sorted, 99) }))
  rounds.push(result)
  console.log(
    `round ${round + 1}: ${lanes.map((lane, index) => `${lane.name} p50 ${result[index].p50.toFixed(2)} ms p99 ${result[index].p99.toFixed(2)} ms`).join(" | ")}`,
  )
}
const medianOf = (index, key) => median(rounds.map((result) => result[index][key]))
const bare = { p50: medianOf(0, "p50"), p99: medianOf(0, "p99") }
console.log(`median of rounds: bare fetch p50 ${bare.p50.toFixed(2)} ms, p99 ${bare.p99.toFixed(2)} ms`)
for (const [index, lane] of lanes.entries()) {
  if (index === 0) continue
  const p50 = medianOf(index, "p50")
  const p99 = medianOf(index, "p99")
  console.log(
    `  ${lane.name}: POST /v2/scrape p50 ${p50.toFixed(2)} ms -> overhead p50 ${(p50 - bare.p50).toFixed(2)} ms, ` +
      `p99 ${(p99 - bare.p99).toFixed(2)} ms`,
  )
}
for (const server of servers) await server.close()
site.close()
