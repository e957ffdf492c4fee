/**
 * The AWS Lambda adapter as `examples/lambda` deploys it: `npm run lambda -w @webdata/bench` (it compiles the
 * packages first, like the server benchmark, since the Express lane runs `@webdata/server` compiled). Three measures:
 *
 * 1. Bundle size: `examples/lambda/build.mjs` into a temporary folder (outside the repository, so that nothing
 *    resolves from its node_modules, as on Lambda); bytes and gzip of each output.
 * 2. Cold start: COLD (default 10) fresh `node` processes (`probe.mjs`), each importing the bundle (Lambda's module
 *    initialisation) and then serving one `POST /v2/scrape` of a local page through `handler` (the first invocation
 *    builds the engine). Interleaved with as many processes run with `--enable-source-maps`. Medians.
 * 3. Warm overhead: the same `POST /v2/scrape` of a local page (`maxAge: 0`, so every request fetches): PAGE=article
 *    (default), the server benchmark's text-dense 96 KB article, or PAGE=tiny, a 50-byte page (the fixed cost of a
 *    request). In this process, through (a) `serve()` of `@webdata/server` over loopback HTTP and (b) the bundle's
 *    `handler` invoked with an HTTP API event; a bare `fetch` of the page is the floor. Both engines come from the
 *    environment (`WEBDATA_STORE=memory:`), without a worker, as the Lambda API function runs. Blocks of BLOCK
 *    requests alternate between the lanes (order rotating); ROUNDS rounds of REQUESTS requests per lane after WARMUP;
 *    p50/p90 per round, the median of the rounds reported.
 *
 * What the lanes include: the Express lane pays the HTTP round trip over loopback (client, socket, Node's HTTP parser,
 * Express, the response stream); the Lambda lane pays the event → `Request` and `Response` → result conversion (the
 * body read whole, the result's JSON size checked against 6 MB) but no network at all: on Lambda the runtime's own
 * hand-over (and API Gateway's) comes on top, and is not measured here.
 */
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "../../examples/lambda/build.mjs"
import { httpApiEvent, lambdaContext } from "./events.mjs"
import { articlePage, startSite, TINY_PAGE } from "./site.mjs"

const COLD = Number(process.env.COLD ?? 10)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const REQUESTS = Number(process.env.REQUESTS ?? 200)
const BLOCK = Number(process.env.BLOCK ?? 20)
const WARMUP = Number(process.env.WARMUP ?? 40)
const PAGE = process.env.PAGE ?? "article"
if (PAGE !== "article" && PAGE !== "tiny") throw new Error(`PAGE=${PAGE}: expected article or tiny`)

