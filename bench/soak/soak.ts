/**
 * The server soak: the real server (`packages/server/src/main.ts`, in a process of its own, SQLite store in a
 * temporary folder, a worker) against the hostile fixture site on 127.0.0.1 (`core/test/support/hostileServer.ts`:
 * slow drips, hangs, endless redirects, huge pages, gzip and brotli bombs, resets mid-body, malformed HTML, wrong
 * content types, very long and very many headers, an endless link maze), driven with scrapes and crawls (some
 * cancelled half-way) for a while. Checks that every request answers within its timeout, that no answer is a 5xx
 * other than the documented upstream failures, that every error is the envelope, that the server logs no defect and
 * stays up, and measures its memory after full collections (`memoryProbe.mjs`) before and after the load.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { type HostileServer, start } from "../../packages/core/test/support/hostileServer.js"

export interface SoakOptions {
  /** How long the load runs (warm-up and measurements come on top). */
  readonly durationMs: number
  /** Clients sending scrapes one after another. */
  readonly scrapers: number
  /** Clients running crawls of the link maze one after another. */
  readonly crawlers: number
  readonly log?: (line: string) => void
}

export interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly arrayBuffers: number
}

export interface SoakResult {
  readonly scrapes: number
  readonly crawls: { readonly completed: number; readonly cancelled: number; readonly failed: number }
  readonly crawledPages: number
  /** Answers by `<status> <code>`, e.g. `408 SCRAPE_TIMEOUT`. */
  readonly outcomes: Record<string, number>
  /** What broke a rule: a late answer, an undocumented 5xx, a bare error, a logged defect, the server gone. */
  readonly problems: ReadonlyArray<string>
  /** After the warm-up and after the load, each after full collections. */
  readonly baseline: Memory
  readonly final: Memory
  readonly peakRss: number
}

/** The routes scraped, in turn: every kind of hostile answer the site gives. */
export const HOSTILE_PATHS = [
  "/page",
  "/malformed",
  "/maze/7",
  "/slow-drip",
  "/never-ending",
  "/hang",
  "/reset",
  "/truncated",
  "/redirect/loop",
  "/redirect/chain/11",
  "/redirect/relative",
  "/bomb/gzip",
  "/bomb/br",
  "/bomb/gzip-gzip",
  "/encoding/stacked",
  "/encoding/broken",
  "/huge",
  "/huge/declared",
  "/invalid-utf8",
  "/binary/random",
  "/headers/long",
  "/headers/many",
  "/wrong-type/json",
  "/wrong-type/pdf",
  "/wrong-type/png",
  "/wrong-type/zip",
  "/wrong-type/none",
  "/charset/shift_jis",
  "/cookie/start",
]

/**
 * The 5xx answers Firecrawl documents for sites that fail: reset, too many redirects, too large, and a response no
 * engine could read (headers past undici's limit, a body that is not the gzip it claims).
 */
const UPSTREAM_FAILURES = new Set([
  "SCRAPE_SITE_ERROR",
  "SCRAPE_TOO_MANY_REDIRECTS",
  "SCRAPE_RESPONSE_TOO_LARGE",
  "SCRAPE_ALL_ENGINES_FAILED",
])

const SCRAPE_TIMEOUT_MS = 5000
/** How much later than its own `timeout` a scrape may answer (queueing behind other work on a small machine). */
const GRACE_MS = 3000
/** Status polls and cancels answer from the store: quickly. */
const POLL_WITHIN_MS = 5000
const CRAWL_WITHIN_MS = 120_000

const SERVER = fileURLToPath(new URL("../../packages/server/src/main.ts", import.meta.url))
const PROBE = fileURLToPath(new URL("./memoryProbe.mjs", import.meta.url))

interface Server {
  readonly url: string
  readonly child: ChildProcess
  readonly measure: (command: "measure" | "sample") => Promise<Memory>
  readonly defects: Array<string>
  readonly exited: Promise<number | null>
}

