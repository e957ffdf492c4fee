/**
 * Crash and resume of a real crawl: a process crawling a 500-page site on SQLite is killed with SIGKILL halfway,
 * a new process on the same machine takes the crawl over at once (it takes back the killed process's leases instead
 * of waiting a minute for them to expire), and the crawl ends with every page recorded exactly once, and with a
 * webhook event for every page, received or still waiting in the outbox, before the crawl's `completed`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { JobStore } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { afterAll, expect, it } from "vitest"
import { chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { startWebhookReceiver } from "../../core/test/support/webhookReceiver.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-resume-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: ReadonlyArray<string>): ChildProcess =>
  spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=source",
      fileURLToPath(new URL("./support/crawlProcess.ts", import.meta.url)),
      ...args,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  )

/** Resolves with the first stdout line that `match` accepts. */
const lineMatching = (child: ChildProcess, match: (line: string) => boolean): Promise<string> =>
  new Promise((resolve, reject) => {
    let buffer = ""
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString()
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      const found = lines.find(match)
      if (found !== undefined) {
        child.stdout?.off("data", onData)
        resolve(found)
      }
    }
    child.stdout?.on("data", onData)
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before the expected line`)))
  })

/** A webhook event as the outbox keeps it (`Jobs/Webhooks.ts`). */
interface Queued {
  readonly webhookId: string
  // biome-ignore lint/suspicious/noExplicitAny: the event's data as queued, for the test to inspect freely.
  readonly delivery: { readonly event: string; readonly data: ReadonlyArray<any> }
}

it("finishes a crawl killed halfway, with every page exactly once and every page's webhook event", async () => {
  // Slow enough that the kill lands mid-crawl with fetches in flight.
  const pages = chainPages(500, { delayMs: 15 })
  const site = await startCrawlSite({ pages })
  const receiver = await startWebhookReceiver()
  const filename = join(dir, "crawl.db")
  try {
    const first = run([filename, "start", site.url, `${receiver.url}/hook`])
    const id = (await lineMatching(first, (line) => line.startsWith("job "))).slice(4)
    await lineMatching(first, (line) => line.startsWith("completed ") && Number(line.slice(10)) >= 150)
    first.kill("SIGKILL")
    await new Promise((resolve) => first.once("exit", resolve))
    const hitsAtKill = site.requests.length

    const resumedAt = Date.now()
    const second = run([filename, "resume", id])
    await lineMatching(second, (line) => line === "done")
    // The leases last 60 s: a crawl that ends sooner got the killed process's tasks back at once.
    expect(Date.now() - resumedAt).toBeLessThan(40_000)
    await new Promise((resolve) => second.once("exit", resolve))
    expect(site.requests.length).toBeGreaterThan(hitsAtKill)

    const { job, documents, waiting } = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* JobStore
        const job = Option.getOrThrow(yield* store.getJob(id))
        const documents = yield* store.documents(id, { skip: 0, limit: 10_000 })
        // What the processes did not send: taken from the outbox in its order (a lease of the killed one included).
        const waiting: Array<Queued> = []
        for (;;) {
          const [next] = yield* store.leaseDeliveries({
            worker: "test",
            now: Date.now() + 3_600_000,
            leaseMs: 1,
            max: 1,
          })
          if (next === undefined) break
          waiting.push(next.payload as Queued)
          yield* store.finishDelivery(next)
        }
        return { job, documents, waiting }
      }).pipe(Effect.provide(SqliteJobStore.layer({ filename }))),
    )
    expect(job.status).toBe("completed")
    const urls = documents.map((entry) => new URL(entry.url).pathname)
    const expected = Object.keys(pages)
    expect(urls).toHaveLength(expected.length)
    expect(new Set(urls)).toEqual(new Set(expected))
    expect(job.completed).toBe(expected.length)
    expect(job.failed).toBe(0)
    expect(documents.map((entry) => entry.seq)).toEqual(expected.map((_, index) => index))

    // Every page's event was queued by the commit that recorded the page, so the kill lost none. A delivery the
    // killed process was sending may come twice, with the same webhookId.
    const events = [
      ...receiver.events.map((event) => ({ ...event, type: event.type.replace("crawl.", "") })),
      ...waiting.map(({ webhookId, delivery }) => ({ type: delivery.event, webhookId, data: delivery.data })),
    ]
    const pageEvents = events.filter((event) => event.type === "page")
    expect(new Set(pageEvents.map((event) => new URL(event.data[0].metadata.sourceURL).pathname))).toEqual(
      new Set(expected),
    )
    expect(new Set(pageEvents.map((event) => event.webhookId)).size).toBe(expected.length)
    const completed = events.flatMap((event, index) => (event.type === "completed" ? [index] : []))
    expect(new Set(completed.map((index) => events[index]!.webhookId)).size).toBe(1)
    expect(completed[0]).toBeGreaterThan(events.findLastIndex((event) => event.type === "page"))
  } finally {
    await site.close()
    await receiver.close()
  }
}, 90_000)
