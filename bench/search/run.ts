/**
 * The local search index (`Search/LocalIndex.ts`: MiniSearch over the pages in the job store) at 10 000 and 100 000
 * pages, against SQLite FTS5 (bm25) over the same pages in the same run.
 *
 * Pages are synthetic but shaped like scraped ones (deterministic seed): markdown of 2–5 KB with headings, paragraphs,
 * lists and links, titles of 4–10 words, a description, a URL on one of 500 hosts; words are drawn from a 30 000-word
 * vocabulary with a Zipf distribution (s = 1), as in natural text: the 50 most frequent English words (stop words
 * among them) first, then pseudo-words.
 *
 * - Indexing: every page written on its own (as scrapes record them), alternating chunks of 2000 between the lanes:
 *   webdata's store writes (`indexPage` on the SQLite store) and FTS5 inserts (the inverted index is built as rows
 *   are written). The MiniSearch catch-up (what the first query of a process does: read every entry and index it) is
 *   timed on its own; webdata's indexing rate counts both.
 * - Queries: 200 queries of 1–3 words (mid-frequency ones, rank 10–20 000), 10 results with snippets. Both lanes do
 *   the same thing: every word, the last one as a prefix, and any word when that finds fewer than 10 (webdata also
 *   tries one typo in words of 5+ letters, which FTS5 cannot). Batches of 20 queries alternate between the lanes,
 *   whose order flips every round, since this machine's speed drifts.
 * - Memory: heap growth of the MiniSearch (with what LocalIndex keeps beside it) after a full GC; on disk: each
 *   database file after a WAL checkpoint.
 *
 * Run: `npm run search -w @webdata/bench` (SIZES=10000,100000; QUERIES=200).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { JobStore } from "@webdata/core/jobs"
import { SqliteJobStore } from "@webdata/store-sqlite"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as LocalIndex from "../../packages/core/src/Search/LocalIndex.js"
import type { SearchQuery } from "../../packages/core/src/Search/SearchProvider.js"

const SIZES = (process.env.SIZES ?? "10000,100000").split(",").map(Number)
const QUERIES = Number(process.env.QUERIES ?? 200)
const CHUNK = 2000
const BATCH = 20
const LIMIT = 10

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void
const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

/** The few calls of better-sqlite3 this uses (it comes with @effect/sql-sqlite-node, without type declarations). */
interface Statement {
  run(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): Array<Record<string, unknown>>
}
interface Database {
  prepare(sql: string): Statement
  exec(sql: string): void
  pragma(pragma: string): unknown
  close(): void
}
const BetterSqlite = createRequire(import.meta.url)("better-sqlite3") as new (filename: string) => Database

// --- Synthetic pages -------------------------------------------------------------------------------------------

/** mulberry32: a small deterministic PRNG. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The most frequent English words, in order (stop words among them), then pseudo-words. */
const COMMON =
  "the of and to a in is you that it he was for on are as with his they i at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if".split(
    " ",
  )

const VOCABULARY = (() => {
  const syllables = "ka lo mi ra te su no vi de pa ri so ma ne tu ba gi lu fe zo ar en il or um ta ve co li da".split(
    " ",
  )
  const next = random(7)
  const words = new Set<string>(COMMON)
  while (words.size < 30_000) {
    const length = 1 + Math.floor(next() * 4)
    words.add(Array.from({ length }, () => syllables[Math.floor(next() * syllables.length)]).join(""))
  }
  return [...words]
})()

/** Cumulative Zipf weights (s = 1) of the vocabulary's ranks. */
const CUMULATIVE = (() => {
  const cumulative = new Float64Array(VOCABULARY.length)
  let sum = 0
  for (let rank = 0; rank < VOCABULARY.length; rank++) cumulative[rank] = sum += 1 / (rank + 1)
  return cumulative.map((value) => value / sum)
})()

const zipfWord = (next: () => number) => {
  const target = next()
  let low = 0
  let high = CUMULATIVE.length - 1
  while (low < high) {
    const middle = (low + high) >> 1
    if ((CUMULATIVE[middle] as number) < target) low = middle + 1
    else high = middle
  }
  return VOCABULARY[low] as string
}

const words = (next: () => number, count: number) => Array.from({ length: count }, () => zipfWord(next)).join(" ")
const between = (next: () => number, min: number, max: number) => min + Math.floor(next() * (max - min + 1))
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

