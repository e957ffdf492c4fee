/** Liveness, readiness and the Prometheus metrics through the web handler, over the real engine (memory store). */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { JobStore, StoreError } from "../../src/Jobs/JobStore.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"

const KEY = "fc-observability-key-1"

let site: FixtureSite
beforeAll(async () => {
  site = await startFixtureSite()
})

const engine = Engine.layer({ worker: false, allowPrivateAddresses: true })
const keyed = makeWebHandler(Layer.merge(engine, ServerConfig.layer({ apiKeys: [KEY] })))
const open = makeWebHandler(Layer.merge(engine, ServerConfig.layer()))

/** The memory store whose every read fails: the store a readiness check must report. */
const brokenStore = Layer.effect(
  JobStore,
  Effect.map(JobStore, (store) => ({
    ...store,
    getJob: () => Effect.fail(new StoreError({ reason: "Unavailable", message: "connection refused" })),
  })),
).pipe(Layer.provide(engine))
const broken = makeWebHandler(Layer.mergeAll(engine, brokenStore, ServerConfig.layer()))

afterAll(async () => {
  await Promise.all([keyed.dispose(), open.dispose(), broken.dispose()])
  await site.close()
})

const call = (
  web: typeof keyed,
  method: string,
  path: string,
  init: { body?: object; headers?: Record<string, string> } = {},
) =>
  web.handler(
    new Request(`http://api.test${path}`, {
      method,
      headers: { "content-type": "application/json", ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    }),
  )

const bearer = { authorization: `Bearer ${KEY}` }

/** The value of the sample `name{labels}` in an exposition, or undefined. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null || match[1] !== name) continue
    const present = match[2]?.split(",") ?? []
    if (wanted.every((label) => present.includes(label))) return Number(match[3])
  }
  return undefined
}

const metrics = async (web = keyed) => {
  const response = await call(web, "GET", "/metrics", { headers: bearer })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  return response.text()
}

describe("liveness", () => {
  it("answers without a key and echoes or makes a request id", async () => {
    const response = await call(keyed, "GET", "/v2/health", { headers: { "x-request-id": "probe-1" } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true, status: "ok" })
    expect(response.headers.get("x-request-id")).toBe("probe-1")
    // An id that could break a log line is replaced by a fresh one.
    const forged = await call(keyed, "GET", "/v2/health", { headers: { "x-request-id": "a b\tc" } })
    expect(forged.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/)
  })

  it("answers even when the store is down (it touches nothing)", async () => {
    expect((await call(broken, "GET", "/v2/health")).status).toBe(200)
  })
})

describe("readiness", () => {
  it("is ready when the store answers, without a key", async () => {
    const response = await call(keyed, "GET", "/v2/ready")
    expect(response.status).toBe(200)
    const body = (await response.json()) as { success: boolean; checks: Record<string, { status: string }> }
    expect(body).toMatchObject({ success: true, checks: { store: { status: "ok" } } })
    // No browser engine in this engine: nothing to check for it.
    expect(Object.keys(body.checks)).toEqual(["store"])
  })

  it("answers 503 NOT_READY naming the store when it fails, without its error's details", async () => {
    const response = await call(broken, "GET", "/v2/ready")
    expect(response.status).toBe(503)
    const body = await response.json()
    expect(body).toMatchObject({
      success: false,
      code: "NOT_READY",
      error: "Not ready: store",
      details: { checks: { store: { status: "failed", error: "did not answer (see the server's log)" } } },
    })
    expect(JSON.stringify(body)).not.toContain("connection refused")
  })
})

describe("metrics", () => {
  it("are protected like the API, and open when the server is", async () => {
    const refused = await call(keyed, "GET", "/metrics")
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ success: false, code: "UNAUTHORIZED" })
    expect((await call(keyed, "GET", "/metrics", { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
    expect((await call(open, "GET", "/metrics")).status).toBe(200)
  })

  it("count requests by route template and status class, with latency histograms", async () => {
    const labels = { route: "/v2/crawl/:id", method: "GET", status_class: "4xx" }
    const before = sample(await metrics(), "webdata_http_requests_total", labels) ?? 0
    const unknownJob = "0190f3a0-0000-7000-8000-000000000000"
    expect((await call(keyed, "GET", `/v2/crawl/${unknownJob}`, { headers: bearer })).status).toBe(404)
    expect((await call(keyed, "GET", "/v2/crawl/not-a-uuid", { headers: bearer })).status).toBe(400)
    const text = await metrics()
    expect(sample(text, "webdata_http_requests_total", labels)).toBe(before + 2)
    // The path's ids never become label values.
    expect(text).not.toContain(unknownJob)
    expect(sample(text, "webdata_http_request_duration_seconds_count", labels)).toBe(before + 2)
    expect(sample(text, "webdata_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(before + 2)
    expect(text).toContain("# TYPE webdata_http_request_duration_seconds histogram")
    expect(text.match(/^# TYPE webdata_http_requests_total counter$/gm)).toHaveLength(1)
    // Unknown paths share one label value.
    await call(keyed, "GET", "/v2/nothing/here/42", { headers: bearer })
    expect(sample(await metrics(), "webdata_http_requests_total", { route: "unmatched", status_class: "4xx" })).toBe(1)
  })

  it("count pages and cache reads, and sample running jobs and the queue from the store", async () => {
    const url = `${site.url}/article`
    const text0 = await metrics()
    const pages0 = sample(text0, "webdata_pages_scraped_total", { source: "fetch" }) ?? 0
    const hits0 = sample(text0, "webdata_scrape_cache_reads_total", { result: "hit" }) ?? 0
    const misses0 = sample(text0, "webdata_scrape_cache_reads_total", { result: "miss" }) ?? 0
    for (let round = 0; round < 2; round++) {
      const response = await call(keyed, "POST", "/v2/scrape", { headers: bearer, body: { url, maxAge: 60_000 } })
      expect(response.status).toBe(200)
    }
    const started = await call(keyed, "POST", "/v2/crawl", { headers: bearer, body: { url: site.url, limit: 3 } })
    expect(started.status).toBe(200)
    const text = await metrics()
    expect(sample(text, "webdata_pages_scraped_total", { source: "fetch" })).toBe(pages0 + 1)
    expect(sample(text, "webdata_scrape_cache_reads_total", { result: "miss" })).toBe(misses0 + 1)
    expect(sample(text, "webdata_scrape_cache_reads_total", { result: "hit" })).toBe(hits0 + 1)
    // No worker runs here: the crawl stays running with its seed due.
    expect(sample(text, "webdata_jobs_running", { kind: "crawl" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "webdata_jobs_running", { kind: "agent" })).toBe(0)
    expect(sample(text, "webdata_queue_due_tasks")).toBeGreaterThanOrEqual(1)
  })
})