// Both engines read these when they are built (at their first request).
process.env.WEBDATA_STORE = "memory:"
process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES = "1"
delete process.env.WEBDATA_API_KEYS
delete process.env.WEBDATA_WORK_QUEUE_URL

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const ms = (value) => `${value.toFixed(2)} ms`
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`

// 1. The bundle.
const outdir = await mkdtemp(join(tmpdir(), "webdata-lambda-bench-"))
const started = performance.now()
const { files } = await build({ outdir })
console.log(`bundle built in ${(performance.now() - started).toFixed(0)} ms into ${outdir}`)
let total = 0
for (const file of files) {
  total += file.bytes
  console.log(
    `  ${file.path.slice(outdir.length + 1).padEnd(22)} ${String(file.bytes).padStart(9)} bytes (${kib(file.bytes)}), gzip ${String(file.gzipBytes).padStart(8)} bytes (${kib(file.gzipBytes)})`,
  )
}
console.log(`  all outputs: ${total} bytes (${kib(total)})`)
const bundle = join(outdir, "index.js")

const site = await startSite()
let sent = 0
/** The next request's page (a query of its own, so that no two requests name the same URL). */
const pageUrl = () => site.url(`/${PAGE}?${sent++}`)

// 2. Cold starts.
const probe = fileURLToPath(new URL("./probe.mjs", import.meta.url))
const coldStart = (flags) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, probe, bundle], {
      // Always the article: the first invocation's time does not depend on PAGE.
      env: { ...process.env, PROBE_SCRAPE: site.url(`/article?cold-${sent++}`) },
      stdio: ["ignore", "pipe", "inherit"],
    })
    let report
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("PROBE ")) report = JSON.parse(line.slice("PROBE ".length))
    })
    child.once("exit", (code) => {
      const scrape = report?.scrapes?.[0]
      if (code !== 0 || scrape?.success !== true)
        reject(new Error(`probe exited ${code}: ${JSON.stringify(scrape?.error ?? report)}`))
      else resolve({ bootMs: report.bootMs, importMs: report.importMs, firstMs: scrape.ms })
    })
  })

const coldLanes = [
  { name: "node", flags: [], samples: [] },
  { name: "node --enable-source-maps", flags: ["--enable-source-maps"], samples: [] },
]
for (let i = 0; i < COLD; i++) for (const lane of coldLanes) lane.samples.push(await coldStart(lane.flags))
if (COLD > 0) console.log(`cold start, ${COLD} processes per lane (interleaved), median [min–max]:`)
for (const lane of COLD > 0 ? coldLanes : []) {
  const summary = (key) => {
    const values = lane.samples.map((sample) => sample[key])
    return `${median(values).toFixed(0)} ms [${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}]`
  }
  console.log(
    `  ${lane.name.padEnd(26)} node start ${summary("bootMs")}, import() ${summary("importMs")}, first POST /v2/scrape ${summary("firstMs")}`,
  )
}

// 3. Warm requests.
const { engineFromEnvironment, serve } = await import("@webdata/server")
const server = await serve({ port: 0, engine: engineFromEnvironment({ worker: false, deliverWebhooks: false }) })
const lambda = await import(pathToFileURL(bundle).href)

const check = (body) => {
  if (body?.success !== true || typeof body.data?.markdown !== "string")
    throw new Error(`scrape failed: ${JSON.stringify(body).slice(0, 500)}`)
}
const lanes = [
  {
    name: "bare fetch",
    run: async () => {
      await (await fetch(pageUrl())).text()
    },
  },
  {
    name: "Express (serve)",
    run: async () => {
      const response = await fetch(`${server.url}/v2/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: pageUrl(), maxAge: 0 }),
      })
      check(await response.json())
    },
  },
  {
    name: "Lambda handler",
    run: async () => {
      const result = await lambda.handler(
        httpApiEvent("POST", "/v2/scrape", { url: pageUrl(), maxAge: 0 }),
        lambdaContext(),
      )
      check(JSON.parse(result.body))
    },
  },
]

/** `count` requests per lane in blocks of BLOCK, the lanes' order rotating from block to block. */
const timeLanes = async (count) => {
  const samples = lanes.map(() => [])
  for (let done = 0, block = 0; done < count; done += BLOCK, block++) {
    const size = Math.min(BLOCK, count - done)
    for (let k = 0; k < lanes.length; k++) {
      const index = (block + k) % lanes.length
      for (let i = 0; i < size; i++) {
        const begun = performance.now()
        await lanes[index].run()
        samples[index].push(performance.now() - begun)
      }
    }
  }
  return samples.map((values) => values.sort((a, b) => a - b))
}

console.log(
  `warm POST /v2/scrape of the ${PAGE} page (${Buffer.byteLength(PAGE === "tiny" ? TINY_PAGE : articlePage())} bytes): ${ROUNDS} rounds × ${REQUESTS} requests per lane in blocks of ${BLOCK}, after ${WARMUP}`,
)
await timeLanes(WARMUP)
const rounds = []
for (let round = 0; round < ROUNDS; round++) {
  const samples = await timeLanes(REQUESTS)
  const result = samples.map((sorted) => ({ p50: percentile(sorted, 50), p90: percentile(sorted, 90) }))
  rounds.push(result)
  console.log(
    `  round ${round + 1}: ${lanes.map((lane, index) => `${lane.name} p50 ${ms(result[index].p50)} p90 ${ms(result[index].p90)}`).join(" | ")}`,
  )
}
const medianOf = (index, key) => median(rounds.map((result) => result[index][key]))
console.log("median of rounds:")
const bare = { p50: medianOf(0, "p50"), p90: medianOf(0, "p90") }
for (const [index, lane] of lanes.entries()) {
  const p50 = medianOf(index, "p50")
  const p90 = medianOf(index, "p90")
  const over = index === 0 ? "" : `, over the bare fetch p50 +${ms(p50 - bare.p50)}, p90 +${ms(p90 - bare.p90)}`
  console.log(`  ${lane.name.padEnd(16)} p50 ${ms(p50)}, p90 ${ms(p90)}${over}`)
}
console.log(
  `  Lambda / Express: p50 ×${(medianOf(2, "p50") / medianOf(1, "p50")).toFixed(2)}, p90 ×${(medianOf(2, "p90") / medianOf(1, "p90")).toFixed(2)}`,
)

await lambda.handler.dispose()
await server.close()
await site.close()
await rm(outdir, { recursive: true, force: true })
