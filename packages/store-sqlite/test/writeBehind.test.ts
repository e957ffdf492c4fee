/**
 * The write-behind queue of kept scrapes and cache entries (src/WriteBehind.ts) and the compression of their large
 * texts (src/Compression.ts): this process reads its writes at once, another connection sees them once flushed,
 * closing the store writes what is queued, and a compressed text reads back the same.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brotliCompressSync, constants } from "node:zlib"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { it } from "@effect/vitest"
import { JobStore, type JobStoreShape } from "@webdata/core/jobs"
import { Effect, Fiber, Option } from "effect"
import { afterAll, describe, expect } from "vitest"
import { COMPRESS_FROM_BYTES } from "../src/Compression.js"
import { SqliteJobStore } from "../src/index.js"
import * as WriteBehind from "../src/WriteBehind.js"
import { defaults } from "../src/WriteBehind.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-store-sqlite-wb-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let databases = 0
const freshFile = () => join(dir, `test-${++databases}.db`)

const T0 = 1_700_000_000_000

const withFile = <A, E>(
  filename: string,
  body: (store: JobStoreShape) => Effect.Effect<A, E>,
  writeBehindMs?: number,
) =>
  Effect.flatMap(JobStore, body).pipe(
    Effect.provide(SqliteJobStore.layer({ filename, ...(writeBehindMs !== undefined ? { writeBehindMs } : {}) })),
  )

/** What another process sees in the file: each row's stored type, length and (scrapes) first two bytes in hex. */
const stored = (filename: string, query: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe<{ readonly kind: string; readonly n: number; readonly head?: string }>(query),
  ).pipe(Effect.provide(SqliteClient.layer({ filename })))
const scrapeInFile = (filename: string, id: string) =>
  stored(
    filename,
    `SELECT typeof(document) AS kind, length(document) AS n, hex(substr(document, 1, 2)) AS head FROM scrapes WHERE id = '${id}'`,
  )
const cacheInFile = (filename: string, key: string) =>
  stored(filename, `SELECT typeof(body) AS kind, length(body) AS n FROM scrape_cache WHERE key = '${key}'`)

