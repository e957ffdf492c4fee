/**
 * The local search index (`Search/LocalIndex.ts`: the job store searches its own pages, SQLite FTS5 with bm25 and
 * porter stemming in `@webdata/store-sqlite`) at 10 000 and 100 000 pages, against the previous design's core: a
 * MiniSearch over the same pages in the process. Raw SQLite FTS5 (better-sqlite3, no webdata code) runs beside them
 * as a reference for the cost of webdata's layer (`FTS5=0` leaves it out).
 *
 * Pages are synthetic but shaped like scraped ones (deterministic seed): markdown of 2–5 KB with headings, paragraphs,
 * lists and links, titles of 4–10 words, a description, a URL on one of 500 hosts; words are drawn from a 30 000-word
 * vocabulary with a Zipf distribution (s = 1), as in natural text: the 50 most frequent English words (stop words
 * among them) first, then pseudo-words.
 *
 * - Indexing: every page added on its own, in chunks of 2000 that rotate between the lanes (each lane takes each
 *   place in turn). webdata: `LocalIndex.record` on `SqliteJobStore` (each page's row and URL words, batched by the
 *   store's write-behind queue), then one search, which puts the chunk's pages into the FTS5 index (the store
 *   tokenizes pages when a search needs them). MiniSearch: `add` of the page's fields (the text
 *   itself is not kept: the previous design read it back from the store). Raw FTS5: an INSERT per page.
 * - Queries: 200 queries of 1–3 words (mid-frequency ones, rank 10–20 000), 10 results with snippets. Every lane
 *   does the same: the query's words without stop words, the last one also as a prefix (3+ letters), the pages with
 *   every word and, when those are fewer than 10, those with any. webdata's time is the provider's whole answer
 *   (`LocalIndex.provider.search`); MiniSearch's is its searches, the hits' text read from the store (webdata's
 *   file, as the previous design did) and the same snippets; raw FTS5 cuts its snippets with `snippet()`. Batches
 *   of 20 queries rotate between the lanes, since this machine's speed drifts.
 * - Memory: heap growth after full GCs, from before indexing to after the queries, of each lane (the MiniSearch's
 *   is measured by dropping it at the end); on disk: each database file after a WAL checkpoint.
 *
 * Run: `npm run search -w @webdata/bench` (SIZES=10000,100000; QUERIES=200; FTS5=0 to leave raw FTS5 out).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { PerformanceObserver } from "node:perf_hooks"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { urlWords } from "@webdata/core/jobs"
import { SqliteJobStore } from "@webdata/store-sqlite"
import { Effect, Layer, ManagedRuntime } from "effect"
import MiniSearch, { type SearchOptions, type SearchResult } from "minisearch"
import * as LocalIndex from "../../packages/core/src/Search/LocalIndex.js"
import type { SearchQuery } from "../../packages/core/src/Search/SearchProvider.js"
import { markdownSnippet, termFinder } from "../../packages/core/src/Search/Snippet.js"

const SIZES = (process.env.SIZES ?? "10000,100000").split(",").map(Number)
const QUERIES = Number(process.env.QUERIES ?? 200)
const WITH_FTS5 = process.env.FTS5 !== "0"
const CHUNK = 2000
const BATCH = 20
const LIMIT = 10
const SNIPPET_CHARS = 200

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void
const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

/** The few calls of better-sqlite3 this uses (it comes with @effect/sql-sqlite-node, without type declarations). */
interface Statement {
  run(...params: ReadonlyArray<unknown>): unknown
  get(...params: ReadonlyArray<unknown>): Record<string, unknown> | undefined
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

type Lane = "webdata" | "minisearch" | "fts5"
const LANES: ReadonlyArray<Lane> = WITH_FTS5 ? ["webdata", "minisearch", "fts5"] : ["webdata", "minisearch"]
/** The lanes in the order of round `round`: each takes each place in turn (with two, the order flips). */
const rotation = (round: number): ReadonlyArray<Lane> => LANES.map((_, i) => LANES[(i + round) % LANES.length] as Lane)

/** LocalIndex's stop words (Lucene's English ones): left out of the queries of every lane. */
const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
)
/** A query's words as LocalIndex gives them to the store: lower case, letters and digits, no stop words. */
const termsOf = (text: string): ReadonlyArray<string> => [
  ...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.has(word))),
]

const webdataLane = (filename: string) => {
  const runtime = ManagedRuntime.make(LocalIndex.layer().pipe(Layer.provide(SqliteJobStore.layer({ filename }))))
  const write = async (pages: ReadonlyArray<Page>) => {
    await runtime.runPromise(
      Effect.flatMap(LocalIndex.LocalIndex, (index) =>
        Effect.forEach(pages, (page) => index.record(null, page), { discard: true }),
      ),
    )
    // The store tokenizes pages when a search needs them: a search makes the chunk's pages searchable, in its time.
    await search("index")
  }
  const search = async (text: string) => {
    const query: SearchQuery = { source: "web", query: text, limit: LIMIT, timeoutMs: 600_000, owner: null }
    const answer = await runtime.runPromise(
      Effect.flatMap(LocalIndex.LocalIndex, (index) => index.provider.search(query)),
    )
    return answer.hits.length
  }
  return { write, search, close: () => runtime.dispose() }
}

