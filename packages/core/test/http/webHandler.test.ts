import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { Document } from "../../src/Domain/Document.js"
import * as Engine from "../../src/Engine.js"
import { RequestError, ScrapeError } from "../../src/Errors.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { Scrape, type ScrapeInput } from "../../src/Scrape.js"

// A scrape service that answers from the URL, so the HTTP layer's mapping of each outcome can be checked alone.
const scrape = (input: ScrapeInput): Effect.Effect<Document, ScrapeError | RequestError> => {
  const path = new URL(input.url.includes("://") ? input.url : `http://${input.url}`).pathname
  switch (path) {
    case "/timeout":
      return Effect.fail(new ScrapeError({ reason: "Timeout", message: "timed out" }))
    case "/dns":
      return Effect.fail(
        new ScrapeError({ reason: "DnsResolution", message: 'DNS resolution failed for hostname "x"' }),
      )
    case "/blocked":
      return Effect.fail(new ScrapeError({ reason: "BlockedAddress", message: "refused" }))
    case "/cache-miss":
      return Effect.fail(new RequestError({ reason: "NotFound", code: "SCRAPE_NO_CACHED_DATA", message: "none" }))
    case "/defect":
      return Effect.die(new Error("boom"))
    default:
      return Effect.succeed({
        markdown: `# ${path}`,
        metadata: { sourceURL: input.url, url: input.url, statusCode: 200, scrapeId: "id" },
      })
  }
}
// The rest of the engine is the real one (memory store, no worker); the scripted scrape replaces the real one.
const scripted = Layer.merge(
  Engine.layer({ worker: false }),
  Layer.succeed(Scrape, { scrape, scrapeDetailed: (input) => Effect.map(scrape(input), (document) => ({ document })) }),
)

const open = makeWebHandler(Layer.merge(scripted, ServerConfig.layer()))
const keyed = makeWebHandler(Layer.merge(scripted, ServerConfig.layer({ apiKeys: ["k1", "k2"] })))
afterAll(async () => {
  await open.dispose()
  await keyed.dispose()
})

