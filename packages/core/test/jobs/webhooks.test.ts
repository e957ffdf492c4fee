import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { ConfigProvider, Effect, Layer, Logger, ManagedRuntime, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Webhook, type WebhookEvent } from "../../src/Domain/Webhook.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import * as Webhooks from "../../src/Jobs/Webhooks.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"
import { listenOnLoopback } from "../support/loopback.js"

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly raw: Buffer
  readonly json: Record<string, unknown>
  readonly at: number
}

/** What the receiver does with the n-th request (0-based): answer a status, possibly later, or never. */
type Behaviour = (index: number, received: Received) => number | Promise<number>

interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  readonly waitFor: (count: number) => Promise<void>
  readonly close: () => Promise<void>
}

const hang = () => new Promise<number>(() => {})
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const until = async (check: () => boolean, what: string, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

const receivers: Array<Receiver> = []

const startReceiver = async (behaviour: Behaviour = () => 200): Promise<Receiver> => {
  const received: Array<Received> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const raw = Buffer.concat(chunks)
      const entry: Received = {
        path: request.url ?? "",
        headers: request.headers,
        raw,
        json: JSON.parse(raw.toString("utf8")),
        at: performance.now(),
      }
      received.push(entry)
      void Promise.resolve(behaviour(received.length - 1, entry)).then((status) => {
        if (status >= 300 && status < 400) response.setHeader("location", "/elsewhere")
        response.writeHead(status).end("ok")
      })
    })
  })
  const { url, close } = await listenOnLoopback(server)
  const receiver: Receiver = {
    url: `${url}/hook?x=1`,
    received,
    waitFor: (count) => until(() => received.length >= count, `${count} request(s), got ${received.length}`),
    close,
  }
  receivers.push(receiver)
  return receiver
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()))
})

const openGuard = UrlGuard.layer({ allowPrivateAddresses: true, allow: [] })

interface Harness {
  readonly send: (delivery: Webhooks.WebhookDelivery) => Promise<void>
  /** Builds the service (a runtime builds it at its first use otherwise). */
  readonly start: () => Promise<void>
  readonly logs: Array<string>
  readonly dispose: () => Promise<void>
}