interface Page {
  readonly url: string
  readonly title: string
  readonly description: string
  readonly content: string
  readonly scrapedAt: number
}

const pageOf = (i: number): Page => {
  const next = random(1_000_003 * (i + 1))
  const title = capitalised(words(next, between(next, 4, 10)))
  const target = between(next, 2000, 5000)
  const parts = [`# ${title}`]
  let length = title.length
  while (length < target) {
    const roll = next()
    const part =
      roll < 0.15
        ? `## ${capitalised(words(next, between(next, 2, 5)))}`
        : roll < 0.25
          ? Array.from({ length: between(next, 3, 5) }, () => `- ${words(next, between(next, 3, 8))}`).join("\n")
          : `${capitalised(words(next, between(next, 25, 70)))}. ${capitalised(words(next, between(next, 8, 20)))} [${words(next, 2)}](https://site${between(next, 0, 499)}.example/${zipfWord(next)}).`
    parts.push(part)
    length += part.length + 2
  }
  return {
    url: `https://site${i % 500}.example/${zipfWord(next)}/${zipfWord(next)}-${i}`,
    title,
    description: `${capitalised(words(next, between(next, 12, 25)))}.`,
    content: parts.join("\n\n"),
    scrapedAt: 1_750_000_000_000 + i,
  }
}

const queries = (count: number) => {
  const next = random(99)
  return Array.from({ length: count }, () =>
    // Log-uniform ranks 10–20 000: words that narrow a search, from fairly common (some stop words) to rare.
    Array.from(
      { length: between(next, 1, 3) },
      () => VOCABULARY[Math.floor(Math.exp(Math.log(10) + next() * Math.log(2000)))],
    ).join(" "),
  )
}

// --- Lanes ------------------------------------------------------------------------------------------------------

const webdataLane = (filename: string) => {
  const runtime = ManagedRuntime.make(LocalIndex.layer().pipe(Layer.provideMerge(SqliteJobStore.layer({ filename }))))
  const write = (pages: ReadonlyArray<Page>) =>
    runtime.runPromise(
      Effect.flatMap(JobStore, (store) =>
        Effect.forEach(pages, (page) => store.indexPage({ owner: null, ...page }), { discard: true }),
      ),
    )
  const search = (text: string) => {
    const query: SearchQuery = { source: "web", query: text, limit: LIMIT, timeoutMs: 600_000, owner: null }
    return runtime.runPromise(Effect.flatMap(LocalIndex.LocalIndex, (index) => index.provider.search(query)))
  }
  return { write, search: async (text: string) => (await search(text)).hits.length, close: () => runtime.dispose() }
}

const ftsLane = (filename: string) => {
  const db = new BetterSqlite(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, description, content, url UNINDEXED, scraped_at UNINDEXED)")
  const insert = db.prepare("INSERT INTO pages (title, description, content, url, scraped_at) VALUES (?, ?, ?, ?, ?)")
  // The same weights as webdata's fields (title 3, description 1.5, content 1); snippets of ~30 tokens.
  const select = db.prepare(
    `SELECT url, title, description, snippet(pages, 2, '', '', '…', 30) AS snippet FROM pages
     WHERE pages MATCH ? ORDER BY bm25(pages, 3.0, 1.5, 1.0) LIMIT ${LIMIT}`,
  )
  const match = (terms: ReadonlyArray<string>, operator: "AND" | "OR") =>
    terms.map((term, i) => `"${term}"${i === terms.length - 1 && term.length >= 3 ? "*" : ""}`).join(` ${operator} `)
  return {
    write: (pages: ReadonlyArray<Page>) => {
      for (const page of pages) insert.run(page.title, page.description, page.content, page.url, page.scrapedAt)
    },
    search: (text: string) => {
      const terms = text.split(" ")
      const every = select.all(match(terms, "AND"))
      if (every.length >= LIMIT || terms.length === 1) return every.length
      const found = new Set(every.map((row) => row.url))
      const some = select.all(match(terms, "OR")).filter((row) => !found.has(row.url))
      return Math.min(LIMIT, every.length + some.length)
    },
    close: () => db.close(),
  }
}

// --- Run --------------------------------------------------------------------------------------------------------

