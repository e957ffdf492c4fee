/**
 * OpenTelemetry as deployed: `serve()` with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a local OTLP/HTTP receiver
 * (JSON), a scrape and a small crawl, then the spans the receiver got, their names and parent links.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../core/test/support/fixtureSite.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { serve } from "../src/index.js"

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string } }>
}

interface TracesPayload {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: OtlpSpan["attributes"] }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

/** An OTLP/HTTP receiver: keeps every JSON body posted, by path. */
const startReceiver = async () => {
  const received: Array<{ path: string; contentType: string; body: unknown }> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      received.push({
        path: request.url ?? "",
        contentType: request.headers["content-type"] ?? "",
        body: JSON.parse(text) as unknown,
      })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const listening: Listening = await listenOnLoopback(server)
  return { ...listening, received }
}

const KEY = "otel-test-key"
let site: FixtureSite
let receiver: Awaited<ReturnType<typeof startReceiver>>
const saved = { ...process.env }

beforeAll(async () => {
  site = await startFixtureSite()
  receiver = await startReceiver()
  Object.assign(process.env, {
    WEBDATA_STORE: "memory:",
    WEBDATA_API_KEYS: KEY,
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
    OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
  })
})
afterAll(async () => {
  process.env = saved
  await Promise.all([site.close(), receiver.close()])
})

const call = async (url: string, method: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, unknown>
}

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER_SPAN = "00f067aa0ba902b7"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("OpenTelemetry export", () => {
  it("sends request → job → task → fetch → content spans of a crawl, and the metrics, to the OTLP endpoint", async () => {
    const server = await serve({ port: 0 })
    let crawlId = ""
    try {
      // The caller's trace continues in the server's (W3C trace context).
      await call(
        `${server.url}/v2/scrape`,
        "POST",
        { url: `${site.url}/article`, formats: ["markdown"], storeInCache: false },
        { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      )
      crawlId = (await call(`${server.url}/v2/crawl`, "POST", { url: site.url, limit: 2 })).id as string
      for (let waited = 0; ; waited += 100) {
        const status = await call(`${server.url}/v2/crawl/${crawlId}`, "GET")
        if (status.status === "completed") break
        if (waited > 20_000) throw new Error(`the crawl did not complete: ${JSON.stringify(status)}`)
        await sleep(100)
      }
    } finally {
      // Stopping flushes the batched spans and the last metrics.
      await server.close()
    }

    const traces = receiver.received.filter((each) => each.path === "/v1/traces")
    expect(traces.length).toBeGreaterThan(0)
    expect(traces[0]?.contentType).toMatch(/application\/json/)
    const payloads = traces.map((each) => each.body as TracesPayload)
    const serviceNames = payloads.flatMap((payload) =>
      payload.resourceSpans.flatMap((resource) =>
        resource.resource.attributes
          .filter((each) => each.key === "service.name")
          .map((each) => each.value.stringValue),
      ),
    )
    expect(new Set(serviceNames)).toEqual(new Set(["webdata"]))
    const spans = payloads.flatMap((payload) =>
      payload.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    )
    const byId = new Map(spans.map((span) => [span.spanId, span]))
    /** The names from the span up to its root. */
    const ancestry = (span: OtlpSpan): Array<string> => {
      const names = [span.name]
      for (
        let parent = byId.get(span.parentSpanId ?? "");
        parent !== undefined;
        parent = byId.get(parent.parentSpanId ?? "")
      )
        names.push(parent.name)
      return names
    }

    // The scrape: one trace from the request to the fetch and the content.
    const scrapeRoot = spans.find((span) => span.name === "POST /v2/scrape")
    expect([scrapeRoot?.traceId, scrapeRoot?.parentSpanId]).toEqual([CALLER_TRACE, CALLER_SPAN])
    const scrapeSpans = spans.filter((span) => span.traceId === scrapeRoot?.traceId)
    const scrapeFetch = scrapeSpans.find((span) => span.name === "Fetcher.fetch")
    expect(scrapeFetch && ancestry(scrapeFetch)).toEqual([
      "Fetcher.fetch",
      "Scrape.fetch",
      "Scrape.scrape",
      "POST /v2/scrape",
    ])
    const scrapeContent = scrapeSpans.find((span) => span.name === "Scrape.buildDocument")
    expect(scrapeContent && ancestry(scrapeContent)).toEqual([
      "Scrape.buildDocument",
      "Scrape.scrape",
      "POST /v2/scrape",
    ])

    // The crawl: its tasks ran in the worker's fibers, yet they are in the trace of the request that started the job.
    const crawlRoot = spans.find((span) => span.name === "POST /v2/crawl")
    expect(crawlRoot).toBeDefined()
    const crawlSpans = spans.filter((span) => span.traceId === crawlRoot?.traceId)
    const tasks = crawlSpans.filter((span) => span.name === "TaskRunner.run")
    expect(tasks.length).toBe(2)
    for (const task of tasks) expect(ancestry(task)).toEqual(["TaskRunner.run", "Crawl.start", "POST /v2/crawl"])
    const crawlFetches = crawlSpans.filter((span) => span.name === "Fetcher.fetch")
    expect(crawlFetches.length).toBeGreaterThanOrEqual(2)
    const pageFetches = crawlFetches.filter((span) => ancestry(span).includes("Scrape.scrape"))
    expect(pageFetches.length).toBe(2)
    expect(ancestry(pageFetches[0] as OtlpSpan)).toEqual([
      "Fetcher.fetch",
      "Scrape.fetch",
      "Scrape.scrape",
      "TaskRunner.run",
      "Crawl.start",
      "POST /v2/crawl",
    ])
    const crawlContent = crawlSpans.filter((span) => span.name === "Scrape.buildDocument")
    expect(crawlContent.length).toBe(2)
    for (const content of crawlContent)
      expect(ancestry(content).slice(0, 3)).toEqual(["Scrape.buildDocument", "Scrape.scrape", "TaskRunner.run"])
    // Ids of jobs never name a span (bounded names).
    expect(spans.some((span) => span.name.includes(crawlId))).toBe(false)

    // The same registry as /metrics, pushed as OTLP metrics.
    const metrics = receiver.received.filter((each) => each.path === "/v1/metrics")
    expect(metrics.length).toBeGreaterThan(0)
    const names = JSON.stringify(metrics.map((each) => each.body))
    for (const name of [
      "webdata_http_requests_total",
      "webdata_http_request_duration_seconds",
      "webdata_pages_scraped_total",
    ])
      expect(names).toContain(`"${name}"`)
  })

  it("sends nothing when the endpoint is unset", async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    const before = receiver.received.length
    const server = await serve({ port: 0 })
    try {
      await call(`${server.url}/v2/scrape`, "POST", { url: `${site.url}/article` })
    } finally {
      await server.close()
    }
    expect(receiver.received.length).toBe(before)
  })
})