const harness = (
  layer: Layer.Layer<Webhooks.Webhooks, unknown, UrlGuard.UrlGuard | JobStore>,
  guard = openGuard,
  store: Layer.Layer<JobStore> = MemoryJobStore.layer(),
): Harness => {
  const logs: Array<string> = []
  const capture = Logger.make(({ message }) => {
    logs.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  const runtime = ManagedRuntime.make(
    layer.pipe(Layer.provide(Layer.merge(guard, store)), Layer.provide(Logger.replace(Logger.defaultLogger, capture))),
  )
  return {
    send: (delivery) => runtime.runPromise(Effect.flatMap(Webhooks.Webhooks, (service) => service.send(delivery))),
    start: () => runtime.runPromise(Effect.asVoid(Webhooks.Webhooks)),
    logs,
    dispose: () => runtime.dispose(),
  }
}

const fast = { backoffMs: 10, timeoutMs: 2000 }

const spec = (url: string, extra: Record<string, unknown> = {}) => Schema.decodeUnknownSync(Webhook)({ url, ...extra })

const delivery = (
  url: string,
  event: WebhookEvent,
  overrides: Partial<Webhooks.WebhookDelivery> = {},
): Webhooks.WebhookDelivery => ({
  spec: spec(url),
  jobKind: "crawl",
  jobId: "0198a1b2-0000-7000-8000-000000000001",
  event,
  success: true,
  data: [],
  ...overrides,
})

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("Webhooks: payload and headers", () => {
  it("posts a crawl page in Firecrawl's shape with metadata, custom headers and no signature without a secret", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast))
    const document = { markdown: "# Hi", metadata: { sourceURL: "https://example.com/", statusCode: 200 } }
    await hooks.send(
      delivery(receiver.url, "page", {
        spec: spec(receiver.url, { headers: { Authorization: "Bearer abc", "X-Custom": "1" }, metadata: { run: 7 } }),
        data: [document],
      }),
    )
    await receiver.waitFor(1)
    await hooks.dispose()
    const [first] = receiver.received
    expect(first?.path).toBe("/hook?x=1")
    expect(first?.headers["content-type"]).toBe("application/json")
    expect(first?.headers.authorization).toBe("Bearer abc")
    expect(first?.headers["x-custom"]).toBe("1")
    expect(first?.headers["x-firecrawl-signature"]).toBeUndefined()
    expect(Object.keys(first?.json ?? {})).toEqual(["success", "type", "id", "webhookId", "data", "metadata"])
    expect(first?.json).toMatchObject({
      success: true,
      type: "crawl.page",
      id: "0198a1b2-0000-7000-8000-000000000001",
      data: [document],
      metadata: { run: 7 },
    })
    expect(first?.json.webhookId).toMatch(UUID_V7)
  })

  it("names batch events batch_scrape.* and carries the error of a failed page", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast))
    await hooks.send(delivery(receiver.url, "started", { jobKind: "batch", jobId: "b1" }))
    await hooks.send(
      delivery(receiver.url, "page", {
        jobKind: "batch",
        jobId: "b1",
        success: false,
        data: [{ metadata: { sourceURL: "https://example.com/x" } }],
        error: "Could not fetch",
      }),
    )
    await receiver.waitFor(2)
    await hooks.dispose()
    expect(receiver.received.map((entry) => entry.json.type)).toEqual(["batch_scrape.started", "batch_scrape.page"])
    expect(receiver.received[1]?.json).toMatchObject({ success: false, id: "b1", error: "Could not fetch" })
    expect(receiver.received[0]?.json.webhookId).not.toBe(receiver.received[1]?.json.webhookId)
  })

  it("signs the exact raw body with HMAC-SHA256 of the secret", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer({ ...fast, secret: "s3cret" }))
    await hooks.send(delivery(receiver.url, "completed", { data: [{ text: "é ü 😀" }] }))
    await receiver.waitFor(1)
    await hooks.dispose()
    const [first] = receiver.received
    const expected = `sha256=${createHmac("sha256", "s3cret")
      .update(first?.raw ?? Buffer.alloc(0))
      .digest("hex")}`
    expect(first?.headers["x-firecrawl-signature"]).toBe(expected)
    expect(
      createHmac("sha256", "other")
        .update(first?.raw ?? "")
        .digest("hex"),
    ).not.toBe(expected.slice(7))
  })

  it("layerConfig reads WEBDATA_WEBHOOK_SECRET; an empty value means no signature", async () => {
    const receiver = await startReceiver()
    const withSecret = (value: string) =>
      Webhooks.layerConfig().pipe(
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["WEBDATA_WEBHOOK_SECRET", value]])))),
      )
    const signed = harness(withSecret("from-env"))
    await signed.send(delivery(receiver.url, "started"))
    await receiver.waitFor(1)
    await signed.dispose()
    const unsigned = harness(withSecret(""))
    await unsigned.send(delivery(receiver.url, "started"))
    await receiver.waitFor(2)
    await unsigned.dispose()
    const [first, second] = receiver.received
    expect(first?.headers["x-firecrawl-signature"]).toBe(
      `sha256=${createHmac("sha256", "from-env")
        .update(first?.raw ?? "")
        .digest("hex")}`,
    )
    expect(second?.headers["x-firecrawl-signature"]).toBeUndefined()
  })

  it("never lets a custom header forge the signature or break the connection", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer({ ...fast, secret: "k" }))
    // Built by hand: the schema already refuses the signature header, but the service must not trust its callers.
    const forged = { ...spec(receiver.url), headers: { "X-Firecrawl-Signature": "sha256=forged", Connection: "close" } }
    await hooks.send(delivery(receiver.url, "started", { spec: forged }))
    await receiver.waitFor(1)
    await hooks.dispose()
    const [first] = receiver.received
    expect(first?.headers["x-firecrawl-signature"]).toBe(
      `sha256=${createHmac("sha256", "k")
        .update(first?.raw ?? "")
        .digest("hex")}`,
    )
  })

  it("drops events the webhook did not subscribe to", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast))
    const onlyCompleted = spec(receiver.url, { events: ["completed"] })
    for (const event of ["started", "page", "failed", "completed"] as const)
      await hooks.send(delivery(receiver.url, event, { spec: onlyCompleted }))
    // One job's deliveries keep their order, so an unfiltered earlier event would have arrived before this one.
    await receiver.waitFor(1)
    await hooks.dispose()
    expect(receiver.received.map((entry) => entry.json.type)).toEqual(["crawl.completed"])
  })
})

