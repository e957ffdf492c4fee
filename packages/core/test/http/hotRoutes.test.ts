/**
 * The status polls answered from plain data (`HotRoutes.ts`) give what the API's generic path gives: the same status,
 * body and headers, for answers and refusals alike; any request they do not know is left to the API.
 */
import { Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { type PlainRequest, statusPoll } from "../../src/Http/HotRoutes.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler, type WebHandler } from "../../src/Http/WebHandler.js"
import { entryOf } from "../../src/Tenants/ApiKey.js"
import { parseLimits } from "../../src/Tenants/Limits.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"

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

/** The answer of both paths to a GET of `path` with `headers`: status, headers (sorted) and body. */
const bothAnswers = async (path: string, headers: Record<string, string>) => {
  const request: PlainRequest = { method: "GET", url: `${ORIGIN}${path}`, headers: { host: "api.test", ...headers } }
  const answer = web.handlePlain(request)
  if (answer === undefined) throw new Error(`not a hot route: ${path}`)
  const plain = await answer
  const response = await web.handler(new Request(`${ORIGIN}${path}`, { headers }))
  const decoder = new TextDecoder()
  const comparable = (entries: Iterable<[string, string]>) =>
    [...entries].filter(([name]) => name !== "x-request-id" || headers["x-request-id"] !== undefined).sort()
  return {
    plain: {
      status: plain.status,
      headers: comparable(Object.entries(plain.headers)),
      body: typeof plain.body === "string" ? plain.body : decoder.decode(plain.body),
    },
    web: { status: response.status, headers: comparable(response.headers), body: await response.text() },
    plainRequestId: plain.headers["x-request-id"],
  }
}

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
    // The message counts the requests so far, one more on the second path.
    const code = (body: string) => JSON.parse(body).code
    expect({ ...plain, body: code(plain.body) }).toEqual({ ...generic, body: code(generic.body) })
    expect([plain.status, code(plain.body)]).toEqual([429, "RATE_LIMIT_EXCEEDED"])
    expect(plain.headers.find(([name]) => name === "retry-after")?.[1]).toMatch(/^\d+$/)
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
