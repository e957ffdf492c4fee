/**
 * The browser engine against the way a script without a pool would do it, in the same run:
 *
 * - throughput: scrapes per second of a page rendered by JavaScript at 4 concurrent pages, webdata's pool (one
 *   Chromium, a fresh context per page) against launching a Chromium per scrape; both wait for the page's text to
 *   settle the same way and turn the same HTML into markdown, so only the browser strategy differs. Rounds alternate.
 * - memory: the Chromium processes' summed PSS with 1, 4 and 8 pages held open, and what one more page costs.
 * - latency: one static page, plain HTTP against the browser path (`waitFor: 1`), sequential, interleaved.
 *
 * Run: `npm run browser -w @webdata/bench` (ROUNDS=3, SCRAPES=40, LATENCY=20; CHROMIUM_PATH or chromium on the PATH).
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { findChromium, layer } from "@webdata/browser"
import { Webdata } from "@webdata/core"
import { extractHtml } from "@webdata/core/content"
import { chromium } from "playwright-core"
// The engine's own wait for a page to finish rendering, so that both lanes read the page at the same moment.
import { SETTLE_MAX_MS, settle, trackRequests } from "../../packages/browser/src/Settle.js"
import { ownProcesses } from "../../packages/browser/test/support/processes.js"

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const SCRAPES = Number(process.env.SCRAPES ?? 40)
const LATENCY = Number(process.env.LATENCY ?? 20)
const CONCURRENCY = 4

const executablePath = findChromium()
if (executablePath === undefined) throw new Error("No Chromium: set CHROMIUM_PATH or install chromium")

const PARAGRAPH =
  "Tide tables list the times of high and low water for each day, worked out from the moon's orbit and the shape of the coast. "
const ARTICLE = `<article><h1>Reading tide tables</h1>${Array.from({ length: 30 }, () => `<p>${PARAGRAPH}</p>`).join("")}</article>`

const server = createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  if (req.url?.startsWith("/js"))
    // The article arrives from a script after the load, as a single-page app's does.
    return void res.end(
      `<!doctype html><title>Tides</title><div id="root">Loading…</div><script>setTimeout(() => {
        document.getElementById("root").innerHTML = ${JSON.stringify(ARTICLE)}
      }, 50)</script>`,
    )
  res.end(`<!doctype html><title>Tides</title>${ARTICLE}`)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const percentile = (values: ReadonlyArray<number>, p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0

/** Runs `task` `count` times, `concurrency` at once; scrapes per second. */
const rate = async (count: number, concurrency: number, task: (index: number) => Promise<void>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++)
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

const expectArticle = (markdown: string | undefined) => {
  if (!markdown?.includes("Reading tide tables")) throw new Error("a scrape came back without the article")
}

/** The baseline: a Chromium launched for each scrape, then the same markdown. */
const naiveScrape = async (url: string) => {
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  })
  try {
    const page = await browser.newPage()
    const requests = trackRequests(page)
    await page.goto(url, { waitUntil: "load" })
    await settle(page, requests, Date.now() + SETTLE_MAX_MS)
    const html = await page.content()
    const { markdown } = extractHtml(html, {
      url,
      onlyMainContent: true,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: true,
      formats: { markdown: true, html: false, links: false, images: false },
    })
    expectArticle(markdown)
  } finally {
    await browser.close()
  }
}

/** A process's proportional set size in KiB: its private memory plus its share of what it shares (no double count). */
const pssKb = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** Summed PSS (MiB) of the Chromium processes below this one. */
const chromiumMemoryMb = () =>
  ownProcesses()
    .filter((entry) => /chrom/i.test(entry.args))
    .reduce((sum, entry) => sum + pssKb(entry.pid), 0) / 1024

const pool = new Webdata({
  allowPrivateAddresses: true,
  worker: false,
  cacheMaxBytes: 0,
  browser: layer({ executablePath, maxPages: CONCURRENCY }),
})
const poolScrape = async (url: string) =>
  expectArticle((await pool.scrape(url, { formats: ["markdown"], waitFor: 1, storeInCache: false })).markdown)

// One scrape each first: the pool's browser is up and both paths are warm before anything is timed.
await poolScrape(`${site}/js`)
await naiveScrape(`${site}/js`)