describe("Webhooks: retries", () => {
  it("retries after 500s with the same webhookId and body, then stops at the first 2xx", async () => {
    const receiver = await startReceiver((index) => (index < 2 ? 500 : 204))
    const hooks = harness(Webhooks.layer({ ...fast, backoffMs: 30 }))
    await hooks.send(delivery(receiver.url, "page"))
    await receiver.waitFor(3)
    await sleep(150)
    await hooks.dispose()
    expect(receiver.received).toHaveLength(3)
    const [first, second, third] = receiver.received
    expect(new Set(receiver.received.map((entry) => entry.json.webhookId)).size).toBe(1)
    expect(third?.raw.equals(first?.raw ?? Buffer.alloc(0))).toBe(true)
    // Exponential backoff: about 30 ms, then about 60 ms (±20 % jitter).
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(20)
    expect((third?.at ?? 0) - (second?.at ?? 0)).toBeGreaterThanOrEqual(45)
    expect(hooks.logs.filter((line) => line.includes("not delivered"))).toEqual([])
  })

  it("gives up after maxAttempts with a warning", async () => {
    const receiver = await startReceiver(() => 503)
    const hooks = harness(Webhooks.layer({ ...fast, maxAttempts: 3 }))
    await hooks.send(delivery(receiver.url, "completed"))
    await until(() => hooks.logs.some((line) => line.includes("not delivered")), "the warning")
    await sleep(100)
    await hooks.dispose()
    expect(receiver.received).toHaveLength(3)
    expect(hooks.logs).toContainEqual("Webhook not delivered: the receiver answered 503 (gave up after 3 attempt(s))")
  })

  it("does not follow redirects", async () => {
    const receiver = await startReceiver(() => 302)
    const hooks = harness(Webhooks.layer({ ...fast, maxAttempts: 1 }))
    await hooks.send(delivery(receiver.url, "started"))
    await until(() => hooks.logs.some((line) => line.includes("not delivered")), "the warning")
    await hooks.dispose()
    expect(receiver.received.map((entry) => entry.path)).toEqual(["/hook?x=1"])
    expect(hooks.logs).toContainEqual("Webhook not delivered: the receiver answered 302 (gave up after 1 attempt(s))")
  })

  it("bounds each attempt by timeoutMs", async () => {
    const receiver = await startReceiver(hang)
    const hooks = harness(Webhooks.layer({ backoffMs: 10, timeoutMs: 150, maxAttempts: 2 }))
    await hooks.send(delivery(receiver.url, "started"))
    await until(() => hooks.logs.some((line) => line.includes("not delivered")), "the warning")
    await hooks.dispose()
    expect(receiver.received).toHaveLength(2)
    expect(hooks.logs).toContainEqual("Webhook not delivered: no answer within 150 ms (gave up after 2 attempt(s))")
  })
})

