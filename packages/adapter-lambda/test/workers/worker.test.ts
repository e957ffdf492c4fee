/**
 * The worker and schedule functions in process, as Lambda runs them: the API function's handler starts jobs, a fake
 * SQS queue on 127.0.0.1 carries the messages, the SQS-triggered handler runs the work on a real Postgres store, the
 * scheduled handler sweeps. Pages come from a real HTTP server on 127.0.0.1.
 */
import { readFileSync } from "node:fs"
import { type JobStore, JobStore as JobStoreTag } from "@webdata/core/jobs"
import { engineFromEnvironment } from "@webdata/server"
import { Effect, type Layer, ManagedRuntime } from "effect"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { type CrawlSite, chainPages, startCrawlSite } from "../../../core/test/support/crawlSite.js"
import { startWebhookReceiver } from "../../../core/test/support/webhookReceiver.js"
import { type Backend, freshPostgres } from "../../../server/test/support/backends.js"
import {
  type ApiGatewayV2Event,
  type ApiGatewayV2Result,
  apiEngine,
  type LambdaContext,
  SqsQueue,
  SqsWorkQueue,
  scheduleFromEnvironment,
  toLambdaHandler,
  toWorkerHandler,
  type WorkerHandlerOptions,
  WorkMessage,
  workerFromEnvironment,
} from "../../src/index.js"
import { fixture, withJson, withPath } from "../http/support.js"
import { FAKE_CREDENTIALS, type FakeSqs, startFakeSqs } from "./fakeSqs.js"

const sqsBatch = () =>
  JSON.parse(readFileSync(new URL("./fixtures/sqs-batch.json", import.meta.url), "utf8")) as {
    Records: Array<{ messageId: string; body: string }>
  }
const scheduledEvent = () =>
  JSON.parse(readFileSync(new URL("./fixtures/scheduled-event.json", import.meta.url), "utf8"))

/** A context with `ms` left, as Lambda's counts down. */
const contextWith = (ms: number): LambdaContext => {
  const end = Date.now() + ms
  return { getRemainingTimeInMillis: () => end - Date.now() }
}

let site: CrawlSite
let slow: CrawlSite
let sqs: FakeSqs
let backend: Backend
const saved = { ...process.env }
const disposers: Array<() => Promise<void>> = []

beforeAll(async () => {
  site = await startCrawlSite({ pages: chainPages(5) })
  slow = await startCrawlSite({ pages: chainPages(30, { delayMs: 600 }) })
})
afterAll(async () => {
  await Promise.all([site?.close(), slow?.close()])
})

beforeEach(async () => {
  sqs = await startFakeSqs()
  backend = freshPostgres()
  Object.assign(process.env, backend.env, {
    WEBDATA_WORK_QUEUE_URL: sqs.queueUrl,
    AWS_ACCESS_KEY_ID: FAKE_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_CREDENTIALS.secretAccessKey,
    AWS_REGION: "us-east-1",
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
  })
})
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
  process.env = { ...saved }
  await sqs.close()
  await backend.cleanUp()
})

const api = () => {
  const handler = toLambdaHandler(apiEngine())
  disposers.push(handler.dispose)
  return async (path: string, method = "GET", body?: unknown) => {
    const [route = path, query = ""] = path.split("?")
    const event = {
      ...withPath(fixture<ApiGatewayV2Event>("http-api-v2-default-stage"), route, method),
      rawQueryString: query,
    }
    const result = (await handler(body === undefined ? event : withJson(event, body))) as ApiGatewayV2Result
    return { status: result.statusCode, body: JSON.parse(result.body) }
  }
}

const worker = () => {
  const handler = workerFromEnvironment()
  disposers.push(handler.dispose)
  return handler
}

/** A worker over the environment's engine with the given settings, like `workHandler` but tunable. */
const tunedWorker = (options: Omit<WorkerHandlerOptions, "queue">) => {
  const queue = SqsQueue.fromEnvironment(sqs.queueUrl)
  const engine = engineFromEnvironment({
    defaultStore: "memory:",
    worker: false,
    deliverWebhooks: true,
    workQueue: SqsWorkQueue.layer(queue),
  })
  const handler = toWorkerHandler(engine, { queue, ...options })
  disposers.push(handler.dispose)
  return handler
}

