/**
 * What the store costs in Redis memory (`MEMORY USAGE … SAMPLES 0`, exact), per task, per document and per posting
 * of the search index: the numbers of the README's sizing rule, printed, with bounds that catch a regression.
 */
import { describe, expect, it } from "@effect/vitest"
import type { IndexedPage } from "@webdata/core/jobs"
import { Effect } from "effect"
import { newJob, tasks } from "../../core/test/jobs/conformance.js"
import { cleanUp, keysOf, openStore, uniquePrefix, withRedis } from "./support/redis.js"

const TASKS = 2_000
const PAGES = 1_000

/** Bytes held by the keys under `prefix` that match `filter`. */
const bytes = (prefix: string, filter: (key: string) => boolean = () => true) =>
  withRedis(async (redis) => {
    const found = (await keysOf(redis, prefix)).filter(filter)
    const sizes = await Promise.all(found.map((key) => redis.memory("USAGE", key, "SAMPLES", 0)))
    return sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0)
  })

describe("Redis store memory", () => {
  it.scopedLive("per task, per document and per search posting", () =>
    Effect.gen(function* () {
      const prefix = uniquePrefix()
      yield* cleanUp(prefix)
      const store = yield* openStore(prefix)
      const now = Date.now()
      // Realistic URLs: a site's path of a few segments.
      const job = yield* store.createJob(
        newJob({ createdAt: now, expiresAt: now + 3_600_000, limit: TASKS }),
        tasks(TASKS, "/docs/guides/getting-started/page-"),
      )
      const pending = (yield* bytes(prefix)) / TASKS

      const markdown = `# A page\n\n${"Some words of a typical page, repeated. ".repeat(50)}`
      for (;;) {
        const leased = yield* store.leaseTasks({ worker: "w1", now, leaseMs: 60_000, max: 100 })
        if (leased.length === 0) break
        for (const task of leased) {
          yield* store.completeTask(task, {
            now,
            document: { markdown, metadata: { sourceURL: task.url, statusCode: 200 } },
            discovered: [],
            robotsBlocked: [],
          })
        }
      }
      const [one] = yield* store.documents(job.id, { skip: 0, limit: 1 })
      const documentJson = JSON.stringify(one!.document).length
      const docs = (yield* bytes(prefix, (key) => key.endsWith(":docs"))) / TASKS
      const done = ((yield* bytes(prefix)) - docs * TASKS) / TASKS

      // Each page: 20 words every page has (postings in large sets) and 80 of its own (postings in small ones).
      const common = Array.from({ length: 20 }, (_, i) => `common${i}`)
      for (let i = 0; i < PAGES; i++) {
        const own = Array.from({ length: 80 }, (_, j) => `own${i}x${j}`)
        const page: IndexedPage = {
          owner: "key-a",
          url: `https://example.test/${i}`,
          content: [...common, ...own].join(" "),
          scrapedAt: now,
        }
        yield* store.indexPage(page)
      }
      const term = `${prefix}index:term:`
      const large = (yield* bytes(prefix, (key) => key.startsWith(`${term}common`))) / (20 * PAGES)
      const small = (yield* bytes(prefix, (key) => key.startsWith(`${term}own`))) / (80 * PAGES)
      const words = (yield* bytes(prefix, (key) => key === `${prefix}index:terms`)) / (20 + 80 * PAGES)
      const page = (yield* bytes(prefix, (key) => key.startsWith(`${prefix}index:page:`))) / PAGES

      console.info(
        `redis memory: ${pending.toFixed(0)} B per pending task, ${done.toFixed(0)} B per finished one;`,
        `${docs.toFixed(0)} B per document of ${documentJson} B of JSON;`,
        `search index: ${page.toFixed(0)} B per page hash of 100 words,`,
        `${small.toFixed(0)} B per posting of a word on a few pages, ${large.toFixed(0)} B on more than 128,`,
        `${words.toFixed(0)} B per distinct word`,
      )
      expect(pending).toBeLessThan(850)
      expect(done).toBeLessThan(700)
      expect(docs - documentJson).toBeLessThan(600)
      expect(large).toBeLessThan(130)
    }),
  )
})