describe("Webhooks: queueing", () => {
  it("an API process only queues; the worker processes sharing its store send each delivery once, in order", async () => {
    const receiver = await startReceiver()
    // One store shared by three "processes": the API (deliver: false) and two workers.
    const shared = Layer.succeed(JobStore, MemoryJobStore.make())
    const api = harness(Webhooks.layer({ ...fast, deliver: false }), openGuard, shared)
    for (let page = 0; page < 20; page++)
      await api.send(delivery(receiver.url, "page", { jobId: `job-${page % 4}`, data: [{ page }] }))
    await sleep(400)
    expect(receiver.received).toHaveLength(0)
    const workers = [1, 2].map(() => harness(Webhooks.layer(fast), openGuard, shared))
    await Promise.all(workers.map((worker) => worker.start()))
    await receiver.waitFor(20)
    await sleep(300)
    await Promise.all([api, ...workers].map((hooks) => hooks.dispose()))
    expect(receiver.received).toHaveLength(20)
    expect(new Set(receiver.received.map((entry) => entry.json.webhookId)).size).toBe(20)
    for (let job = 0; job < 4; job++) {
      const pages = receiver.received
        .filter((entry) => entry.json.id === `job-${job}`)
        .map((entry) => (entry.json.data as Array<{ page: number }>)[0]!.page)
      expect(pages).toEqual([0, 1, 2, 3, 4].map((n) => n * 4 + job))
    }
  })

  it("keeps one job's order when the receiver is slow for the first, and delivers other jobs meanwhile", async () => {
    const receiver = await startReceiver((index) => (index === 0 ? sleep(300).then(() => 200) : 200))
    const hooks = harness(Webhooks.layer(fast))
    const jobA = (event: WebhookEvent, page?: number) =>
      delivery(receiver.url, event, { jobId: "A", data: page === undefined ? [] : [{ page }] })
    await hooks.send(jobA("started"))
    await receiver.waitFor(1)
    await hooks.send(jobA("page", 1))
    await hooks.send(jobA("page", 2))
    await hooks.send(jobA("completed"))
    await hooks.send(delivery(receiver.url, "started", { jobId: "B" }))
    await receiver.waitFor(5)
    await hooks.dispose()
    const order = receiver.received.map(
      (entry) => `${entry.json.id}:${entry.json.type}:${JSON.stringify(entry.json.data)}`,
    )
    expect(order).toEqual([
      "A:crawl.started:[]",
      "B:crawl.started:[]",
      'A:crawl.page:[{"page":1}]',
      'A:crawl.page:[{"page":2}]',
      "A:crawl.completed:[]",
    ])
  })

  it("send returns at once while the receiver hangs", async () => {
    const receiver = await startReceiver(hang)
    const hooks = harness(Webhooks.layer({ ...fast, shutdownTimeoutMs: 100 }))
    await hooks.send(delivery(receiver.url, "started"))
    await receiver.waitFor(1)
    const started = performance.now()
    for (let page = 0; page < 50; page++) await hooks.send(delivery(receiver.url, "page", { data: [{ page }] }))
    const elapsed = performance.now() - started
    await hooks.dispose()
    expect(elapsed).toBeLessThan(250)
    expect(receiver.received).toHaveLength(1)
  })

  it("drops deliveries with a warning when the memory store's outbox is full", async () => {
    const receiver = await startReceiver(hang)
    const hooks = harness(
      Webhooks.layer({ ...fast, timeoutMs: 5000, shutdownTimeoutMs: 50 }),
      openGuard,
      MemoryJobStore.layer({ outboxCapacity: 2 }),
    )
    await hooks.send(delivery(receiver.url, "started", { jobId: "1" }))
    await hooks.send(delivery(receiver.url, "started", { jobId: "2" }))
    await hooks.send(delivery(receiver.url, "started", { jobId: "3" }))
    await receiver.waitFor(2)
    await hooks.dispose()
    expect(receiver.received.map((entry) => entry.json.id).sort()).toEqual(["1", "2"])
    expect(hooks.logs).toContainEqual("Webhook crawl.started for job 3 dropped: the outbox is full")
  })

  it("shuts down within its grace period while the receiver hangs, and finishes what it can before", async () => {
    const receiver = await startReceiver((index) => (index === 0 ? sleep(100).then(() => 200) : hang()))
    const hooks = harness(Webhooks.layer({ ...fast, shutdownTimeoutMs: 400 }))
    await hooks.send(delivery(receiver.url, "started", { jobId: "quick" }))
    await receiver.waitFor(1)
    await hooks.send(delivery(receiver.url, "started", { jobId: "stuck" }))
    await receiver.waitFor(2)
    const started = performance.now()
    await hooks.dispose()
    const elapsed = performance.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(350)
    expect(elapsed).toBeLessThan(1500)
    expect(hooks.logs).toContainEqual(
      "Shutting down: 1 webhook delivery(ies) unfinished; a durable store sends them once their lease runs out",
    )
    expect(hooks.logs.filter((line) => line.includes("quick"))).toEqual([])
  })

  it("waits no longer than needed on shutdown when the queue is empty", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast))
    await hooks.send(delivery(receiver.url, "started"))
    await receiver.waitFor(1)
    const started = performance.now()
    await hooks.dispose()
    expect(performance.now() - started).toBeLessThan(200)
  })
})

describe("Webhooks: URL guard", () => {
  // Host names resolve through a fake resolver to loopback only, so nothing can leave the machine.
  const resolver: UrlGuard.Resolver = async () => [{ address: "127.0.0.1", family: 4 }]
  const strictGuard = UrlGuard.layer({ allowPrivateAddresses: false, allow: [], resolver })

  it("refuses a loopback IP literal without retrying", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast), strictGuard)
    await hooks.send(delivery(receiver.url, "started"))
    await until(() => hooks.logs.some((line) => line.includes("not delivered")), "the warning")
    await hooks.dispose()
    expect(receiver.received).toHaveLength(0)
    expect(hooks.logs.find((line) => line.includes("not delivered"))).toMatch(/Refusing to connect to 127\.0\.0\.1/)
  })

  it("refuses a host name that resolves to loopback, checked at connect time, without retrying", async () => {
    const receiver = await startReceiver()
    const hooks = harness(Webhooks.layer(fast), strictGuard)
    const target = receiver.url.replace("127.0.0.1", "hooks.test")
    await hooks.send(delivery(target, "started"))
    await until(() => hooks.logs.some((line) => line.includes("not delivered")), "the warning")
    await hooks.dispose()
    expect(receiver.received).toHaveLength(0)
    const warning = hooks.logs.find((line) => line.includes("not delivered"))
    expect(warning).toMatch(/Refusing to connect to 127\.0\.0\.1 .* for host "hooks\.test"/)
    expect(warning).toContain("gave up after 1 attempt(s)")
  })
})