/** Reads the store directly, as another process would. */
const store = () => {
  const runtime = ManagedRuntime.make(backend.layer() as Layer.Layer<JobStore>)
  disposers.push(() => runtime.dispose())
  return <A, E>(use: (store: JobStore["Type"]) => Effect.Effect<A, E>) =>
    runtime.runPromise(Effect.flatMap(JobStoreTag, use))
}

/** The JSON log lines written from now on (`WEBDATA_LOG_FORMAT=json`), read when called. */
const logLines = () => {
  const spy = vi.spyOn(console, "log")
  disposers.push(async () => spy.mockRestore())
  return () =>
    spy.mock.calls.flatMap(([line]) => {
      try {
        return [JSON.parse(String(line)) as Record<string, unknown>]
      } catch {
        return []
      }
    })
}

/** Why the messages from the `from`th on were sent. */
const reasons = (from = 0) => sqs.sent.slice(from).map((message) => WorkMessage.decode(message.body)?.reason)

describe("the worker function", () => {
  it("runs a crawl the API function started, and the API reads it back; the API's own invocation fetched nothing", async () => {
    const call = api()
    const started = await call("/v2/crawl", "POST", { url: site.url, sitemap: "skip" })
    expect(started.status).toBe(200)
    const id = started.body.id as string
    expect(site.hits("/")).toBe(0)
    expect(sqs.sent.map((message) => WorkMessage.decode(message.body))).toEqual([
      { webdata: "work", reason: "job", jobId: id },
    ])
    expect(sqs.unsigned()).toBe(0)

    process.env.WEBDATA_LOG_FORMAT = "json"
    const lines = logLines()
    const answer = await worker()(sqs.takeEvent(), contextWith(60_000))
    expect(answer).toEqual({ batchItemFailures: [] })
    expect(lines().filter((line) => String(line.message).startsWith("Worker run ended"))).toMatchObject([
      { message: "Worker run ended: no due work left", started: 6, released: 0, due: 0 },
    ])
    const status = await call(`/v2/crawl/${id}`)
    expect(status.body, JSON.stringify(status.body).slice(0, 400)).toMatchObject({
      status: "completed",
      completed: 6,
      total: 6,
    })
    expect(status.body.data).toHaveLength(6)
    // Nothing left: no message queues a next invocation.
    expect(sqs.sent).toHaveLength(1)
  })

  it("reports the one message of a batch that is not a work message, and runs the work of the others", async () => {
    const call = api()
    const { body } = await call("/v2/batch/scrape", "POST", { urls: [`${site.url}/p/0`, `${site.url}/p/1`] })
    const batch = sqsBatch()
    const answer = await worker()(batch, contextWith(60_000))
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: "2e1424d4-f796-459a-8184-9c92662be6da" }] })
    expect((await call(`/v2/batch/scrape/${body.id}`)).body).toMatchObject({ status: "completed", completed: 2 })
  })

  it("reports every message failed when the store cannot be reached, so that SQS delivers them again", async () => {
    process.env.WEBDATA_STORE = "postgres://postgres@127.0.0.1:1/test"
    const batch = sqsBatch()
    const answer = await worker()(batch, contextWith(30_000))
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      batch.Records.map((record) => record.messageId),
    )
  })

  it("out of time, gives back what it cannot finish and queues the next invocation; busy, wakes more workers", async () => {
    process.env.WEBDATA_WORKER_CONCURRENCY = "4"
    const call = api()
    const urls = Array.from({ length: 30 }, (_, i) => `${slow.url}/p/${i}`)
    const { body } = await call("/v2/batch/scrape", "POST", { urls })
    sqs.takeEvent()
    const begun = Date.now()
    process.env.WEBDATA_LOG_FORMAT = "json"
    const lines = logLines()
    // 2.2 s left, 1 s kept free: one round of four 600 ms pages, the second stopped.
    const answer = await tunedWorker({ marginMs: 1000 })(sqsBatch(), contextWith(2200))
    expect(Date.now() - begun).toBeLessThan(2200)
    expect(answer.batchItemFailures).toHaveLength(1)
    // The run's end is logged with its reason and counts.
    const ended = lines().filter((line) => line.message === "Worker run ended: time up")
    expect(ended).toHaveLength(1)
    expect(ended[0]).toMatchObject({ started: 4 })
    expect(ended[0]?.due).toBeGreaterThan(20)
    const job = await store()((s) => s.getJob(body.id))
    expect(job._tag === "Some" && job.value.status).toBe("scraping")
    const left = 30 - (job._tag === "Some" ? job.value.completed : 0)
    expect(left).toBeGreaterThan(20)
    // 26 due after the first four: 7 more runs of four (at most 10). At its end, as many as what is left needs, less the
    // seven messages already waiting.
    const wanted = Math.min(10, Math.ceil(left / 4))
    expect(reasons(1)).toEqual([...Array(7).fill("more"), ...Array(Math.max(0, wanted - 7)).fill("continue")])
    expect(sqs.sent.every((message) => message.delaySeconds === 0)).toBe(true)
    // The leases were given back: the next invocation takes them at once and ends the batch.
    await tunedWorker({ maxFanOut: 0 })(sqs.takeEvent(), contextWith(60_000))
    expect((await call(`/v2/batch/scrape/${body.id}`)).body).toMatchObject({ status: "completed", completed: 30 })
  })

  it("leaves work due later (a crawl's delay) to a delayed message rather than waiting for it", async () => {
    const call = api()
    const { body } = await call("/v2/crawl", "POST", { url: site.url, sitemap: "skip", delay: 4, limit: 2 })
    sqs.takeEvent()
    await tunedWorker({ waitMs: 100 })(sqsBatch(), contextWith(30_000))
    const next = sqs.takeEvent().Records.map((record) => WorkMessage.decode(record.body))
    expect(next).toEqual([{ webdata: "work", reason: "continue" }])
    const delay = sqs.sent.at(-1)?.delaySeconds ?? 0
    expect(delay).toBeGreaterThanOrEqual(3)
    expect(delay).toBeLessThanOrEqual(4)
    expect((await call(`/v2/crawl/${body.id}`)).body).toMatchObject({ status: "scraping", completed: 1 })
  })

  it("refuses to start without a shared store or a queue, in one line", async () => {
    process.env.WEBDATA_STORE = "memory:"
    await expect(worker()(sqsBatch(), contextWith(10_000))).rejects.toThrow(
      /The worker function needs the store the API function uses: WEBDATA_STORE=postgres:\/\/… or redis:\/\/… \(not memory:\)/,
    )
    process.env.WEBDATA_STORE = backend.env.WEBDATA_STORE
    delete process.env.WEBDATA_WORK_QUEUE_URL
    await expect(worker()(sqsBatch(), contextWith(10_000))).rejects.toThrow(/needs WEBDATA_WORK_QUEUE_URL/)
  })
})