console.log(`## Throughput: ${SCRAPES} scrapes of a JavaScript page at ${CONCURRENCY} concurrent pages\n`)
console.log("| round | webdata pool (scrapes/s) | launch per scrape (scrapes/s) | ratio |")
console.log("| --- | --- | --- | --- |")
const ratios: Array<number> = []
const poolRates: Array<number> = []
const naiveRates: Array<number> = []
/** CPU milliseconds of this process (Node: the engine, Playwright's client) per pool scrape. */
const poolCpu: Array<number> = []
for (let round = 0; round < ROUNDS; round++) {
  const lanes = [
    async () => {
      const cpu = process.cpuUsage()
      poolRates.push(await rate(SCRAPES, CONCURRENCY, (i) => poolScrape(`${site}/js?${round}-${i}`)))
      const used = process.cpuUsage(cpu)
      poolCpu.push((used.user + used.system) / 1000 / SCRAPES)
    },
    async () => naiveRates.push(await rate(SCRAPES, CONCURRENCY, (i) => naiveScrape(`${site}/js?${round}-${i}`))),
  ]
  for (const lane of round % 2 === 0 ? lanes : [...lanes].reverse()) await lane()
  const ratio = poolRates[round]! / naiveRates[round]!
  ratios.push(ratio)
  console.log(
    `| ${round + 1} | ${poolRates[round]!.toFixed(2)} | ${naiveRates[round]!.toFixed(2)} | ${ratio.toFixed(1)}× |`,
  )
}
console.log(
  `| median | ${median(poolRates).toFixed(2)} | ${median(naiveRates).toFixed(2)} | **${median(ratios).toFixed(1)}×** |\n`,
)
console.log(`This process's CPU per pool scrape: ${median(poolCpu).toFixed(0)} ms (the rest is Chromium's).\n`)

console.log("## Memory: Chromium's memory (PSS) with pages held open\n")
console.log("| pages open | Chromium PSS (MiB) |")
console.log("| --- | --- |")
const held: Record<number, number> = {}
for (const open of [1, 4, 8]) {
  // The pool's own browser stays up: what the holder's processes add is measured.
  const before = chromiumMemoryMb()
  const holder = new Webdata({
    allowPrivateAddresses: true,
    worker: false,
    browser: layer({ executablePath, maxPages: open }),
  })
  // Each scrape holds its page for two seconds with a wait action; RSS is read in the middle.
  const scrapes = Array.from({ length: open }, (_, i) =>
    holder.scrape(`${site}/js?hold-${open}-${i}`, {
      formats: ["markdown"],
      actions: [{ type: "wait", milliseconds: 2500 }],
      timeout: 30_000,
    }),
  )
  await new Promise((resolve) => setTimeout(resolve, 1800))
  held[open] = chromiumMemoryMb() - before
  await Promise.all(scrapes)
  await holder.close()
  console.log(`| ${open} | ${held[open]!.toFixed(0)} |`)
}
console.log(`\nOne more open page: ${((held[8]! - held[1]!) / 7).toFixed(0)} MiB (from 1 to 8 pages).\n`)

console.log(`## Latency of a static page: ${LATENCY} sequential scrapes each, interleaved\n`)
const http: Array<number> = []
const browser: Array<number> = []
for (let i = 0; i < LATENCY; i++) {
  for (const [lane, options] of [
    [http, {}],
    [browser, { waitFor: 1 }],
  ] as const) {
    const started = performance.now()
    expectArticle(
      (await pool.scrape(`${site}/static?${i}`, { formats: ["markdown"], storeInCache: false, ...options })).markdown,
    )
    lane.push(performance.now() - started)
  }
}
console.log("| path | p50 (ms) | p90 (ms) |")
console.log("| --- | --- | --- |")
console.log(`| plain HTTP | ${percentile(http, 0.5).toFixed(0)} | ${percentile(http, 0.9).toFixed(0)} |`)
console.log(
  `| browser (waitFor: 1) | ${percentile(browser, 0.5).toFixed(0)} | ${percentile(browser, 0.9).toFixed(0)} |`,
)
console.log(
  `\nThe browser path adds ${(percentile(browser, 0.5) - percentile(http, 0.5)).toFixed(0)} ms at p50 (its 150 ms quiet window included).`,
)

await pool.close()
server.close()
