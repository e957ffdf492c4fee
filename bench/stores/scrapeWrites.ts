/**
 * What keeping a scrape costs the SQLite store: N scrapes of a ~100 KB page, each kept for `GET /v2/scrape/{id}`
 * (`putScrape`, its document with the markdown and the raw HTML) and cached (`cacheSet`, the HTML), as
 * `POST /v2/scrape` does. Prints the time each pair of writes holds its caller (the request's path), the whole run's
 * time with the store closed (every write in the file), and the file's size. Count the `pwrite`s with
 * `strace -f -c -e trace=pwrite64,fdatasync npm run store-writes -w @webdata/bench` (the WAL is written with `pwrite`).
 *
 * Run: `npm run store-writes -w @webdata/bench` (SCRAPES=200).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { JobStore } from "@webdata/core/jobs"
import { SqliteJobStore } from "@webdata/store-sqlite"
import { Effect } from "effect"
import { renderPage } from "../crawl/site.js"

const SCRAPES = Number(process.env.SCRAPES ?? 200)
const dir = mkdtempSync(join(tmpdir(), "webdata-scrape-writes-"))
const filename = join(dir, "webdata.db")

// ~100 KB of HTML: five of the crawl benchmark's article pages.
const html = (i: number) => Array.from({ length: 5 }, (_, k) => renderPage(i * 5 + k, 10_000)).join("\n")
const markdownOf = (page: string) => page.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ")

const held: Array<number> = []
const started = performance.now()
await Effect.runPromise(
  Effect.flatMap(JobStore, (store) =>
    Effect.gen(function* () {
      for (let i = 0; i < SCRAPES; i++) {
        const page = html(i)
        const url = `http://127.0.0.1/page/${i}`
        const document = {
          markdown: markdownOf(page),
          rawHtml: page,
          metadata: { url, sourceURL: url, statusCode: 200 },
        }
        const before = performance.now()
        yield* store.putScrape({ id: `scrape-${i}`, owner: null, document, expiresAt: Date.now() + 86_400_000 })
        yield* store.cacheSet(url, { url, statusCode: 200, contentType: "text/html", body: page, cachedAt: Date.now() })
        held.push(performance.now() - before)
      }
    }),
  ).pipe(Effect.provide(SqliteJobStore.layer({ filename }))),
)
const seconds = (performance.now() - started) / 1000
const sorted = [...held].sort((a, b) => a - b)
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.toFixed(2)
console.log(
  `${SCRAPES} scrapes of ${(html(0).length / 1024).toFixed(0)} KB: writes hold the caller p50 ${at(0.5)} ms, ` +
    `p99 ${at(0.99)} ms; ${seconds.toFixed(2)} s in all with the store closed; file ${(statSync(filename).size / 1024 / 1024).toFixed(1)} MB`,
)
rmSync(dir, { recursive: true, force: true })