const post = (body: string | object, init: { handler?: typeof open; headers?: Record<string, string> } = {}) =>
  (init.handler ?? open).handler(
    new Request("http://api.test/v2/scrape", {
      method: "POST",
      headers: { "content-type": "application/json", ...init.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  )

describe("the web handler", () => {
  it("answers a scrape with { success, data }", async () => {
    const response = await post({ url: "https://example.com/page", origin: "js-sdk@4.42.0" })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/application\/json/)
    expect(await response.json()).toEqual({
      success: true,
      data: {
        markdown: "# /page",
        metadata: {
          sourceURL: "https://example.com/page",
          url: "https://example.com/page",
          statusCode: 200,
          scrapeId: "id",
        },
      },
    })
  })

  it("states the byte length of the answers it holds in memory, errors included", async () => {
    for (const response of [
      await post({ url: "https://example.com/page" }),
      await post({ url: "https://example.com/page", formats: ["nope"] }),
      await open.handler(new Request("http://api.test/v2/nowhere")),
    ]) {
      const bytes = new Uint8Array(await response.arrayBuffer())
      expect(bytes.length).toBeGreaterThan(0)
      expect(response.headers.get("content-length")).toBe(String(bytes.length))
    }
  })

  it("answers malformed JSON with BAD_REQUEST_INVALID_JSON", async () => {
    const response = await post('{"url": ')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      success: false,
      code: "BAD_REQUEST_INVALID_JSON",
      error: "Bad request, malformed JSON",
    })
  })

  it("answers validation failures with the envelope and details", async () => {
    const response = await post({ url: "https://example.com", waitFor: 40_000, timeout: 60_000 })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({
      success: false,
      code: "BAD_REQUEST",
      error: "waitFor must not exceed half of timeout",
    })
    expect(body.details[0]).toMatchObject({ code: "custom", path: ["waitFor"] })
  })

  it.each([
    ["/timeout", 408, "SCRAPE_TIMEOUT"],
    ["/dns", 200, "SCRAPE_DNS_RESOLUTION_ERROR"],
    ["/blocked", 403, "SCRAPE_BLOCKED_ADDRESS"],
    ["/cache-miss", 404, "SCRAPE_NO_CACHED_DATA"],
  ])("maps %s to %i %s", async (path, status, code) => {
    const response = await post({ url: `https://example.com${path}` })
    expect(response.status).toBe(status)
    expect(await response.json()).toMatchObject({ success: false, code })
  })

  it("turns a defect into a logged 500 with an error id", async () => {
    const response = await post({ url: "https://example.com/defect" })
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(body.code).toBe("UNKNOWN_ERROR")
    expect(body.error).toMatch(/Error ID: [0-9a-f-]{36}/)
  })

  it("answers 413 for bodies over 10 MB", async () => {
    const response = await post({ url: "https://example.com", headers: { big: "x".repeat(11 * 1024 * 1024) } })
    expect(response.status).toBe(413)
    expect((await response.json()).success).toBe(false)
  })

  it("answers unknown routes with a JSON 404", async () => {
    const response = await open.handler(new Request("http://api.test/v2/nothing-here"))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ success: false, code: "NOT_FOUND" })
  })

  it("serves health and the OpenAPI document without a key", async () => {
    const health = await keyed.handler(new Request("http://api.test/"))
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ success: true, message: "webdata API" })
    const spec = await keyed.handler(new Request("http://api.test/v2/openapi.json"))
    expect(spec.status).toBe(200)
    expect((await spec.json()).paths["/v2/scrape"].post).toBeDefined()
  })

  it("checks bearer keys when keys are configured", async () => {
    const missing = await post({ url: "https://example.com" }, { handler: keyed })
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ success: false, code: "UNAUTHORIZED" })
    const wrong = await post(
      { url: "https://example.com" },
      { handler: keyed, headers: { authorization: "Bearer nope" } },
    )
    expect(wrong.status).toBe(401)
    expect((await wrong.json()).error).toBe("Unauthorized: Invalid token")
    const right = await post(
      { url: "https://example.com" },
      { handler: keyed, headers: { authorization: "Bearer k2" } },
    )
    expect(right.status).toBe(200)
  })

  it("says so when the key is sent without the Bearer scheme", async () => {
    const bare = await post({ url: "https://example.com" }, { handler: keyed, headers: { authorization: "k2" } })
    expect(bare.status).toBe(401)
    expect(await bare.json()).toEqual({
      success: false,
      code: "UNAUTHORIZED",
      error: "Unauthorized: send the key as `Authorization: Bearer <key>`",
    })
    const lower = await post(
      { url: "https://example.com" },
      { handler: keyed, headers: { authorization: "bearer k1" } },
    )
    expect(lower.status).toBe(200)
  })

  it("answers a known path with the wrong method 405 with Allow, an unknown path 404", async () => {
    const wrong = await open.handler(new Request("http://api.test/v2/scrape"))
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get("allow")).toBe("POST")
    expect(await wrong.json()).toMatchObject({ success: false, code: "METHOD_NOT_ALLOWED" })
    const job = await open.handler(
      new Request("http://api.test/v2/crawl/0190f3a0-0000-7000-8000-000000000000", { method: "PUT" }),
    )
    expect(job.status).toBe(405)
    expect(job.headers.get("allow")).toBe("GET, DELETE")
    const missing = await open.handler(new Request("http://api.test/v2/nothing-here"))
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ success: false, code: "NOT_FOUND" })
  })

  it("puts the mount prefix into its pointers to the documentation", async () => {
    const headers = { "x-forwarded-prefix": "/firecrawl" }
    const health = await open.handler(new Request("http://api.test/", { headers }))
    expect((await health.json()).documentation_url).toBe("/firecrawl/v2/openapi.json")
    const missing = await open.handler(new Request("http://api.test/v2/nothing-here", { headers }))
    expect((await missing.json()).error).toContain("See /firecrawl/v2/openapi.json")
    expect((await (await open.handler(new Request("http://api.test/"))).json()).documentation_url).toBe(
      "/v2/openapi.json",
    )
  })

  it("runs open without keys, whatever the Authorization header says", async () => {
    const response = await post({ url: "https://example.com" }, { headers: { authorization: "Bearer anything" } })
    expect(response.status).toBe(200)
  })

  it("allows cross-origin calls", async () => {
    const response = await open.handler(
      new Request("http://api.test/v2/scrape", {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      }),
    )
    expect(response.status).toBeLessThan(300)
    expect(response.headers.get("access-control-allow-origin")).toBe("*")
    const answer = await open.handler(new Request("http://api.test/", { headers: { origin: "https://app.example" } }))
    expect(answer.headers.get("access-control-expose-headers")).toBe("x-request-id,retry-after")
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })
})
