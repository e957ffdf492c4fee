/**
 * `POST /v2/scrape` answered from plain data (`HotScrape.ts`) gives what the API's generic path gives: the same status,
 * headers and body (but for the scrape's own id), for answers and refusals alike, and keeps the scrape as the API does.
 */
import { Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { MAX_BODY_BYTES } from "../../src/Http/Body.js"
import { isHotScrape } from "../../src/Http/HotScrape.js"
import type { PlainRequest } from "../../src/Http/Plain.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler, type WebHandler } from "../../src/Http/WebHandler.js"
import { entryOf } from "../../src/Tenants/ApiKey.js"
import { parseLimits } from "../../src/Tenants/Limits.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { bothAnswers as answersOf, expectSameRateLimit } from "../support/plainAnswers.js"

const KEY = "key-a-0123456789abcdef"
const TIGHT = "key-t-0123456789abcdef"
const ORIGIN = "http://api.test"
const URL_ = `${ORIGIN}/v2/scrape`

let site: FixtureSite
let web: WebHandler

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const utf8 = new TextEncoder()
const decoder = new TextDecoder()

/** A host's body reader over `text`, capped as a host caps it. */
const reader =
  (text: string) =>
  async (maxBytes: number): Promise<Uint8Array | "too-large"> => {
    const bytes = utf8.encode(text)
    return bytes.length > maxBytes ? "too-large" : bytes
  }

const plainRequest = (text: string, headers: Record<string, string>, signal?: AbortSignal): PlainRequest => ({
  method: "POST",
  url: URL_,
  headers: { host: "api.test", "content-type": "application/json", ...headers },
  body: reader(text),
  ...(signal !== undefined ? { signal } : {}),
})

/** What both paths answer to a POST of `text` with `headers` (a scrape's length varies with its id's). */
const bothAnswers = (text: string, headers: Record<string, string>) =>
  answersOf(
    web,
    plainRequest(text, headers),
    new Request(URL_, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text }),
    ["content-length"],
  )

/** A scrape's answer without what differs from one scrape to the next. */
const withoutIds = (body: string) => {
  const parsed = JSON.parse(body)
  if (parsed.data?.metadata !== undefined) parsed.data.metadata.scrapeId = "(id)"
  return parsed
}

beforeAll(async () => {
  site = await startFixtureSite()
  web = makeWebHandler(
    Layer.merge(
      Engine.layer({ allowPrivateAddresses: true }),
      ServerConfig.layer({
        apiKeys: [KEY],
        keys: [entryOf(TIGHT, "tight", "file", Either.getOrThrow(parseLimits("scrape=2/hour")))],
      }),
    ),
  )
  await web.ready()
}, 60_000)
afterAll(async () => {
  await web.dispose()
  await site.close()
})

describe("the hot scrape route", () => {
  it("answers scrapes and refusals as the API does", async () => {
    const scrape = (body: object) => JSON.stringify(body)
    const cases: ReadonlyArray<readonly [string, string, Record<string, string>, number]> = [
      ["a page", scrape({ url: `${site.url}/`, maxAge: 0 }), bearer(KEY), 200],
      ["an error page", scrape({ url: `${site.url}/status/404`, maxAge: 0 }), bearer(KEY), 200],
      [
        "with its own id",
        scrape({ url: `${site.url}/about`, maxAge: 0 }),
        { ...bearer(KEY), "x-request-id": "s-1" },
        200,
      ],
      ["an unknown option", scrape({ url: `${site.url}/`, nope: 1 }), bearer(KEY), 400],
      ["no url", scrape({ formats: ["markdown"] }), bearer(KEY), 400],
      ["nothing", "", bearer(KEY), 400],
      ["malformed JSON", "{", bearer(KEY), 400],
      ["not a URL", scrape({ url: "http://" }), bearer(KEY), 400],
      ["no key", scrape({ url: `${site.url}/` }), {}, 401],
      ["a key without its scheme", scrape({ url: `${site.url}/` }), { authorization: KEY }, 401],
      ["an unknown key", scrape({ url: `${site.url}/` }), bearer("not-a-key-0123456789"), 401],
    ]
    for (const [what, text, headers, status] of cases) {
      const { plain, web: generic } = await bothAnswers(text, headers)
      expect({ what, ...plain, body: withoutIds(plain.body) }).toEqual({
        what,
        ...generic,
        body: withoutIds(generic.body),
      })
      expect([what, plain.status]).toEqual([what, status])
    }
  })

  it("refuses a body over the API's limit with 413, whether it states its length or not", async () => {
    const huge = `{"url":"${"x".repeat(MAX_BODY_BYTES)}"}`
    const { plain, web: generic } = await bothAnswers(huge, bearer(KEY))
    expect(plain).toEqual(generic)
    expect([plain.status, JSON.parse(plain.body).code]).toEqual([413, "PAYLOAD_TOO_LARGE"])
    const declared = await web.handlePlain(
      plainRequest("{}", { ...bearer(KEY), "content-length": String(MAX_BODY_BYTES + 1) }),
    )
    expect(declared?.status).toBe(413)
  })

  it("counts against the caller's scrape limit, with Retry-After past it", async () => {
    const text = JSON.stringify({ url: `${site.url}/`, maxAge: 0 })
    const first = await bothAnswers(text, bearer(TIGHT))
    expect([first.plain.status, first.web.status]).toEqual([200, 200])
    const { plain, web: generic } = await bothAnswers(text, bearer(TIGHT))
    expectSameRateLimit(plain, generic)
  })

  it("keeps the scrape for GET /v2/scrape/{id}, for its caller only", async () => {
    const answer = await web.handlePlain(plainRequest(JSON.stringify({ url: `${site.url}/article` }), bearer(KEY)))
    const body = JSON.parse(decoder.decode(answer?.body as Uint8Array))
    const id = body.data.metadata.scrapeId as string
    const kept = await web.handler(new Request(`${ORIGIN}/v2/scrape/${id}`, { headers: bearer(KEY) }))
    expect(kept.status).toBe(200)
    expect(((await kept.json()) as { data: unknown }).data).toEqual(body.data)
    const other = await web.handler(new Request(`${ORIGIN}/v2/scrape/${id}`, { headers: bearer(TIGHT) }))
    expect(other.status).toBe(404)
  })

  it("stops the scrape when the client goes away", async () => {
    const aborter = new AbortController()
    const started = Date.now()
    const answer = web.handlePlain(
      plainRequest(JSON.stringify({ url: `${site.url}/slow?ms=20000`, maxAge: 0 }), bearer(KEY), aborter.signal),
    )
    setTimeout(() => aborter.abort(), 300)
    expect((await answer)?.status).toBe(499)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it("takes only a POST of the route's own path with a body to read", () => {
    const body = reader("{}")
    const take = (method: string, path: string, withBody = true) =>
      isHotScrape({ method, url: `${ORIGIN}${path}`, headers: {}, ...(withBody ? { body } : {}) })
    expect(take("POST", "/v2/scrape")).toBe(true)
    for (const [method, path, withBody] of [
      ["POST", "/v2/scrape", false],
      ["GET", "/v2/scrape", true],
      ["PUT", "/v2/scrape", true],
      ["POST", "/v2/scrape?x=1", true],
      ["POST", "/v2/scrape/", true],
      ["POST", "/v1/scrape", true],
      ["POST", "/v2/batch/scrape", true],
    ] as const)
      expect(take(method, path, withBody), `${method} ${path} ${withBody}`).toBe(false)
  })
})