const startServer = async (site: HostileServer, directory: string): Promise<Server> => {
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "--conditions=source", "--import", PROBE, SERVER],
    {
      env: {
        // An open server (no keys) whatever the caller's environment says.
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !/^WEBDATA_(API_KEYS|KEYS_FILE|ADMIN_KEY)$/.test(name)),
        ),
        PORT: "0",
        HOST: "127.0.0.1",
        WEBDATA_STORE: `sqlite:${join(directory, "soak.db")}`,
        // The hostile site's address and nothing else of the private ranges.
        WEBDATA_ALLOWED_TARGETS: `${new URL(site.url).hostname}/32`,
        WEBDATA_ALLOW_PRIVATE_ADDRESSES: "0",
        WEBDATA_LOG_LEVEL: "error",
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  )
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const defects: Array<string> = []
  let output = ""
  const waiting: Array<(memory: Memory) => void> = []
  let listening: (url: string) => void = () => {}
  const url = new Promise<string>((resolve, reject) => {
    listening = resolve
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening: ${output}`)))
  })
  const read = (line: string) => {
    output = `${output}${line}\n`.slice(-4000)
    const address = /webdata API listening on (http:\/\/\S+)/.exec(line)
    if (address?.[1] !== undefined) listening(address[1])
    if (line.startsWith("memory ")) waiting.shift()?.(JSON.parse(line.slice("memory ".length)))
    if (/Unhandled error|unhandledRejection|uncaughtException|FATAL/i.test(line)) defects.push(line.slice(0, 2000))
  }
  for (const stream of [child.stdout, child.stderr])
    if (stream !== null) createInterface({ input: stream }).on("line", read)
  const measure = (command: "measure" | "sample") =>
    new Promise<Memory>((resolve) => {
      waiting.push(resolve)
      child.stdin?.write(`${command}\n`)
    })
  return { url: await url, child, measure, defects, exited }
}

interface Answer {
  readonly status: number
  readonly body: { success?: unknown; code?: unknown; error?: unknown; [key: string]: unknown } | undefined
  readonly ms: number
}

/** A JSON call with a deadline; a late answer is a problem and counts as status 0. */
const call = async (url: string, init: RequestInit, withinMs: number): Promise<Answer> => {
  const started = performance.now()
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(withinMs) })
    const text = await response.text()
    let body: Answer["body"]
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, body, ms: performance.now() - started }
  } catch {
    return { status: 0, body: undefined, ms: performance.now() - started }
  }
}

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const runSoak = async (options: SoakOptions): Promise<SoakResult> => {
  const log = options.log ?? (() => {})
  const site = await start()
  const directory = await mkdtemp(join(tmpdir(), "webdata-soak-"))
  const server = await startServer(site, directory)
  const outcomes: Record<string, number> = {}
  const problems: Array<string> = []
  const crawls = { completed: 0, cancelled: 0, failed: 0 }
  let scrapes = 0
  let crawledPages = 0
  let peakRss = 0
  let sampler: NodeJS.Timeout | undefined
  try {
    /** Counts an answer and records what breaks a rule. */
    const judge = (what: string, answer: Answer, withinMs: number) => {
      const code = typeof answer.body?.code === "string" ? answer.body.code : ""
      const key = `${answer.status}${code === "" ? "" : ` ${code}`}`
      outcomes[key] = (outcomes[key] ?? 0) + 1
      if (answer.status === 0) problems.push(`${what}: no answer within ${withinMs} ms`)
      else if (answer.status >= 500 && !UPSTREAM_FAILURES.has(code))
        problems.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`)
      else if (
        answer.status >= 400 &&
        (answer.body?.success !== false || typeof answer.body.error !== "string" || code === "")
      )
        problems.push(`${what}: ${answer.status} without the error envelope`)
    }

    const scrape = async (path: string) => {
      const within = SCRAPE_TIMEOUT_MS + GRACE_MS
      const answer = await call(
        `${server.url}/v2/scrape`,
        json("POST", {
          url: `${site.url}${path}`,
          formats: ["markdown", "links"],
          timeout: SCRAPE_TIMEOUT_MS,
          maxAge: 0,
          storeInCache: false,
        }),
        within,
      )
      scrapes++
      judge(`scrape ${path}`, answer, within)
    }

    /** A crawl of a fresh part of the maze to its end, or cancelled after `cancelAfterMs`. */
    const crawl = async (room: number, cancelAfterMs: number | undefined) => {
      const started = await call(
        `${server.url}/v2/crawl`,
        json("POST", {
          url: `${site.url}/maze/${room}`,
          limit: 30,
          sitemap: "skip",
          scrapeOptions: { formats: ["markdown"], timeout: SCRAPE_TIMEOUT_MS, maxAge: 0, storeInCache: false },
        }),
        POLL_WITHIN_MS,
      )
      judge("crawl start", started, POLL_WITHIN_MS)
      const id = started.body?.id
      if (started.status !== 200 || typeof id !== "string") return
      const begun = performance.now()
      let skip = 0
      let cancelled = false
      for (;;) {
        if (!cancelled && cancelAfterMs !== undefined && performance.now() - begun > cancelAfterMs) {
          cancelled = true
          const answer = await call(`${server.url}/v2/crawl/${id}`, json("DELETE"), POLL_WITHIN_MS)
          // 409: it had already ended.
          if (answer.status !== 409) judge("crawl cancel", answer, POLL_WITHIN_MS)
        }
        const status = await call(`${server.url}/v2/crawl/${id}?skip=${skip}&limit=100`, {}, POLL_WITHIN_MS)
        judge("crawl status", status, POLL_WITHIN_MS)
        const data = Array.isArray(status.body?.data) ? status.body.data : []
        skip += data.length
        crawledPages += data.length
        const state = status.body?.status
        if (status.status !== 200 || (state !== "scraping" && data.length === 0)) {
          if (state === "completed") crawls.completed++
          else if (state === "cancelled") crawls.cancelled++
          else crawls.failed++
          return
        }
        if (performance.now() - begun > CRAWL_WITHIN_MS) {
          problems.push(`crawl ${id}: still ${String(state)} after ${CRAWL_WITHIN_MS} ms`)
          return
        }
        if (data.length === 0) await sleep(500)
      }
    }

    log(`server on ${server.url}, hostile site on ${site.url}`)
    // Warm-up: every route once and one crawl, so that what loads on first use is in the baseline.
    await Promise.all([...HOSTILE_PATHS.map(scrape), crawl(1, undefined)])
    const baseline = await server.measure("measure")
    log(`baseline after GC: heap ${mb(baseline.heapUsed)} MB, RSS ${mb(baseline.rss)} MB`)
    peakRss = baseline.rss
    sampler = setInterval(() => {
      void server.measure("sample").then((memory) => {
        peakRss = Math.max(peakRss, memory.rss)
      })
    }, 1000)

    const until = performance.now() + options.durationMs
    let turn = 0
    let room = 100
    const scraper = async () => {
      while (performance.now() < until) await scrape(HOSTILE_PATHS[turn++ % HOSTILE_PATHS.length] ?? "/page")
    }
    const crawler = async () => {
      for (let round = 0; performance.now() < until; round++) {
        room++
        // Every third crawl is cancelled after a second.
        await crawl(room, round % 3 === 2 ? 1000 : undefined)
      }
    }
    const progress = setInterval(
      () => log(`${scrapes} scrapes, ${crawls.completed + crawls.cancelled} crawls, peak RSS ${mb(peakRss)} MB`),
      10_000,
    )
    await Promise.all([
      ...Array.from({ length: options.scrapers }, scraper),
      ...Array.from({ length: options.crawlers }, crawler),
    ])
    clearInterval(progress)
    clearInterval(sampler)
    // Let the worker finish what the last cancels left (leases, purges), then measure.
    await sleep(2000)
    const final = await server.measure("measure")
    log(`final after GC: heap ${mb(final.heapUsed)} MB, RSS ${mb(final.rss)} MB (peak RSS ${mb(peakRss)} MB)`)
    if (server.child.exitCode !== null) problems.push(`the server exited with ${server.child.exitCode}`)
    problems.push(...server.defects.map((line) => `server logged: ${line}`))
    return { scrapes, crawls, crawledPages, outcomes, problems, baseline, final, peakRss }
  } finally {
    clearInterval(sampler)
    server.child.kill("SIGTERM")
    await server.exited
    await site.close()
    await rm(directory, { recursive: true, force: true })
  }
}

export const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)
