/**
 * The local search index on SQLite. End to end: a key crawls a site on loopback into a database file, the server
 * stops, a new one opens the same file, and search finds the crawled pages, best first, for that key only. Then
 * what FTS5 brings that the shared conformance suite does not look at: the triggers that keep the index in step,
 * query syntax in terms, stemming, prefixes, bm25 weights.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Engine, makeWebHandler, ServerConfig } from "@webdata/core"
import { type IndexedPage, type IndexSearch, JobStore, type JobStoreShape, urlWords } from "@webdata/core/jobs"
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { startCrawlSite } from "../../core/test/support/crawlSite.js"
import { COMPRESS_FROM_BYTES } from "../src/Compression.js"
import { matchExpression } from "../src/Fts.js"
import { SqliteJobStore } from "../src/index.js"
import { loader } from "../src/migrations/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-search-index-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Answer {
  readonly success: boolean
  readonly id?: string
  readonly status?: string
  readonly data?: { readonly web?: ReadonlyArray<{ readonly url: string; readonly title?: string }> }
}

/** A server over the database file, with two keys. */
const server = (filename: string, worker: boolean) => {
  const handler = makeWebHandler(
    Layer.merge(
      Engine.layer({
        store: SqliteJobStore.layer({ filename }),
        allowPrivateAddresses: true,
        worker: worker ? { concurrency: 4 } : false,
      }),
      ServerConfig.layer({ apiKeys: ["key-a", "key-b"] }),
    ),
  )
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await handler.handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    )
    return (await response.json()) as Answer
  }
  const search = async (key: string, query: string) => {
    const answer = await call(key, "POST", "/v2/search", { query, limit: 10 })
    expect(answer.success).toBe(true)
    return (answer.data?.web ?? []).map((hit) => new URL(hit.url).pathname)
  }
  return { call, search, close: () => handler.dispose() }
}

it("finds a crawl's pages after a restart, the best first, for the key that crawled only", async () => {
  const site = await startCrawlSite({
    pages: {
      "/": { title: "Energy notes", links: ["/tides", "/wind", "/solar", "/about"] },
      "/tides": { title: "Tidal energy and the tides", links: ["/tides/history"] },
      "/tides/history": { title: "A history of tide mills" },
      "/wind": { title: "Wind turbines offshore" },
      "/solar": { title: "Solar panels on roofs" },
      "/about": { title: "About this site" },
    },
  })
  const filename = join(dir, "search.db")
  try {
    const first = server(filename, true)
    const started = await first.call("key-a", "POST", "/v2/crawl", { url: site.url, sitemap: "skip", limit: 20 })
    expect(started.success).toBe(true)
    for (let status = ""; status !== "completed"; ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      status = (await first.call("key-a", "GET", `/v2/crawl/${started.id}`)).status ?? ""
      expect(status).not.toMatch(/failed|cancelled/)
    }
    await first.close()

    const second = server(filename, false)
    try {
      expect(await second.search("key-a", "tidal")).toEqual(["/tides"])
      // The title counts most, then the URL and the text.
      expect(await second.search("key-a", "tides")).toEqual(["/tides", "/tides/history"])
      expect((await second.search("key-a", "wind turbines"))[0]).toBe("/wind")
      expect((await second.search("key-a", "solar roof"))[0]).toBe("/solar")
      // Pages with every word first; then those with some (the page that links "/tides/history").
      expect(await second.search("key-a", "history mills")).toEqual(["/tides/history", "/tides"])
      expect(await second.search("key-b", "tides")).toEqual([])
      expect(await second.search("key-b", "solar")).toEqual([])
    } finally {
      await second.close()
    }
  } finally {
    await site.close()
  }
}, 30_000)

const T0 = 1_700_000_000_000
let databases = 0

