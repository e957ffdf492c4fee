/**
 * The status polls answered from plain data (`HotRoutes.ts`) give what the API's generic path gives: the same status,
 * body and headers, for answers and refusals alike; any request they do not know is left to the API.
 */
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Crawl } from "../../src/Crawl.js"
import * as Engine from "../../src/Engine.js"
import * as HotRoutes from "../../src/Http/HotRoutes.js"
import { statusPoll } from "../../src/Http/HotRoutes.js"
import type { PlainResponse } from "../../src/Http/Plain.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler, type WebHandler } from "../../src/Http/WebHandler.js"
import type { JobControl } from "../../src/Jobs/JobControl.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { entryOf } from "../../src/Tenants/ApiKey.js"
import * as KeyRing from "../../src/Tenants/KeyRing.js"
import { parseLimits } from "../../src/Tenants/Limits.js"
import * as Quotas from "../../src/Tenants/Quotas.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { bothAnswers as answersOf, expectSameRateLimit } from "../support/plainAnswers.js"

const KEY_A = "key-a-0123456789abcdef"
const KEY_B = "key-b-0123456789abcdef"
const TIGHT = "key-t-0123456789abcdef"
const ORIGIN = "http://api.test"

let site: FixtureSite
let web: WebHandler
let crawlId: string
let batchId: string

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const call = async (method: string, path: string, key: string, body?: object) => {
  const response = await web.handler(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers: { "content-type": "application/json", ...bearer(key) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  )
  return (await response.json()) as Record<string, unknown>
}

const finished = async (path: string, key: string) => {
  for (;;) {
    const status = await call("GET", path, key)
    if (status.status !== "scraping") return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The answer of both paths to a GET of `path` with `headers`. */
const bothAnswers = (path: string, headers: Record<string, string>) =>
  answersOf(
    web,
    { method: "GET", url: `${ORIGIN}${path}`, headers: { host: "api.test", ...headers } },
    new Request(`${ORIGIN}${path}`, { headers }),
  )

beforeAll(async () => {
  site = await startFixtureSite()
  web = makeWebHandler(
    Layer.merge(
      Engine.layer({ allowPrivateAddresses: true }),
      ServerConfig.layer({
        apiKeys: [KEY_A, KEY_B],
        keys: [entryOf(TIGHT, "tight", "file", Either.getOrThrow(parseLimits("status=2/hour")))],
      }),
    ),
  )
  await web.ready()
  crawlId = (await call("POST", "/v2/crawl", KEY_A, { url: `${site.url}/`, limit: 3 })).id as string
  batchId = (await call("POST", "/v2/batch/scrape", KEY_A, { urls: [`${site.url}/`, `${site.url}/about`] }))
    .id as string
  await finished(`/v2/crawl/${crawlId}`, KEY_A)
  await finished(`/v2/batch/scrape/${batchId}`, KEY_A)
}, 60_000)
afterAll(async () => {
  await web.dispose()
  await site.close()
})

describe("hot routes", () => {
  it("answer status polls as the API does, refusals included", async () => {
    const unknown = "01890000-0000-7000-8000-000000000000"
    const cases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
      [`/v2/crawl/${crawlId}`, bearer(KEY_A), 200],
      [`/v2/crawl/${crawlId}?limit=1`, bearer(KEY_A), 200],
      [`/v2/crawl/${crawlId}?skip=1&limit=1`, bearer(KEY_A), 200],
      [`/v2/crawl/${crawlId}?skip=1&limit=1`, { ...bearer(KEY_A), "x-forwarded-prefix": "/api" }, 200],
      [`/v2/batch/scrape/${batchId}`, bearer(KEY_A), 200],
      [`/v2/crawl/${crawlId}`, { ...bearer(KEY_A), "x-request-id": "poll-1" }, 200],
      // Another key's job, the wrong kind, a job that does not exist: 404.
      [`/v2/crawl/${crawlId}`, bearer(KEY_B), 404],
      [`/v2/batch/scrape/${crawlId}`, bearer(KEY_A), 404],
      [`/v2/crawl/${unknown}`, bearer(KEY_A), 404],
      // No key, a key without its scheme, an unknown key: 401.
      [`/v2/crawl/${crawlId}`, {}, 401],
      [`/v2/crawl/${crawlId}`, { authorization: KEY_A }, 401],
      [`/v2/crawl/${crawlId}`, bearer("not-a-key-0123456789"), 401],
    ]
    for (const [path, sent, status] of cases) {
      const { plain, web: generic } = await bothAnswers(path, sent)
      expect({ path, sent, answer: plain }).toEqual({ path, sent, answer: generic })
      expect(plain.status).toBe(status)
    }
    // The next page's link is absolute, under the mount path the host forwarded.
    const { plain } = await bothAnswers(`/v2/crawl/${crawlId}?skip=0&limit=1`, {
      ...bearer(KEY_A),
      "x-forwarded-prefix": "/api",
    })
    expect(JSON.parse(plain.body as string).next).toBe(`${ORIGIN}/api/v2/crawl/${crawlId}?skip=1&limit=1`)
  })

  it("count against the caller's status limit, with Retry-After past it", async () => {
    const path = `/v2/crawl/${crawlId}`
    const first = await bothAnswers(path, bearer(TIGHT))
    // The tight key's crawl is not its own: 404 twice (one limit's worth), then 429 on both paths.
    expect([first.plain.status, first.web.status]).toEqual([404, 404])
    const { plain, web: generic } = await bothAnswers(path, bearer(TIGHT))
    expectSameRateLimit(plain, generic)
  })

  it("count each answer in the metrics as the API does", async () => {
    const count = async () => {
      const response = await web.handler(new Request(`${ORIGIN}/metrics`, { headers: bearer(KEY_A) }))
      const line = (await response.text())
        .split("\n")
        .find(
          (candidate) =>
            candidate.startsWith("webdata_http_requests_total{") &&
            candidate.includes('route="/v2/crawl/:id"') &&
            candidate.includes('status_class="2xx"'),
        )
      return Number(line?.split(" ").at(-1) ?? 0)
    }
    const before = await count()
    await bothAnswers(`/v2/crawl/${crawlId}`, bearer(KEY_A))
    expect(await count()).toBe(before + 2)
  })

  it("give each answer a request id", async () => {
    const first = await bothAnswers(`/v2/crawl/${crawlId}`, bearer(KEY_A))
    const second = await bothAnswers(`/v2/crawl/${crawlId}`, bearer(KEY_A))
    expect(first.plainRequestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(second.plainRequestId).not.toBe(first.plainRequestId)
  })

  it("leave every other request to the API", () => {
    const id = "01890000-0000-7000-8000-000000000000"
    const poll = (method: string, path: string) => statusPoll({ method, url: `${ORIGIN}${path}`, headers: {} })
    expect(poll("GET", `/v2/crawl/${id}?skip=5&limit=10`)).toEqual({ kind: "crawl", id, skip: 5, limit: 10 })
    expect(poll("GET", `/v2/batch/scrape/${id}`)).toEqual({ kind: "batch", id, skip: undefined, limit: undefined })
    for (const [method, path] of [
      ["DELETE", `/v2/crawl/${id}`],
      ["POST", `/v2/crawl/${id}`],
      ["GET", `/v2/crawl/${id}/errors`],
      ["GET", "/v2/crawl/not-a-uuid"],
      ["GET", `/v2/crawl/${id}?limit=abc`],
      ["GET", `/v2/crawl/${id}?limit=-1`],
      ["GET", `/v2/crawl/${id}?limit=1&limit=2`],
      ["GET", `/v2/crawl/${id}?other=1`],
      ["GET", `/v2/crawl/${id}/`],
      ["GET", `/v2/scrape/${id}`],
      ["GET", `/v1/crawl/${id}`],
    ] as const)
      expect(poll(method, path), `${method} ${path}`).toBeUndefined()
  })
})

/**
 * The hot routes' answerer over an engine with `store`, the keys above, and a one-page crawl of key A on it. An answer
 * it has at hand is a plain value; one it must wait for is an effect.
 */
const answererOn = async (store?: Engine.EngineOptions["store"]) => {
  const runtime = ManagedRuntime.make(
    Quotas.layer.pipe(
      Layer.provideMerge(KeyRing.layer),
      Layer.provideMerge(
        Layer.merge(
          Engine.layer({ allowPrivateAddresses: true, ...(store !== undefined ? { store } : {}) }),
          ServerConfig.layer({
            apiKeys: [KEY_A],
            keys: [entryOf(TIGHT, "tight", "file", Either.getOrThrow(parseLimits("status=2/hour")))],
          }),
        ),
      ),
    ),
  )
  const answer = await runtime.runPromise(HotRoutes.make({ exposedHeaders: [] }))
  const owner = await runtime.runPromise(Effect.map(KeyRing.KeyRing, (keys) => keys.fixedKey(KEY_A)?.owner ?? null))
  const { job } = await runtime.runPromise(
    Effect.flatMap(Crawl, (crawl) => crawl.start({ url: `${site.url}/`, limit: 1 }, owner)),
  )
  const poll = (path: string, headers: Record<string, string>) =>
    answer({ method: "GET", url: `${ORIGIN}${path}`, headers: { host: "api.test", ...headers } }, undefined)
  return { runtime, poll, id: job.id }
}

describe("hot routes without Effect", () => {
  it("answer a poll at once when a fixed key asks a store that reads without waiting, else leave it to the effect", async () => {
    const { runtime, poll, id } = await answererOn()
    try {
      const now = poll(`/v2/crawl/${id}?limit=1`, bearer(KEY_A))
      expect(now !== undefined && !Effect.isEffect(now) && !(now instanceof Promise) ? now.status : "not at once").toBe(
        200,
      )
      for (const [path, headers] of [
        [`/v2/crawl/${id}`, bearer(KEY_B)], // a key the store would have to be asked about: 401 after that
        [`/v2/crawl/${id}`, bearer(TIGHT)], // a status limit to count
        [`/v2/crawl/${id}`, {}], // no key: a refusal
        [`/v2/batch/scrape/${id}`, bearer(KEY_A)], // the wrong kind: 404
      ] as const)
        expect(Effect.isEffect(poll(path, headers)), `${path} ${JSON.stringify(headers)}`).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })

  it("leave every poll to the effect on a store without synchronous reads", async () => {
    const { readNow: _, ...waiting } = MemoryJobStore.make()
    const { runtime, poll, id } = await answererOn(Layer.succeed(JobStore, waiting))
    try {
      const answer = poll(`/v2/crawl/${id}`, bearer(KEY_A))
      expect(answer !== undefined && Effect.isEffect(answer)).toBe(true)
      const response = await runtime.runPromise(answer as Effect.Effect<PlainResponse, never, JobControl>)
      expect(response.status).toBe(200)
    } finally {
      await runtime.dispose()
    }
  })
})