interface MiniDoc {
  readonly id: number
  readonly title: string
  readonly description: string
  readonly content: string
  readonly urlWords: string
  readonly url: string
}

/**
 * The previous design's core: a MiniSearch (it comes with @webdata/core) over the pages' fields, keeping each page's
 * URL besides the terms, with the hits' text read back from the store for their snippets.
 */
const miniSearchLane = (storeFile: string) => {
  let mini: MiniSearch<MiniDoc> | undefined = new MiniSearch<MiniDoc>({
    fields: ["title", "description", "content", "urlWords"],
    storeFields: ["url"],
    processTerm: (term) => {
      const lower = term.toLowerCase()
      return STOP_WORDS.has(lower) ? null : lower
    },
  })
  let next = 0
  const store = new BetterSqlite(storeFile)
  const texts = store.prepare("SELECT content FROM search_index WHERE owner = '' AND url = ?")
  const options = (combineWith: "AND" | "OR"): SearchOptions => ({
    boost: { title: 3, description: 1.5, content: 1, urlWords: 0.5 },
    prefix: (term, index, terms) => index === terms.length - 1 && term.length >= 3,
    combineWith,
  })
  return {
    write: (pages: ReadonlyArray<Page>) => {
      for (const page of pages) mini?.add({ id: next++, ...page, urlWords: urlWords(page.url) })
    },
    search: (text: string) => {
      const terms = termsOf(text)
      if (mini === undefined || terms.length === 0) return 0
      const query = terms.join(" ")
      const hits: Array<SearchResult> = mini.search(query, options("AND")).slice(0, LIMIT)
      if (hits.length < LIMIT && terms.length > 1) {
        const found = new Set(hits.map((hit) => hit.id))
        for (const hit of mini.search(query, options("OR"))) {
          if (hits.length >= LIMIT) break
          if (!found.has(hit.id)) hits.push(hit)
        }
      }
      const finder = termFinder(terms)
      let snippets = 0
      for (const hit of hits) {
        const row = texts.get(hit.url)
        if (row !== undefined)
          snippets += markdownSnippet(row.content as string, finder, SNIPPET_CHARS).length > 0 ? 1 : 0
      }
      return snippets
    },
    close: () => {
      mini = undefined
      store.close()
    },
  }
}

/** SQLite FTS5 by hand: the text and its index in one table, the same tokenizer, columns and weights as webdata's. */
const ftsLane = (filename: string) => {
  const db = new BetterSqlite(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.exec(
    `CREATE VIRTUAL TABLE pages USING fts5(title, description, content, url_words, url UNINDEXED,
     tokenize = 'porter unicode61 remove_diacritics 2')`,
  )
  const insert = db.prepare("INSERT INTO pages (title, description, content, url_words, url) VALUES (?, ?, ?, ?, ?)")
  const select = db.prepare(
    `SELECT url, title, description, snippet(pages, 2, '', '', '…', 30) AS snippet FROM pages
     WHERE pages MATCH ? ORDER BY bm25(pages, 3.0, 1.5, 1.0, 0.5) LIMIT ${LIMIT}`,
  )
  const match = (terms: ReadonlyArray<string>, operator: "AND" | "OR") =>
    terms.map((term, i) => `"${term}"${i === terms.length - 1 && term.length >= 3 ? "*" : ""}`).join(` ${operator} `)
  return {
    write: (pages: ReadonlyArray<Page>) => {
      for (const page of pages) insert.run(page.title, page.description, page.content, urlWords(page.url), page.url)
    },
    search: (text: string) => {
      const terms = termsOf(text)
      if (terms.length === 0) return 0
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
const ratio = (a: number, b: number) => (a / b).toFixed(2)
const NAMES: Record<Lane, string> = {
  webdata: "webdata (LocalIndex, SQLite store)",
  minisearch: "MiniSearch in process",
  fts5: "raw SQLite FTS5",
}

/** Garbage collection pauses, charged to the lane that was running (V8 reports them after the fact). */
const gcPauses: Array<{ readonly start: number; readonly duration: number }> = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ start: entry.startTime, duration: entry.duration })
}).observe({ entryTypes: ["gc"] })
type Phase = "index" | "query"
const spans: Array<{ readonly lane: Lane; readonly phase: Phase; readonly start: number; readonly end: number }> = []
const timed = async (lane: Lane, phase: Phase, run: () => unknown) => {
  const start = performance.now()
  await run()
  const end = performance.now()
  spans.push({ lane, phase, start, end })
  return end - start
}
const gcSeconds = (lane: Lane, phase: Phase) =>
  gcPauses
    .filter((pause) =>
      spans.some(
        (span) => span.lane === lane && span.phase === phase && pause.start >= span.start && pause.start < span.end,
      ),
    )
    .reduce((sum, pause) => sum + pause.duration / 1000, 0)
    .toFixed(1)