describe("many short invocations, as Lambda runs them", () => {
  it("carry a crawl to its end, each page recorded once, with a bounded number of messages", async () => {
    const wide: Record<string, { links?: Array<string>; delayMs?: number }> = {
      "/": { links: Array.from({ length: 120 }, (_, i) => `/w/${i}`) },
    }
    for (let i = 0; i < 120; i++) wide[`/w/${i}`] = { delayMs: 50 }
    const wideSite = await startCrawlSite({ pages: wide })
    disposers.push(wideSite.close)
    process.env.WEBDATA_WORKER_CONCURRENCY = "4"
    const call = api()
    const { body } = await call("/v2/crawl", "POST", { url: wideSite.url, sitemap: "skip", limit: 500 })
    // Three containers, each invoked with 1.5 s to run: a crawl of 121 pages takes several invocations of each.
    const containers = Array.from({ length: 3 }, () => ({ handler: tunedWorker({ marginMs: 300 }), busy: false }))
    let invocations = 0
    let failures = 0
    const ends = Date.now() + 60_000
    let status = await call(`/v2/crawl/${body.id}`)
    while (status.body.status === "scraping" && Date.now() < ends) {
      for (const container of containers) {
        if (container.busy) continue
        const event = sqs.receive(10)
        if (event === undefined) break
        container.busy = true
        invocations++
        void container.handler(event, contextWith(1500)).then((answer) => {
          failures += answer.batchItemFailures.length
          container.busy = false
        })
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
      status = await call(`/v2/crawl/${body.id}`)
    }
    while (containers.some((container) => container.busy)) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(status.body).toMatchObject({ status: "completed", completed: 121, total: 121 })
    const pages: Array<string> = []
    for (let next: string | undefined = `/v2/crawl/${body.id}`; next !== undefined; ) {
      const page = await call(next)
      pages.push(...page.body.data.map((document: { metadata: { sourceURL: string } }) => document.metadata.sourceURL))
      next =
        page.body.next === undefined ? undefined : new URL(page.body.next).pathname + new URL(page.body.next).search
    }
    expect(new Set(pages).size).toBe(121)
    expect(pages).toHaveLength(121)
    expect(failures).toBe(0)
    expect(invocations).toBeGreaterThan(3)
    // Each invocation queues at most 10 successors and wakes at most 10 more: no storm.
    expect(sqs.sent.length).toBeLessThanOrEqual(1 + invocations * 20)
    expect(sqs.sent.length).toBeLessThan(200)
  }, 90_000)
})

describe("the API function", () => {
  it("on the memory store answers scrape and map but refuses jobs with JOBS_NOT_CONFIGURED", async () => {
    process.env.WEBDATA_STORE = "memory:"
    const call = api()
    const scraped = await call("/v2/scrape", "POST", { url: site.url, formats: ["markdown"] })
    expect(scraped.status).toBe(200)
    const refused = await call("/v2/crawl", "POST", { url: site.url })
    expect(refused).toMatchObject({ status: 400, body: { success: false, code: "JOBS_NOT_CONFIGURED" } })
    expect(refused.body.error).toMatch(/WEBDATA_STORE=postgres:\/\/… or redis:\/\//)
    expect(sqs.sent).toEqual([])
  })

  it("still starts the job when the queue cannot be reached: the schedule's sweep wakes a worker for it", async () => {
    sqs.failing = true
    const call = api()
    const started = await call("/v2/crawl", "POST", { url: site.url, sitemap: "skip", limit: 1 })
    expect(started.status).toBe(200)
    sqs.failing = false
    const swept = await scheduleFromEnvironment()(scheduledEvent(), contextWith(30_000))
    expect(swept).toEqual({ due: 1, woken: 1 })
    expect(reasons()).toEqual(["sweep"])
  })
})

describe("the schedule function", () => {
  it("wakes a worker for the task of an invocation that died and sends the webhooks the API function queued", async () => {
    const receiver = await startWebhookReceiver()
    disposers.push(receiver.close)
    const call = api()
    const { body } = await call("/v2/crawl", "POST", {
      url: site.url,
      sitemap: "skip",
      limit: 1,
      webhook: { url: receiver.url, events: ["started", "completed"] },
    })
    sqs.takeEvent()
    // An invocation took the task and was stopped: its lease runs out after 100 ms.
    const [held] = await store()((s) =>
      s.leaseTasks({ worker: "dead-invocation", now: Date.now(), leaseMs: 100, max: 1 }),
    )
    expect(held?.jobId).toBe(body.id)
    await new Promise((resolve) => setTimeout(resolve, 150))
    const sweep = scheduleFromEnvironment()
    disposers.push(sweep.dispose)
    expect(await sweep(scheduledEvent(), contextWith(30_000))).toEqual({ due: 1, woken: 1 })
    // The API function only queued the webhook; the sweep sent it.
    expect(receiver.events.map((event) => event.type)).toEqual(["crawl.started"])
    await worker()(sqs.takeEvent(), contextWith(30_000))
    expect(receiver.events.map((event) => event.type)).toEqual(["crawl.started", "crawl.completed"])
    expect(await sweep(scheduledEvent(), contextWith(30_000))).toEqual({ due: 0, woken: 0 })
  })
})