const checkpointedSize = (filename: string) => {
  const db = new BetterSqlite(filename)
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return statSync(filename).size
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const ms = (value: number) => value.toFixed(2)

console.log(`Node ${process.version}; ${QUERIES} queries, ${LIMIT} results each`)
const rows: Array<string> = []
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "webdata-search-bench-"))
  try {
    const webdata = webdataLane(join(dir, "webdata.db"))
    const fts = ftsLane(join(dir, "fts5.db"))
    // Opens the store (and applies its migrations) before the clock starts.
    await webdata.write([])

    const writeMs = { webdata: 0, fts: 0 }
    let textBytes = 0
    for (let from = 0; from < size; from += CHUNK) {
      const pages = Array.from({ length: Math.min(CHUNK, size - from) }, (_, i) => pageOf(from + i))
      for (const page of pages) textBytes += page.content.length
      const lanes = (from / CHUNK) % 2 === 0 ? (["webdata", "fts"] as const) : (["fts", "webdata"] as const)
      for (const lane of lanes) {
        const started = performance.now()
        if (lane === "webdata") await webdata.write(pages)
        else fts.write(pages)
        writeMs[lane] += performance.now() - started
      }
    }

    const heapBefore = heapAfterGc()
    let started = performance.now()
    // The first query of the process: it loads every entry into the MiniSearch.
    await webdata.search("zzzzzz")
    const catchUpMs = performance.now() - started
    const indexHeap = heapAfterGc() - heapBefore

    const list = queries(QUERIES)
    for (const text of list.slice(0, BATCH)) {
      await webdata.search(text)
      fts.search(text)
    }
    const latency = { webdata: [] as Array<number>, fts: [] as Array<number> }
    const hits = { webdata: 0, fts: 0 }
    for (let from = 0; from < list.length; from += BATCH) {
      const batch = list.slice(from, from + BATCH)
      const lanes = (from / BATCH) % 2 === 0 ? (["webdata", "fts"] as const) : (["fts", "webdata"] as const)
      for (const lane of lanes)
        for (const text of batch) {
          started = performance.now()
          hits[lane] += lane === "webdata" ? await webdata.search(text) : fts.search(text)
          latency[lane].push(performance.now() - started)
        }
    }
    await webdata.close()
    fts.close()

    const storeRate = size / (writeMs.webdata / 1000)
    const catchUpRate = size / (catchUpMs / 1000)
    const webdataRate = size / ((writeMs.webdata + catchUpMs) / 1000)
    const ftsRate = size / (writeMs.fts / 1000)
    const p50 = { webdata: percentile(latency.webdata, 50), fts: percentile(latency.fts, 50) }
    const p99 = { webdata: percentile(latency.webdata, 99), fts: percentile(latency.fts, 99) }
    console.log(
      `${size} pages (${mb(textBytes * 2)} of text as UTF-16): webdata store writes ${storeRate.toFixed(0)}/s, ` +
        `catch-up ${catchUpRate.toFixed(0)}/s (${(catchUpMs / 1000).toFixed(1)} s), FTS5 ${ftsRate.toFixed(0)}/s; ` +
        `results per query ${(hits.webdata / list.length).toFixed(1)} / ${(hits.fts / list.length).toFixed(1)}`,
    )
    rows.push(
      `| ${size} | webdata (MiniSearch) | ${storeRate.toFixed(0)} | ${catchUpRate.toFixed(0)} | ${webdataRate.toFixed(0)} | ` +
        `${mb(indexHeap)} | ${mb(checkpointedSize(join(dir, "webdata.db")))} | ${ms(p50.webdata)} | ${ms(p99.webdata)} |`,
      `| ${size} | SQLite FTS5 | — | — | ${ftsRate.toFixed(0)} | — | ${mb(checkpointedSize(join(dir, "fts5.db")))} | ` +
        `${ms(p50.fts)} | ${ms(p99.fts)} |`,
      `| ${size} | ratio webdata / FTS5 | | | ${(webdataRate / ftsRate).toFixed(2)} | | | ` +
        `${(p50.webdata / p50.fts).toFixed(2)} | ${(p99.webdata / p99.fts).toFixed(2)} |`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log(
  "\n| pages | lane | store writes (pages/s) | catch-up (pages/s) | indexing (pages/s) | index heap | on disk | query p50 (ms) | query p99 (ms) |",
)
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (const row of rows) console.log(row)
