/**
 * Many processes on one shared store, as deployed past one machine: on Postgres and on Redis, two API processes
 * (`WEBDATA_WORKER=0`) and three worker processes share one crawl of a 1 000-page site.
 *
 * - Every page is recorded exactly once, and the crawl takes less time than the same crawl with one worker.
 * - One worker is killed with SIGKILL mid-crawl: the pages it had leased finish on the others once its leases run out.
 * - Status reads on either API process agree, and the WebSocket watcher on the API process that did not start the
 *   crawl sees every page, fetched by workers elsewhere.
 * - The crawl's webhook gets every page and one `completed`, queued by whichever process had the event and sent by
 *   the workers through the store's outbox.
 * - A crawl's `delay` holds across the worker processes: its pages are fetched one at a time, spaced by the delay.
 */
import { createServer } from "node:http"
import { afterAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { listenOnLoopback } from "../../core/test/support/loopback.js"
import { type Backend, freshPostgres, freshRedis } from "./support/backends.js"
import { allPages, type Status, startCrawl, status, until } from "./support/crawlApi.js"
import { type Entry, startEntry, stopEntry } from "./support/entry.js"

const PAGES = 1000
/** Each page answers this late, so that the crawl waits on the network (as real ones do) rather than on two cores. */
const PAGE_DELAY_MS = 100
const LEASE_SECONDS = 4

const running: Array<Entry> = []
afterAll(async () => {
  for (const entry of running.splice(0)) entry.process.kill("SIGKILL")
})

const common = {
  WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
  WEBDATA_WORKER_CONCURRENCY: "4",
  WEBDATA_WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
  HOST: "127.0.0.1",
  PORT: "0",
}

const startApi = async (backend: Backend) => {
  const entry = startEntry("main.ts", { ...common, ...backend.env, WEBDATA_WORKER: "0", WEBDATA_POSTGRES_POOL: "4" })
  running.push(entry)
  const [, url] = await entry.waitFor(/listening on (http:\/\/\S+)/)
  return { entry, url: url! }
}

const startWorker = async (backend: Backend) => {
  const entry = startEntry("workerMain.ts", { ...common, ...backend.env, WEBDATA_POSTGRES_POOL: "4" })
  running.push(entry)
  await entry.waitFor(/worker running on/)
  return entry
}

/** The watcher's view: every document URL it sent (catch-up and live), and how it closed. */
const watch = (api: string, id: string) => {
  const urls: Array<string> = []
  const socket = new WebSocket(`${api.replace("http", "ws")}/v2/crawl/${id}`)
  socket.on("message", (raw) => {
    const message = JSON.parse(raw.toString()) as { type: string; data: unknown }
    if (message.type === "catchup") urls.push(...(message.data as Status).data.map((d) => d.metadata.sourceURL))
    if (message.type === "document") urls.push((message.data as Status["data"][number]).metadata.sourceURL)
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  return { urls, closed }
}

interface Hook {
  readonly type: string
  readonly webhookId: string
  readonly data: ReadonlyArray<{ readonly metadata?: { readonly sourceURL?: string } }>
}

/** A webhook receiver on loopback that keeps every event it is sent. */
const startReceiver = async () => {
  const events: Array<Hook> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString()) as Hook)
      response.end("ok")
    })
  })
  return { events, ...(await listenOnLoopback(server)) }
}

const expectEveryPageOnce = (urls: ReadonlyArray<string>, site: string) => {
  expect(urls).toHaveLength(PAGES + 1)
  expect(new Set(urls).size).toBe(PAGES + 1)
  expect(urls).toContain(`${site}/p/${PAGES - 1}`)
}

