/**
 * Bounded worker runs (`Drain`), as a host that starts workers on demand uses them: run what is due until the
 * deadline, give back what could not finish, send the due webhooks, report what waits. Real engine, real pages on
 * 127.0.0.1, memory store.
 */
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { BatchScrape } from "../../src/BatchScrape.js"
import { Crawl } from "../../src/Crawl.js"
import * as Engine from "../../src/Engine.js"
import { Drain } from "../../src/Jobs/Drain.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import * as WorkQueue from "../../src/Jobs/WorkQueue.js"
import { chainPages, startCrawlSite } from "../support/crawlSite.js"
import { startWebhookReceiver } from "../support/webhookReceiver.js"

const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close()
})

const engine = (options: Engine.EngineOptions = {}) => {
  const runtime = ManagedRuntime.make(
    Engine.layer({ allowPrivateAddresses: true, worker: false, deliverWebhooks: true, ...options }),
  )
  open.push({ close: () => runtime.dispose() })
  return runtime
}

const site = async (pages: number, delayMs = 0) => {
  const started = await startCrawlSite({ pages: chainPages(pages, { delayMs }) })
  open.push(started)
  return started
}

const crawl = (url: string, options: Record<string, unknown> = {}) =>
  Effect.flatMap(Crawl, (service) => service.start({ url, sitemap: "skip", ...options }, null))

const job = (id: string) => Effect.flatMap(JobStore, (store) => Effect.map(store.getJob(id), Option.getOrThrow))

/**
 * The memory store, but its second lease of tasks comes back empty only after the task it leased first has ended: the
 * turn of a run in which the last running task ends between the lease and the count of running tasks.
 */
const storeWithLateEnd = (jobOf: () => string) =>
  Layer.effect(
    JobStore,
    Effect.map(JobStore, (store) => {
      let leases = 0
      return JobStore.of({
        ...store,
        leaseTasks: (request) =>
          Effect.gen(function* () {
            const tasks = yield* store.leaseTasks(request)
            if (++leases !== 2) return tasks
            expect(tasks).toEqual([])
            // The first page ends and records its links; then the run counts what runs.
            while ((yield* store.getJob(jobOf()).pipe(Effect.map(Option.getOrThrow))).completed < 1)
              yield* Effect.sleep("20 millis")
            yield* Effect.sleep("100 millis")
            return tasks
          }),
      })
    }),
  ).pipe(Layer.provide(MemoryJobStore.layer()))