interface Probe {
  /** The FTS5 integrity check: with an external-content table it also compares the index with `search_index`. */
  readonly check: Effect.Effect<void, unknown>
  /** How many rows the FTS index itself matches for `word` (the join in `searchIndex` would hide stale ones). */
  readonly ftsMatches: (word: string) => Effect.Effect<number, unknown>
  /** The rows' `seq`s: a row deleted and written again gets a new one. */
  readonly seqs: Effect.Effect<ReadonlyArray<number>, unknown>
  /** How many pages the FTS index holds (its per-document sizes, one row each). */
  readonly ftsPages: Effect.Effect<number, unknown>
}

/** Runs `body` on a store in a fresh file, with a second connection to look at its FTS index directly. */
const onStore = <A>(
  body: (store: JobStoreShape, probe: Probe) => Effect.Effect<A, unknown>,
  filename = join(dir, `fts-${++databases}.db`),
  options: Partial<SqliteJobStore.SqliteJobStoreOptions> = {},
) => {
  const raw = <B>(f: (sql: SqlClient.SqlClient) => Effect.Effect<B, unknown>) =>
    Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(SqliteClient.layer({ filename })))
  const probe: Probe = {
    check: Effect.asVoid(
      raw((sql) => sql`INSERT INTO search_index_fts (search_index_fts, rank) VALUES ('integrity-check', 1)`),
    ),
    ftsMatches: (word) =>
      raw((sql) =>
        Effect.map(
          sql<{ readonly n: number }>`SELECT count(*) AS n FROM search_index_fts WHERE search_index_fts MATCH ${word}`,
          (rows) => rows[0]!.n,
        ),
      ),
    seqs: raw((sql) =>
      Effect.map(sql<{ readonly seq: number }>`SELECT seq FROM search_index ORDER BY seq`, (rows) =>
        rows.map((row) => row.seq),
      ),
    ),
    ftsPages: raw((sql) =>
      Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM search_index_fts_docsize`, (rows) => rows[0]!.n),
    ),
  }
  return Effect.runPromise(
    Effect.flatMap(JobStore, (store) => body(store, probe)).pipe(
      Effect.provide(SqliteJobStore.layer({ ...options, filename })),
    ),
  )
}

const page = (url: string, content: string, more: Partial<IndexedPage> = {}): IndexedPage => ({
  owner: "key-a",
  url: `https://example.test${url}`,
  content,
  scrapedAt: T0,
  ...more,
})

const query = (terms: ReadonlyArray<string>, more: Partial<IndexSearch> = {}): IndexSearch => ({
  terms,
  match: "all",
  prefixLast: false,
  newestFirst: false,
  offset: 0,
  limit: 10,
  ...more,
})

const paths = (pages: ReadonlyArray<IndexedPage>) => pages.map((found) => new URL(found.url).pathname)