describe.each([
  { store: "postgres", makeBackend: freshPostgres },
  { store: "redis", makeBackend: freshRedis },
])("three workers and two API processes on one $store store", ({ makeBackend }) => {
  const backend = makeBackend()
  afterAll(() => backend.cleanUp())

  it(`${backend.name}: one crawl shared by every process, each page once, faster than one worker, a SIGKILL survived`, async () => {
    // One worker alone first: the time to beat.
    const alone = await startCrawlSite({ pages: chainPages(PAGES, { delayMs: PAGE_DELAY_MS }) })
    const [first, second] = await Promise.all([startApi(backend), startApi(backend)])
    const lone = await startWorker(backend)
    const soloStart = Date.now()
    const soloId = await startCrawl(first!.url, alone.url, { limit: PAGES + 1 })
    await until(
      () => status(first!.url, soloId),
      (s) => s.status === "completed",
      120_000,
    )
    const soloMs = Date.now() - soloStart
    expectEveryPageOnce(await allPages(first!.url, soloId), alone.url)
    await stopEntry(lone)
    await alone.close()

    const site = await startCrawlSite({ pages: chainPages(PAGES, { delayMs: PAGE_DELAY_MS }) })
    const receiver = await startReceiver()
    const workers = await Promise.all([startWorker(backend), startWorker(backend), startWorker(backend)])
    const sharedStart = Date.now()
    const id = await startCrawl(first!.url, site.url, { limit: PAGES + 1, webhook: `${receiver.url}/hook` })
    // Watched on the API process that did not take the request: every page comes from workers elsewhere.
    const watcher = watch(second!.url, id)
    await until(
      () => status(second!.url, id),
      (s) => s.completed >= PAGES * 0.3,
      120_000,
    )
    workers[0]!.process.kill("SIGKILL")
    await workers[0]!.exited
    const [end] = await Promise.all([
      until(
        () => status(second!.url, id),
        (s) => s.status === "completed",
        120_000,
      ),
      watcher.closed,
    ])
    const sharedMs = Date.now() - sharedStart
    console.info(
      `${backend.name}: ${PAGES + 1} pages, one worker ${soloMs} ms; three workers (one killed at 30 %) ${sharedMs} ms`,
    )

    expect(end).toMatchObject({ status: "completed", completed: PAGES + 1, total: PAGES + 1 })
    expectEveryPageOnce(await allPages(first!.url, id), site.url)
    // Both API processes read the same state.
    const fields = ({ status, total, completed, creditsUsed, expiresAt }: Status) => ({
      status,
      total,
      completed,
      creditsUsed,
      expiresAt,
    })
    expect(fields(await status(first!.url, id))).toEqual(fields(await status(second!.url, id)))
    // The watcher saw every page and the end.
    expect(await watcher.closed).toEqual({ code: 1000, reason: JSON.stringify({ type: "done" }) })
    expectEveryPageOnce(watcher.urls, site.url)
    expect(sharedMs).toBeLessThan(soloMs)
    // The killed worker had pages in flight: fetched again by the others once its leases ran out.
    const fetches = new Map<string, number>()
    for (const { path } of site.requests) fetches.set(path, (fetches.get(path) ?? 0) + 1)
    expect([...fetches.values()].filter((count) => count > 1).length).toBeGreaterThan(0)
    await site.close()

    // The webhook: `started` from the API process, every page and `completed` from the workers. A delivery the
    // killed worker was sending waits for its lease (15 s) and may come twice, with the same webhookId.
    await until(
      async () => receiver.events.filter((event) => event.type === "crawl.completed").length,
      (count) => count > 0,
      60_000,
    )
    const byType = (type: string) =>
      new Set(receiver.events.filter((event) => event.type === type).map((event) => event.webhookId)).size
    expect(byType("crawl.started")).toBe(1)
    expect(byType("crawl.completed")).toBe(1)
    const pageUrls = (events: ReadonlyArray<Hook>) =>
      new Set(events.filter((event) => event.type === "crawl.page").map((event) => event.data[0]?.metadata?.sourceURL))
    expect(pageUrls(receiver.events).size).toBe(PAGES + 1)
    // In order: every page before `completed`.
    const completedAt = receiver.events.findIndex((event) => event.type === "crawl.completed")
    expect(pageUrls(receiver.events.slice(0, completedAt)).size).toBe(PAGES + 1)
    await receiver.close()

    // A crawl's delay is one pace for all the workers left, not one each.
    // The home page links every other: five tasks wait at once, for two workers.
    const polite = await startCrawlSite({
      pages: Object.fromEntries([
        ["/", { links: ["/p/0", "/p/1", "/p/2", "/p/3", "/p/4"] }],
        ...[0, 1, 2, 3, 4].map((i) => [`/p/${i}`, {}]),
      ]),
    })
    const delayed = await startCrawl(first!.url, polite.url, { delay: 0.5, limit: 6 })
    await until(
      () => status(second!.url, delayed),
      (s) => s.status === "completed",
      60_000,
    )
    // The pages, not robots.txt and the sitemaps the seed looks for.
    const times = polite.requests
      .filter((request) => request.path === "/" || request.path.startsWith("/p/"))
      .map((request) => request.at)
    expect(times).toHaveLength(6)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(450)
    await polite.close()

    await Promise.all([...workers.slice(1), first!.entry, second!.entry].map(stopEntry))
  }, 300_000)
})
