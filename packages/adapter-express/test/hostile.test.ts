import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../core/test/support/fixtureSite.js"
import { type HostileServer, start as startHostile } from "../../core/test/support/hostileServer.js"

// Every hostile target, scraped through the real server: each ends in a clear error or a bounded document within
// its timeout, memory stays bounded, and the server keeps answering. Traffic stays on 127.0.0.0/8.
let hostile: HostileServer
let site: FixtureSite
let api: RunningServer
beforeAll(async () => {
  hostile = await startHostile()
  site = await startFixtureSite()
  // Only 127.0.0.1 is allowed, so a redirect to 127.0.0.2 must be refused by the guard.
  api = await serve({
    port: 0,
    engine: Engine.layer({ allowedTargets: ["127.0.0.1/32"], cacheMaxBytes: 0 }),
    serverConfig: ServerConfig.layer(),
  })
})
afterAll(async () => {
  await api.close()
  await hostile.close()
  await site.close()
})

const scrape = async (url: string, options: Record<string, unknown> = {}) => {
  const started = Date.now()
  const response = await fetch(`${api.url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, ...options }),
  })
  const body = (await response.json()) as {
    success: boolean
    code?: string
    error?: string
    data?: { markdown?: string; links?: Array<string> }
  }
  return { status: response.status, body, elapsed: Date.now() - started }
}

const healthy = async () => {
  const response = await fetch(`${api.url}/`)
  expect(response.status).toBe(200)
}

describe("hostile targets through the API", () => {
  it.each([
    ["/bomb/gzip", 500, "SCRAPE_RESPONSE_TOO_LARGE"],
    ["/bomb/br", 500, "SCRAPE_RESPONSE_TOO_LARGE"],
    ["/huge", 500, "SCRAPE_RESPONSE_TOO_LARGE"],
    ["/huge/declared", 500, "SCRAPE_RESPONSE_TOO_LARGE"],
    ["/redirect/loop", 500, "SCRAPE_TOO_MANY_REDIRECTS"],
    ["/redirect/chain/11", 500, "SCRAPE_TOO_MANY_REDIRECTS"],
    ["/reset", 500, "SCRAPE_SITE_ERROR"],
  ])("%s answers %i %s", async (path, status, code) => {
    const result = await scrape(`${hostile.url}${path}`, { timeout: 15_000 })
    expect(result.status).toBe(status)
    expect(result.body).toMatchObject({ success: false, code })
    expect(result.body.error).toBeTruthy()
    await healthy()
  })

  it("refuses a redirect to another loopback address without connecting to it", async () => {
    const target = `http://127.0.0.2:${hostile.port}/page`
    const result = await scrape(`${hostile.url}/redirect/to?url=${encodeURIComponent(target)}`)
    expect(result.status).toBe(403)
    expect(result.body.code).toBe("SCRAPE_BLOCKED_ADDRESS")
    expect(result.body.error).toContain("127.0.0.2")
  })

  it.each(["/slow-drip", "/never-ending", "/hang"])("%s times out within the request's timeout", async (path) => {
    const result = await scrape(`${hostile.url}${path}`, { timeout: 2000 })
    expect(result.status).toBe(408)
    expect(result.body.code).toBe("SCRAPE_TIMEOUT")
    expect(result.elapsed).toBeLessThan(4000)
    await healthy()
  })

  it.each(["/invalid-utf8", "/binary/random", "/binary/png", "/truncated"])(
    "%s ends in a bounded answer, never a crash",
    async (path) => {
      const result = await scrape(`${hostile.url}${path}`, { timeout: 10_000 })
      expect([200, 500]).toContain(result.status)
      if (result.status === 200) expect(typeof result.body.data?.markdown).toBe("string")
      else expect(result.body.code).toMatch(/^SCRAPE_/)
      await healthy()
    },
  )

  it("extracts a page nested 100 000 levels deep", async () => {
    const result = await scrape(`${site.url}/deep?n=100000`, { timeout: 30_000 })
    expect(result.status).toBe(200)
    expect(result.body.data?.markdown).toContain("After the nesting.")
  })

  it("lists 100 000 links", async () => {
    const result = await scrape(`${site.url}/many-links?n=100000`, { formats: ["links"], timeout: 30_000 })
    expect(result.status).toBe(200)
    expect(result.body.data?.links).toHaveLength(100_000)
  })

  it("keeps memory bounded across repeated hostile requests and keeps answering", async () => {
    const before = process.memoryUsage().rss
    for (let round = 0; round < 3; round++) {
      await Promise.all([
        scrape(`${hostile.url}/bomb/gzip`),
        scrape(`${hostile.url}/bomb/br`),
        scrape(`${hostile.url}/huge`),
        scrape(`${hostile.url}/binary/random`),
      ])
    }
    const grown = process.memoryUsage().rss - before
    expect(grown).toBeLessThan(300 * 1024 * 1024)
    await healthy()
  })
})
