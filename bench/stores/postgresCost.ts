/**
 * Where the Postgres store's CPU goes for one crawled page: the server processes' CPU time (`/proc`, every `postgres`
 * process) around 500 calls of each write a page makes — its search index entry (`indexPage` of a ~20 KB page), its
 * scrape cache entry (`cacheSet` of a ~40 KB body), and the job's work (a lease, a politeness gate, `completeTask`
 * with the page's document and 12 discovered links, a webhook delivery queued).
 *
 * Run: `npm run store-postgres-cost -w @webdata/bench` (PAGES=500).
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { JobStore } from "@webdata/core/jobs"
import { Effect, ManagedRuntime } from "effect"
import { freshPostgres } from "../../packages/server/test/support/backends.js"

const PAGES = Number(process.env.PAGES ?? 500)
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())

/** CPU milliseconds of every `postgres` process so far. */
const serverCpu = () =>
  execFileSync("pgrep", ["-x", "postgres"])
    .toString()
    .trim()
    .split("\n")
    .reduce((sum, pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        return sum + (Number(fields[11]) + Number(fields[12])) * TICK_MS
      } catch {
        return sum // gone meanwhile
      }
    }, 0)

const WORDS = "the data crawl page engine system network server request response latency memory storage queue".split(
  " ",
)
const content = Array.from({ length: 3000 }, (_, i) => `${WORDS[(i * 7) % WORDS.length]}${i % 50}`).join(" ")

const perPage = (label: string, write: (i: number) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const before = serverCpu()
    for (let i = 0; i < PAGES; i++) yield* write(i)
    console.log(`| ${label} | ${((serverCpu() - before) / PAGES).toFixed(2)} |`)
  })

const backend = freshPostgres()
const runtime = ManagedRuntime.make(backend.layer())
try {
  console.log(`Postgres server CPU per page (${content.length} characters of text), ${PAGES} pages:`)
  console.log("| write | ms CPU per page |\n| --- | --- |")
  await runtime.runPromise(
    Effect.flatMap(JobStore, (store) =>
      Effect.gen(function* () {
        yield* perPage("search index (`indexPage`)", (i) =>
          store.indexPage({ owner: null, url: `https://x.test/${i}`, title: `Page ${i}`, content, scrapedAt: i }),
        )
        yield* perPage("scrape cache (`cacheSet`)", (i) =>
          store.cacheSet(`key ${i}`, {
            url: `https://x.test/${i}`,
            statusCode: 200,
            contentType: "text/html",
            body: content + content,
            cachedAt: Date.now(),
          }),
        )
        const now = Date.now()
        const job = yield* store.createJob(
          {
            kind: "crawl",
            owner: null,
            url: "https://x.test/",
            options: {},
            limit: PAGES * 20,
            zeroDataRetention: false,
            createdAt: now,
            expiresAt: now + 86_400_000,
          },
          [{ url: "https://x.test/0", key: "x.test/0", depth: 0, host: "x.test" }],
        )
        const link = (n: number) => ({ url: `https://x.test/${n}`, key: `x.test/${n}`, depth: 1, host: "x.test" })
        let next = 1
        yield* perPage("lease, gate, `completeTask` (document + 12 links), webhook queued", () =>
          Effect.gen(function* () {
            const [task] = yield* store.leaseTasks({ worker: "bench", now: Date.now(), leaseMs: 60_000, max: 1 })
            if (task === undefined) throw new Error("no task due")
            yield* store.passGates([{ key: "host x.test", spacingMs: 0 }], Date.now())
            yield* store.completeTask(task, {
              now: Date.now(),
              document: { markdown: content, metadata: { sourceURL: task.url } },
              discovered: Array.from({ length: 12 }, () => link(next++)),
              robotsBlocked: [],
            })
            yield* store.enqueueDelivery({ jobId: job.id, payload: { event: "page" }, createdAt: Date.now() })
          }),
        )
      }),
    ),
  )
} finally {
  await runtime.dispose()
  await backend.cleanUp()
}