describe("SQLite search index (FTS5)", () => {
  it("quotes every term and makes only the last a prefix", () => {
    expect(matchExpression({ terms: ["near", "or"], match: "all", prefixLast: false })).toBe('"near" AND "or"')
    expect(matchExpression({ terms: ["a", 'b"c'], match: "any", prefixLast: true })).toBe('"a" OR "b""c"*')
    expect(urlWords("https://www.docs.example.com/install-guide/caf%C3%A9_menu?x=1")).toBe(
      "docs example com install guide café menu",
    )
  })

  it("a long page, held as bytes while queued, is indexed as its text", () =>
    onStore((store, { check }) =>
      Effect.gen(function* () {
        const content = `${"naïve café 東京 paragraphs of text ".repeat(COMPRESS_FROM_BYTES / 8)}zebras at the end`
        yield* store.indexPage(page("/long", content))
        const [found] = yield* store.searchIndex(query(["zebras"]))
        expect(found?.content).toBe(content)
        expect((yield* store.searchIndex(query(["東京"]))).length).toBe(1)
        yield* check
      }),
    ))

  it("replacing a page leaves nothing of its old words", () =>
    onStore((store, { check, ftsMatches }) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/p", "zebras graze here", { title: "Savanna" }))
        yield* store.indexPage(page("/p", "mangoes ripen here", { scrapedAt: T0 + 1 }))
        expect(yield* store.searchIndex(query(["zebra"]))).toEqual([])
        expect(yield* store.searchIndex(query(["savanna"]))).toEqual([])
        expect(yield* ftsMatches("zebra")).toBe(0)
        expect(yield* ftsMatches("here")).toBe(1)
        // What comes back is the new page as written: no title any more.
        expect(yield* store.searchIndex(query(["mango"]))).toEqual([
          { owner: "key-a", url: "https://example.test/p", content: "mangoes ripen here", scrapedAt: T0 + 1 },
        ])
        yield* check
      }),
    ))

  it("a page indexed again unchanged keeps its entry and moves its date; a change writes it again", () =>
    onStore((store, { check, ftsMatches, seqs }) =>
      Effect.gen(function* () {
        // Through the write-behind queue, which a search writes to the file first.
        const index = (indexed: IndexedPage) =>
          Effect.zipRight(store.indexPage(indexed), store.searchIndex(query(["graze"])))
        yield* index(page("/p", "zebras graze here", { title: "Savanna" }))
        const [first] = yield* seqs
        yield* index(page("/p", "zebras graze here", { title: "Savanna", scrapedAt: T0 + 5 }))
        expect(yield* seqs).toEqual([first])
        expect(paths(yield* store.searchIndex(query(["zebra"], { from: T0 + 1 })))).toEqual(["/p"])
        expect(yield* ftsMatches("zebra")).toBe(1)
        yield* check
        // The title alone changed: the page is written again, and the old title is out of the index.
        yield* index(page("/p", "zebras graze here", { title: "Plains", scrapedAt: T0 + 6 }))
        expect((yield* seqs)[0]).toBeGreaterThan(first!)
        expect(yield* store.searchIndex(query(["savanna"]))).toEqual([])
        expect(paths(yield* store.searchIndex(query(["plains"])))).toEqual(["/p"])
        yield* check
      }),
    ))

  it("reads FTS5 syntax in a term as plain text", () =>
    onStore((store) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/near", "near or far, title: anything - at all"))
        expect(paths(yield* store.searchIndex(query(["near", "or"])))).toEqual(["/near"])
        expect(paths(yield* store.searchIndex(query(["and", "not"], { match: "any" })))).toEqual([])
        for (const terms of [['"'], ['a"b'], ['near"', "or"], ["*"], ["-"], [":"], ["title:far"], ["near(", ")"], [""]])
          for (const match of ["all", "any"] as const)
            for (const prefixLast of [false, true]) yield* store.searchIndex(query(terms, { match, prefixLast }))
      }),
    ))

  it("stems words, finds prefixes and the words of the URL", () =>
    onStore((store) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/net", "Both devices are connected to the kangaroo router."))
        yield* store.indexPage({ ...page("", "Nothing here."), url: "https://www.docs.example.com/install-guide" })
        expect(paths(yield* store.searchIndex(query(["connections"])))).toEqual(["/net"])
        expect(paths(yield* store.searchIndex(query(["kang"])))).toEqual([])
        expect(paths(yield* store.searchIndex(query(["kang"], { prefixLast: true })))).toEqual(["/net"])
        // Only the last term is a prefix.
        expect(paths(yield* store.searchIndex(query(["kang", "router"], { prefixLast: true })))).toEqual([])
        expect(paths(yield* store.searchIndex(query(["router", "kang"], { prefixLast: true })))).toEqual(["/net"])
        for (const word of ["docs", "install", "guide"])
          expect(paths(yield* store.searchIndex(query([word])))).toEqual(["/install-guide"])
        expect(paths(yield* store.searchIndex(query(["www"])))).toEqual([])
      }),
    ))

  it("ranks a page titled with the word above one that says it twice, and newest first when asked", () =>
    onStore((store) =>
      Effect.gen(function* () {
        yield* store.indexPage(
          page("/garden", "Orchids like light. Water orchids weekly.", { title: "Garden", scrapedAt: T0 + 2 }),
        )
        yield* store.indexPage(
          page("/orchids", "How to care for them through the seasons, step by step.", { title: "Orchids" }),
        )
        // Pages without the word, so that it is a rare one (bm25 gives a word on most pages no weight).
        for (const [i, plant] of ["roses", "tulips", "ferns", "cacti"].entries())
          yield* store.indexPage(page(`/${plant}`, `${plant} need sun and water.`, { scrapedAt: T0 + 1 - i }))
        // Equal column weights would put /garden first: the title weight is what decides.
        expect(paths(yield* store.searchIndex(query(["orchids"])))).toEqual(["/orchids", "/garden"])
        expect(paths(yield* store.searchIndex(query(["orchids"], { newestFirst: true })))).toEqual([
          "/garden",
          "/orchids",
        ])
        expect(paths(yield* store.searchIndex(query(["orchids", "roses"], { match: "any" })))).toHaveLength(3)
        expect(paths(yield* store.searchIndex(query(["orchids", "roses"])))).toEqual([])
        expect(paths(yield* store.searchIndex(query(["orchids"], { offset: 1, limit: 1 })))).toEqual(["/garden"])
        expect(yield* store.searchIndex(query(["orchids"], { limit: 0 }))).toEqual([])
        // No terms: every page, newest first (the later write first at the same instant), in slices.
        expect(paths(yield* store.searchIndex(query([])))).toEqual([
          "/garden",
          "/roses",
          "/tulips",
          "/orchids",
          "/ferns",
          "/cacti",
        ])
        expect(paths(yield* store.searchIndex(query([], { offset: 1, limit: 2 })))).toEqual(["/roses", "/tulips"])
      }),
    ))

  it("filters by owner and by time, with or without terms", () =>
    onStore((store) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/a", "shared words", { owner: "key-a", scrapedAt: T0 }))
        yield* store.indexPage(page("/a", "shared words", { owner: null, scrapedAt: T0 + 10 }))
        yield* store.indexPage(page("/b", "shared words", { owner: "key-b", scrapedAt: T0 + 20 }))
        for (const terms of [["shared"], []]) {
          const owners = (search: Partial<IndexSearch>) =>
            Effect.map(store.searchIndex(query(terms, { newestFirst: true, ...search })), (pages) =>
              pages.map((found) => found.owner),
            )
          expect(yield* owners({})).toEqual(["key-b", null, "key-a"])
          expect(yield* owners({ owner: "key-a" })).toEqual(["key-a"])
          expect(yield* owners({ owner: null })).toEqual([null])
          expect(yield* owners({ owner: "key-c" })).toEqual([])
          expect(yield* owners({ from: T0 + 10 })).toEqual(["key-b", null])
          expect(yield* owners({ to: T0 + 10 })).toEqual([null, "key-a"])
          expect(yield* owners({ from: T0 + 10, to: T0 + 10 })).toEqual([null])
          expect(yield* owners({ owner: "key-a", from: T0 + 1 })).toEqual([])
        }
      }),
    ))

  it("purging old pages takes them out of the index", () =>
    onStore((store, { check, ftsMatches }) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/old", "lighthouse keepers", { scrapedAt: T0 }))
        yield* store.indexPage(page("/new", "lighthouse lamps", { scrapedAt: T0 + 10 }))
        const counts = yield* store.purgeExpired(T0 + 20, { indexBefore: T0 + 10 })
        expect(counts.indexed).toBe(1)
        expect(paths(yield* store.searchIndex(query(["lighthouse"])))).toEqual(["/new"])
        expect(yield* store.searchIndex(query(["keepers"]))).toEqual([])
        expect(yield* ftsMatches("keepers")).toBe(0)
        yield* check
      }),
    ))

  it("tokenizes pages when a search needs them, not as they are written", () =>
    onStore(
      (store, { check, ftsPages }) =>
        Effect.gen(function* () {
          // More than one chunk of the catch-up (100 pages).
          for (let i = 0; i < 250; i++) yield* store.indexPage(page(`/p${i}`, `meadow number${i}`))
          // A search without terms writes the queue to the file and reads it there, without the FTS index.
          expect(yield* store.searchIndex(query([], { limit: 1 }))).toHaveLength(1)
          expect(yield* ftsPages).toBe(0)
          expect(paths(yield* store.searchIndex(query(["number249"])))).toEqual(["/p249"])
          expect(yield* ftsPages).toBe(250)
          yield* check
          expect(paths(yield* store.searchIndex(query(["meadow"], { limit: 300 })))).toHaveLength(250)
        }),
      undefined,
      // Not before the test ends unasked (below).
      { searchIndexIdleMs: 600_000 },
    ))

  it("tokenizes the pages written once no more come for a while, unasked", () =>
    onStore(
      (store, { check, ftsPages }) =>
        Effect.gen(function* () {
          for (let i = 0; i < 150; i++) yield* store.indexPage(page(`/p${i}`, `glacier number${i}`))
          const waited = Date.now()
          while ((yield* ftsPages) < 150 && Date.now() - waited < 10_000) yield* Effect.sleep("50 millis")
          expect(yield* ftsPages).toBe(150)
          yield* check
        }),
      undefined,
      { searchIndexIdleMs: 100 },
    ))

  it("keeps the FTS index exact when pages are replaced or purged before and after it indexed them", () =>
    onStore((store, { check, ftsMatches }) =>
      Effect.gen(function* () {
        yield* store.indexPage(page("/indexed", "walrus colony", { scrapedAt: T0 }))
        expect(paths(yield* store.searchIndex(query(["walrus"])))).toEqual(["/indexed"])
        // Replaced after it was indexed (its old words must go), and a page replaced before it ever was.
        yield* store.indexPage(page("/indexed", "puffin colony", { scrapedAt: T0 + 1 }))
        yield* store.indexPage(page("/late", "heron marsh", { scrapedAt: T0 + 1 }))
        yield* store.searchIndex(query([]))
        yield* store.indexPage(page("/late", "egret marsh", { scrapedAt: T0 + 2 }))
        yield* store.indexPage(page("/gone", "ibis shore", { scrapedAt: T0 }))
        yield* store.searchIndex(query([]))
        yield* store.purgeExpired(T0 + 20, { indexBefore: T0 + 1 })
        for (const gone of ["walrus", "heron", "ibis"]) {
          expect(yield* store.searchIndex(query([gone]))).toEqual([])
          expect(yield* ftsMatches(gone)).toBe(0)
        }
        expect(paths(yield* store.searchIndex(query(["colony"])))).toEqual(["/indexed"])
        expect(paths(yield* store.searchIndex(query(["egret"])))).toEqual(["/late"])
        yield* check
      }),
    ))

  it("a file whose pages an earlier version indexed as written keeps them, and their replacement", async () => {
    const filename = join(dir, `fts-${++databases}.db`)
    // The schema as the version before (migrations up to 0008), whose triggers index each page as it is written.
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* Migrator.make({})({
          loader: Effect.map(loader, (migrations) => migrations.filter(([id]) => id <= 8)),
        })
        const sql = yield* SqlClient.SqlClient
        for (const [url, content] of [
          ["/otter", "otters float"],
          ["/lynx", "lynx stalk"],
        ])
          yield* sql`INSERT INTO search_index ${sql.insert({ owner: "key-a", url: `https://example.test${url}`, content, url_words: "", scraped_at: T0 })}`
      }).pipe(Effect.provide(SqliteClient.layer({ filename }))),
    )
    await onStore(
      (store, { check, ftsMatches, ftsPages }) =>
        Effect.gen(function* () {
          expect(yield* ftsPages).toBe(2)
          yield* check
          yield* store.indexPage(page("/otter", "beavers build", { scrapedAt: T0 + 1 }))
          yield* store.indexPage(page("/stoat", "stoats hunt", { scrapedAt: T0 + 1 }))
          expect(paths(yield* store.searchIndex(query(["lynx"])))).toEqual(["/lynx"])
          expect(paths(yield* store.searchIndex(query(["beaver"])))).toEqual(["/otter"])
          expect(paths(yield* store.searchIndex(query(["stoat"])))).toEqual(["/stoat"])
          expect(yield* ftsMatches("float")).toBe(0)
          expect(yield* ftsPages).toBe(3)
          yield* check
        }),
      filename,
    )
  })
})