/** The 1-minute load average (other work on the machine shows here). */
const load = () => loadavg()[0]!.toFixed(1)

console.log(`Node ${process.version}; ${QUERIES} queries, ${LIMIT} results each; lanes: ${LANES.join(", ")}`)
const rows: Array<string> = []
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "webdata-search-bench-"))
  const files: Record<Lane, string> = {
    webdata: join(dir, "webdata.db"),
    minisearch: join(dir, "webdata.db"),
    fts5: join(dir, "fts5.db"),
  }
  try {
    const webdata = webdataLane(files.webdata)
    // Opens the store (and applies its migrations) before the clock starts.
    await webdata.write([])
    const heapBefore = heapAfterGc()
    const mini = miniSearchLane(files.webdata)
    const fts = WITH_FTS5 ? ftsLane(files.fts5) : undefined
    spans.length = 0
    gcPauses.length = 0
    const loadBefore = load()
    const started = performance.now()

    const writeMs: Record<Lane, number> = { webdata: 0, minisearch: 0, fts5: 0 }
    let textBytes = 0
    for (let from = 0; from < size; from += CHUNK) {
      const pages = Array.from({ length: Math.min(CHUNK, size - from) }, (_, i) => pageOf(from + i))
      for (const page of pages) textBytes += page.content.length
      for (const lane of rotation(from / CHUNK))
        writeMs[lane] += await timed(lane, "index", () =>
          lane === "webdata" ? webdata.write(pages) : lane === "minisearch" ? mini.write(pages) : fts?.write(pages),
        )
    }

    const search = (lane: Lane, text: string) =>
      lane === "webdata" ? webdata.search(text) : lane === "minisearch" ? mini.search(text) : (fts?.search(text) ?? 0)
    const list = queries(QUERIES)
    for (const text of list.slice(0, BATCH)) for (const lane of LANES) await search(lane, text)
    const latency: Record<Lane, Array<number>> = { webdata: [], minisearch: [], fts5: [] }
    const hits: Record<Lane, number> = { webdata: 0, minisearch: 0, fts5: 0 }
    for (let from = 0; from < list.length; from += BATCH) {
      const batch = list.slice(from, from + BATCH)
      for (const lane of rotation(from / BATCH))
        for (const text of batch)
          latency[lane].push(
            await timed(lane, "query", async () => {
              hits[lane] += await search(lane, text)
            }),
          )
    }
    const elapsedS = (performance.now() - started) / 1000
    const loadAfter = load()
    // V8 reports its pauses from a later tick.
    await new Promise((resolve) => setTimeout(resolve, 50))

    fts?.close()
    const heapWithMini = heapAfterGc()
    mini.close()
    const heapWithout = heapAfterGc()
    const heap: Record<Lane, number | undefined> = {
      webdata: heapWithout - heapBefore,
      minisearch: heapWithMini - heapWithout,
      fts5: undefined,
    }
    await webdata.close()
    const pagesStored = (() => {
      const db = new BetterSqlite(files.webdata)
      const row = db.prepare("SELECT count(*) AS n FROM search_index").get()
      db.close()
      return row?.n
    })()

    const rate = (lane: Lane) => size / (writeMs[lane] / 1000)
    const p50 = (lane: Lane) => percentile(latency[lane], 50)
    const p99 = (lane: Lane) => percentile(latency[lane], 99)
    console.log(
      `${size} pages (${mb(textBytes)} of markdown; ${pagesStored} in webdata's index) in ${elapsedS.toFixed(0)} s ` +
        `(load average ${loadBefore} → ${loadAfter}); ` +
        `results per query ${LANES.map((lane) => `${lane} ${(hits[lane] / list.length).toFixed(1)}`).join(", ")}; ` +
        `GC pauses (s) while indexing / querying: ` +
        LANES.map((lane) => `${lane} ${gcSeconds(lane, "index")} / ${gcSeconds(lane, "query")}`).join(", "),
    )
    for (const lane of LANES) {
      const disk = lane === "minisearch" ? "—" : mb(checkpointedSize(files[lane]))
      const heapGrowth = heap[lane] === undefined ? "—" : mb(heap[lane])
      rows.push(
        `| ${size} | ${NAMES[lane]} | ${rate(lane).toFixed(0)} | ${heapGrowth} | ${disk} | ${ms(p50(lane))} | ${ms(p99(lane))} |`,
      )
    }
    for (const other of LANES.slice(1))
      rows.push(
        `| ${size} | ratio webdata / ${NAMES[other]} | ${ratio(rate("webdata"), rate(other))} | | | ` +
          `${ratio(p50("webdata"), p50(other))} | ${ratio(p99("webdata"), p99(other))} |`,
      )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log("\n| pages | lane | indexing (pages/s) | heap growth | on disk | query p50 (ms) | query p99 (ms) |")
console.log("| --- | --- | --- | --- | --- | --- | --- |")
for (const row of rows) console.log(row)