describe("Drain: bounded worker runs", () => {
  it("goes on with work a task left as it ended, between a lease and the count of running tasks", async () => {
    // The seed page takes 1.5 s: the run's second lease (after one 250 ms wait) comes while it still runs, on any machine.
    const spec = chainPages(3)
    spec["/"] = { ...spec["/"], delayMs: 1500 }
    const pages = await startCrawlSite({ pages: spec })
    open.push(pages)
    let jobId = ""
    const runtime = engine({ store: storeWithLateEnd(() => jobId) })
    const started = await runtime.runPromise(crawl(pages.url))
    jobId = started.job.id
    const report = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 20_000 })),
    )
    expect(report).toMatchObject({ started: 4, released: 0, pending: { due: 0 } })
    expect(await runtime.runPromise(job(started.job.id))).toMatchObject({ status: "completed", completed: 4 })
  })

  it("runs a crawl to its end within one run, sends its webhooks, and reports nothing left", async () => {
    const pages = await site(20)
    const receiver = await startWebhookReceiver()
    open.push(receiver)
    const runtime = engine()
    const started = await runtime.runPromise(
      crawl(pages.url, { webhook: { url: receiver.url, events: ["started", "page", "completed"] } }),
    )
    const report = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 20_000 })),
    )
    expect(report).toMatchObject({ started: 21, released: 0, deliveriesSent: true, pending: { due: 0 } })
    expect(Option.isNone(report.pending.nextDue)).toBe(true)
    expect((await runtime.runPromise(job(started.job.id))).status).toBe("completed")
    // Flushed before the run returned: nothing arrives later.
    expect(receiver.events.map((event) => event.type)).toEqual([
      "crawl.started",
      ...Array.from({ length: 21 }, () => "crawl.page"),
      "crawl.completed",
    ])
  })

  it("stops starting tasks before the deadline, gives back what runs at it, and reports the rest as due", async () => {
    // The first 16 pages (one round of the worker's 16 slots) answer in 300 ms, the other 14 in 4 s: the first round
    // ends long before the deadline even on a loaded machine (a fixed 1 500 ms a page left 800 ms to spare, too few
    // beside other suites), and the second cannot end before it.
    const spec = chainPages(30)
    for (let i = 0; i < 30; i++) spec[`/p/${i}`] = { ...spec[`/p/${i}`], delayMs: i < 16 ? 300 : 4000 }
    const pages = await startCrawlSite({ pages: spec })
    open.push(pages)
    const runtime = engine()
    const started = await runtime.runPromise(
      Effect.flatMap(BatchScrape, (batch) =>
        batch.start({ urls: Array.from({ length: 30 }, (_, i) => `${pages.url}/p/${i}`) }, null),
      ),
    )
    const begun = Date.now()
    const report = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: begun + 2500, reserveMs: 200 })),
    )
    const took = Date.now() - begun
    expect(took).toBeLessThan(3100)
    // Pages are taken in the batch's order.
    expect(new Set(pages.requests.slice(0, 16).map((request) => request.path))).toEqual(
      new Set(Array.from({ length: 16 }, (_, i) => `/p/${i}`)),
    )
    expect(report).toMatchObject({ started: 30, released: 14, deliveriesSent: true })
    const after = await runtime.runPromise(job(started.job.id))
    expect(after.status).toBe("scraping")
    expect(report.pending.due).toBe(30 - after.completed)
    // Given back without an attempt counted: a second run finishes the batch.
    const second = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 20_000 })),
    )
    expect(second.pending.due).toBe(0)
    const ended = await runtime.runPromise(job(started.job.id))
    expect(ended).toMatchObject({ status: "completed", completed: 30, failed: 0 })
  })

  it("waits for work due soon (a crawl's delay) and leaves work due later to the next run", async () => {
    const pages = await site(2)
    const runtime = engine()
    const started = await runtime.runPromise(crawl(pages.url, { delay: 0.3 }))
    const report = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 10_000, waitMs: 1000 })),
    )
    expect(await runtime.runPromise(job(started.job.id))).toMatchObject({ status: "completed", completed: 3 })
    expect(report.pending).toEqual({ due: 0, nextDue: Option.none() })

    const slow = await runtime.runPromise(crawl(pages.url, { delay: 2 }))
    const short = await runtime.runPromise(
      Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 10_000, waitMs: 500 })),
    )
    expect((await runtime.runPromise(job(slow.job.id))).completed).toBe(1)
    expect(short.pending.due).toBe(0)
    expect(Option.getOrThrow(short.pending.nextDue)).toBeGreaterThan(Date.now() + 1000)
    expect((await runtime.runPromise(job(slow.job.id))).status).toBe("scraping")
  })

  it("asks for more runs once, when every slot is busy and work is still due", async () => {
    const pages = await site(40, 100)
    const runtime = engine({ worker: { concurrency: 4 } })
    await runtime.runPromise(
      Effect.flatMap(BatchScrape, (batch) =>
        batch.start({ urls: Array.from({ length: 40 }, (_, i) => `${pages.url}/p/${i}`) }, null),
      ),
    )
    const asked: Array<number> = []
    await runtime.runPromise(
      Effect.flatMap(Drain, (drain) =>
        drain.run({ deadline: Date.now() + 20_000, onSaturated: (due) => Effect.sync(() => asked.push(due)) }),
      ),
    )
    // 36 due, 4 at a time.
    expect(asked).toEqual([9])
  })

  it("sweeps: counts the tasks of a run that died, sends due webhooks, purges expired jobs", async () => {
    const pages = await site(3)
    const receiver = await startWebhookReceiver()
    open.push(receiver)
    const runtime = engine({ jobs: { jobTtlMs: 2000 } })
    const started = await runtime.runPromise(crawl(pages.url, { webhook: { url: receiver.url, events: ["started"] } }))
    // A run that leased the seed and died: its lease runs out after 50 ms.
    const [dead] = await runtime.runPromise(
      Effect.flatMap(JobStore, (store) => store.leaseTasks({ worker: "gone", now: Date.now(), leaseMs: 50, max: 1 })),
    )
    expect(dead?.jobId).toBe(started.job.id)
    await new Promise((resolve) => setTimeout(resolve, 60))
    const swept = await runtime.runPromise(Effect.flatMap(Drain, (drain) => drain.sweep(Date.now() + 5000)))
    expect(swept.due).toBe(1)
    expect(receiver.events.map((event) => event.type)).toEqual(["crawl.started"])
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const later = await runtime.runPromise(Effect.flatMap(Drain, (drain) => drain.sweep(Date.now() + 5000)))
    expect(later.due).toBe(0)
    expect(await runtime.runPromise(Effect.flatMap(JobStore, (store) => store.getJob(started.job.id)))).toEqual(
      Option.none(),
    )
  })

  it("a deployment whose work queue refuses jobs answers JOBS_NOT_CONFIGURED before making one", async () => {
    const pages = await site(1)
    const runtime = engine({ workQueue: WorkQueue.layerRefusing("no worker can reach this store") })
    const refused = await runtime.runPromise(Effect.flip(crawl(pages.url)))
    expect(refused).toMatchObject({ _tag: "RequestError", code: "JOBS_NOT_CONFIGURED" })
    expect(await runtime.runPromise(Effect.flatMap(JobStore, (store) => store.listJobs({})))).toEqual([])
  })

  it("tells the work queue about each job it starts", async () => {
    const pages = await site(1)
    const notices: Array<WorkQueue.WorkNotice> = []
    const recording = Layer.succeed(
      WorkQueue.WorkQueue,
      WorkQueue.WorkQueue.of({ admit: Effect.void, notify: (notice) => Effect.sync(() => notices.push(notice)) }),
    )
    const runtime = engine({ workQueue: recording })
    const started = await runtime.runPromise(crawl(pages.url))
    expect(notices).toEqual([{ jobId: started.job.id, kind: "crawl" }])
  })
})