/** A page-sized text of markup and non-ASCII text, as a scraped page's document holds. */
const bigText = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p class="x">Paragraph ${i}: naïve café — 東京 ${i * 7}</p>`).join("\n")

const page = (body: string) => ({
  url: "https://example.test/",
  statusCode: 200,
  contentType: "text/html",
  body,
  cachedAt: T0,
})

describe("SQLite store: write-behind scrapes and cache entries", () => {
  it.effect("reads its own writes before they reach the file; large texts are stored compressed", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const markdown = bigText(2000)
      expect(markdown.length).toBeGreaterThan(10 * COMPRESS_FROM_BYTES)
      // A queue that waits a minute: only the close writes it.
      yield* withFile(
        filename,
        (store) =>
          Effect.gen(function* () {
            yield* store.putScrape({ id: "big", owner: "k", document: { markdown }, expiresAt: T0 })
            yield* store.putScrape({ id: "small", owner: null, document: { markdown: "# s" }, expiresAt: T0 })
            yield* store.cacheSet("big", page(markdown))
            expect(Option.getOrThrow(yield* store.getScrape("big"))).toEqual({
              id: "big",
              owner: "k",
              document: { markdown },
              expiresAt: T0,
            })
            expect(Option.getOrThrow(yield* store.cacheGet("big")).body).toBe(markdown)
            expect(yield* scrapeInFile(filename, "big")).toEqual([])
            expect(yield* cacheInFile(filename, "big")).toEqual([])
          }),
        60_000,
      )
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          const [big] = yield* scrapeInFile(filename, "big")
          expect(big?.kind).toBe("blob")
          expect(big?.head).toBe("1F8B")
          expect(big?.n).toBeLessThan(markdown.length / 4)
          expect(yield* scrapeInFile(filename, "small")).toEqual([
            { kind: "text", n: '{"markdown":"# s"}'.length, head: "7B22" /* {" */ },
          ])
          expect((yield* cacheInFile(filename, "big"))[0]?.kind).toBe("blob")
          // Read back from the file: the same texts.
          expect(Option.getOrThrow(yield* store.getScrape("big")).document).toEqual({ markdown })
          expect(Option.getOrThrow(yield* store.getScrape("small")).document).toEqual({ markdown: "# s" })
          expect(Option.getOrThrow(yield* store.cacheGet("big"))).toEqual(page(markdown))
        }),
      )
    }),
  )

  // Live: the flush waits on the real clock.
  it.live("another connection sees a queued write once the short delay has passed", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          yield* store.putScrape({ id: "s", owner: null, document: { markdown: "# s" }, expiresAt: T0 })
          yield* store.cacheSet("c", page("<p>c</p>"))
          // Polled with a pause: the flush is due `delayMs` after the write.
          let found = 0
          for (let i = 0; i < 100 && found < 2; i++) {
            yield* Effect.sleep(defaults.delayMs)
            found = (yield* scrapeInFile(filename, "s")).length + (yield* cacheInFile(filename, "c")).length
          }
          expect(found).toBe(2)
        }),
      )
    }),
  )

  it.effect("closing the store writes what is queued; the last write of a key wins", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          for (let i = 0; i < 50; i++)
            yield* store.putScrape({ id: `s-${i}`, owner: null, document: { markdown: `# ${i}` }, expiresAt: T0 })
          yield* store.cacheSet("k", page("first"))
          yield* store.cacheSet("k", page(bigText(500)))
          yield* store.putScrape({ id: "s-0", owner: null, document: { markdown: "# replaced" }, expiresAt: T0 })
        }),
      )
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          expect(Option.getOrThrow(yield* store.getScrape("s-0")).document).toEqual({ markdown: "# replaced" })
          expect(Option.getOrThrow(yield* store.getScrape("s-49")).document).toEqual({ markdown: "# 49" })
          expect(Option.getOrThrow(yield* store.cacheGet("k")).body).toBe(bigText(500))
        }),
      )
    }),
  )

  it.effect("a purge sees the queued writes", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          yield* store.putScrape({ id: "old", owner: null, document: { markdown: "# o" }, expiresAt: T0 })
          yield* store.cacheSet("old", { ...page("<p>old</p>"), cachedAt: T0 - 10 })
          const purged = yield* store.purgeExpired(T0 + 1, { cacheBefore: T0 })
          expect([purged.scrapes, purged.cache]).toEqual([1, 1])
          expect(yield* store.getScrape("old")).toEqual(Option.none())
          expect(yield* store.cacheGet("old")).toEqual(Option.none())
        }),
      )
    }),
  )

  it.effect("reads rows written before gzip: plain text, and brotli", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* withFile(filename, () => Effect.void)
      const markdown = bigText(300)
      const document = JSON.stringify({ markdown })
      // Brotli as the store wrote it before gzip (quality 1, text mode, the default window).
      const brotli = (text: string) =>
        brotliCompressSync(text, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
        })
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all([
          sql`INSERT INTO scrapes ${sql.insert({ id: "plain", owner: null, document, expires_at: T0 })}`,
          sql`INSERT INTO scrapes ${sql.insert({ id: "brotli", owner: null, document: brotli(document), expires_at: T0 })}`,
          sql`INSERT INTO scrape_cache ${sql.insert({
            key: "brotli",
            url: "https://example.test/",
            status_code: 200,
            content_type: "text/html",
            body: brotli(markdown),
            cached_at: T0,
          })}`,
        ]),
      ).pipe(Effect.provide(SqliteClient.layer({ filename })))
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          expect(Option.getOrThrow(yield* store.getScrape("plain")).document).toEqual({ markdown })
          expect(Option.getOrThrow(yield* store.getScrape("brotli")).document).toEqual({ markdown })
          expect(Option.getOrThrow(yield* store.cacheGet("brotli")).body).toBe(markdown)
        }),
      )
    }),
  )

  it.effect("holds a long queued text as its UTF-8 bytes, a short one as it is, and hands both to the batch", () =>
    Effect.gen(function* () {
      const batches: Array<WriteBehind.Batch> = []
      const queue = yield* WriteBehind.make((batch) => Effect.sync(() => batches.push(batch)), {
        delayMs: 60_000,
        maxBytes: defaults.maxBytes,
      })
      const long = bigText(500)
      yield* queue.putScrape({ id: "long", owner: null, document: long, expires_at: T0 })
      yield* queue.putScrape({ id: "short", owner: null, document: "# s", expires_at: T0 })
      yield* queue.indexPage({ owner: null, url: "https://example.test/", content: long, scrapedAt: T0 })
      const held = queue.scrape("long")?.document
      expect(Buffer.isBuffer(held)).toBe(true)
      expect((held as Buffer).length).toBe(Buffer.byteLength(long))
      expect(WriteBehind.textOf(held!)).toBe(long)
      expect(queue.scrape("short")?.document).toBe("# s")
      yield* queue.flush
      const [batch] = batches
      expect(batch?.scrapes.map((row) => WriteBehind.textOf(row.document))).toEqual([long, "# s"])
      expect(Buffer.isBuffer(batch?.index[0]?.content)).toBe(true)
      expect(WriteBehind.textOf(batch!.index[0]!.content)).toBe(long)
    }).pipe(Effect.scoped),
  )

  // Live: writers and flushes overlap on the real clock.
  it.live("a writer at the queue's bound waits for at most two flushes, however many writers keep coming", () =>
    Effect.gen(function* () {
      let flushes = 0
      // A slow file: each batch takes 40 ms, while writers come every 5 ms, each filling the queue on its own.
      const queue = yield* WriteBehind.make(
        (batch) =>
          Effect.sleep(40).pipe(
            Effect.tap(() => {
              if (batch.scrapes.length > 0) flushes++
            }),
          ),
        { delayMs: 1_000, maxBytes: 10 },
      )
      const waits: Array<number> = []
      const writers = []
      for (let i = 0; i < 40; i++) {
        writers.push(
          yield* Effect.fork(
            Effect.suspend(() => {
              const before = flushes
              return Effect.tap(
                queue.putScrape({ id: `s-${i}`, owner: null, document: "x".repeat(20), expires_at: T0 }),
                () => Effect.sync(() => waits.push(flushes - before)),
              )
            }),
          ),
        )
        yield* Effect.sleep(5)
      }
      yield* Fiber.joinAll(writers)
      expect(waits).toHaveLength(40)
      // Each writer used to run a flush of its own in turn: the later ones waited for a dozen and more.
      expect(Math.max(...waits)).toBeLessThanOrEqual(2)
      expect(queue.scrape("s-39")).toBeUndefined()
    }).pipe(Effect.scoped),
  )
})
