import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Firecrawl from "@mendable/firecrawl-js"
import type { RunningServer } from "@webdata/server"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FixtureSite } from "../../core/test/support/fixtureSite.js"
import {
  plainFirst,
  toExpressMiddleware,
  type WebdataRouter,
  webdataErrorHandler,
  webdataRouter,
} from "../src/index.js"
import { type ApiWithSite, startApiWithSite } from "./support/apiWithSite.js"

let site: FixtureSite
let api: RunningServer
let fixtures: ApiWithSite
beforeAll(async () => {
  fixtures = await startApiWithSite(["test-key"])
  ;({ site, api } = fixtures)
})
afterAll(() => fixtures.close())

const listen = async (app: express.Express): Promise<{ url: string; close: () => Promise<void> }> => {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s))
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const postJson = (url: string, body: string, key = "test-key") =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body })

describe("serve()", () => {
  it("scrapes the fixture article into markdown without navigation or footer", async () => {
    const response = await postJson(`${api.url}/v2/scrape`, JSON.stringify({ url: `${site.url}/article` }))
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.success).toBe(true)
    expect(body.data.markdown).toContain("Tidal power captures the energy")
    expect(body.data.markdown).not.toContain("Subscribe to the newsletter")
    expect(body.data.markdown).not.toContain("All rights reserved")
  })

  it("requires the configured key", async () => {
    const response = await postJson(`${api.url}/v2/scrape`, JSON.stringify({ url: `${site.url}/article` }), "wrong")
    expect(response.status).toBe(401)
  })

  it("answers malformed JSON with the envelope", async () => {
    const response = await postJson(`${api.url}/v2/scrape`, "{nope")
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: "BAD_REQUEST_INVALID_JSON" })
  })
})

describe("webdataRouter()", () => {
  let router: WebdataRouter
  let withParser: { url: string; close: () => Promise<void> }
  let withoutParser: { url: string; close: () => Promise<void> }
  beforeAll(async () => {
    router = webdataRouter({ engineOptions: { allowPrivateAddresses: true } })
    const parsed = express()
    parsed.use(express.json())
    parsed.use("/api", router)
    parsed.use(webdataErrorHandler)
    withParser = await listen(parsed)
    const raw = express()
    raw.use(router)
    withoutParser = await listen(raw)
  })
  afterAll(async () => {
    await withParser.close()
    await withoutParser.close()
    await router.dispose()
  })

  it("works under a prefix behind express.json()", async () => {
    const response = await postJson(
      `${withParser.url}/api/v2/scrape`,
      JSON.stringify({ url: `${site.url}/article`, formats: ["links"] }),
    )
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.data.links).toContain(`${site.url}/topics`)
  })

  it("maps express.json() parse errors to the envelope", async () => {
    const response = await postJson(`${withParser.url}/api/v2/scrape`, '{"url":')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      success: false,
      code: "BAD_REQUEST_INVALID_JSON",
      error: "Bad request, malformed JSON",
    })
  })

  it("works at the root without a body parser, and validates strictly", async () => {
    const response = await postJson(
      `${withoutParser.url}/v2/scrape`,
      JSON.stringify({ url: `${site.url}/article`, extra: 1 }),
    )
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/Unrecognized key/)
    const health = await fetch(`${withoutParser.url}/`)
    expect(await health.json()).toMatchObject({ success: true })
  })
})

describe("toExpressMiddleware()", () => {
  it("streams the body and keeps every Set-Cookie header", async () => {
    const app = express()
    app.use(
      toExpressMiddleware(async (request) => {
        const encoder = new TextEncoder()
        const chunks = ["first,", "second,", `${request.method} ${new URL(request.url).pathname}`]
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = chunks.shift()
            if (next === undefined) return controller.close()
            await new Promise((resolve) => setTimeout(resolve, 5))
            controller.enqueue(encoder.encode(next))
          },
        })
        const headers = new Headers({ "content-type": "text/plain", "x-custom": "yes" })
        headers.append("set-cookie", "a=1; Path=/")
        headers.append("set-cookie", "b=2; Path=/; HttpOnly")
        return new Response(body, { status: 201, headers })
      }),
    )
    const server = await listen(app)
    try {
      const response = await fetch(`${server.url}/some/path`)
      expect(response.status).toBe(201)
      expect(response.headers.get("x-custom")).toBe("yes")
      expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/; HttpOnly"])
      expect(response.headers.get("transfer-encoding")).toBe("chunked")
      expect(await response.text()).toBe("first,second,GET /some/path")
    } finally {
      await server.close()
    }
  })

  it("writes a body of stated length in one piece, with that length", async () => {
    const text = "ünïcode ".repeat(20_000)
    const app = express()
    // Counts the writes before the end: a piped body arrives in several.
    let writes = 0
    app.use((_req, res, next) => {
      const write = res.write.bind(res) as (...args: Array<unknown>) => boolean
      res.write = ((...args: Array<unknown>) => {
        writes++
        return write(...args)
      }) as typeof res.write
      next()
    })
    app.use(
      toExpressMiddleware(async () => {
        const bytes = new TextEncoder().encode(text)
        return new Response(bytes, {
          headers: { "content-type": "text/plain", "content-length": String(bytes.length) },
        })
      }),
    )
    const server = await listen(app)
    try {
      const response = await fetch(`${server.url}/any`)
      expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)))
      expect(response.headers.get("transfer-encoding")).toBeNull()
      expect(await response.text()).toBe(text)
      expect(writes).toBe(0)
    } finally {
      await server.close()
    }
  })

  it("gives GETs and POSTs to the plain handler first, with the headers the API would see, and the rest to the web handler", async () => {
    const seen: Array<{ url: string; headers: Readonly<Record<string, string | undefined>>; address?: string }> = []
    const app = express()
    app.use(
      "/api",
      toExpressMiddleware(
        async (request) => new Response(`web ${request.method} ${await request.text()}`, { status: 202 }),
        {
          maxBodyBytes: 64,
          handlePlain: (request, origin) => {
            if (request.url.endsWith("/echo") && request.body !== undefined) {
              const { body, signal } = request
              return body(1024).then((read) => ({
                status: 201,
                headers: {},
                body: `${signal?.aborted} ${read === "too-large" ? read : new TextDecoder().decode(read)}`,
              }))
            }
            if (!request.url.endsWith("/hot")) return undefined
            seen.push({
              url: request.url,
              headers: request.headers,
              ...(origin?.clientAddress ? { address: origin.clientAddress } : {}),
            })
            return Promise.resolve({
              status: 203,
              headers: { "content-type": "text/plain", "x-plain": "yes" },
              body: "plain",
            })
          },
        },
      ),
    )
    const server = await listen(app)
    try {
      const hot = await fetch(`${server.url}/api/v2/hot`, {
        headers: { authorization: "Bearer k", "x-forwarded-host": "spoofed.test", cookie: "a=1" },
      })
      expect([hot.status, hot.headers.get("x-plain"), await hot.text()]).toEqual([203, "yes", "plain"])
      expect(seen).toHaveLength(1)
      // The path within the mount, as the web handler gets it too.
      expect(seen[0]?.url).toBe(`${server.url}/v2/hot`)
      // The mount path is forwarded; a forwarding header from an untrusted peer is not.
      expect(seen[0]?.headers).toMatchObject({ authorization: "Bearer k", cookie: "a=1", "x-forwarded-prefix": "/api" })
      expect(seen[0]?.headers["x-forwarded-host"]).toBeUndefined()
      expect(seen[0]?.address).toMatch(/127\.0\.0\.1/)
      const other = await fetch(`${server.url}/api/v2/other`)
      expect([other.status, await other.text()]).toEqual([202, "web GET "])
      // A POST the plain handler leaves reaches the web handler with its body unread; one it takes, it reads, under
      // the smaller of its own cap and the adapter's.
      const declined = await fetch(`${server.url}/api/v2/other`, { method: "POST", body: "{}" })
      expect([declined.status, await declined.text()]).toEqual([202, "web POST {}"])
      const echoed = await fetch(`${server.url}/api/v2/echo`, { method: "POST", body: '{"a":1}' })
      expect([echoed.status, await echoed.text()]).toEqual([201, 'false {"a":1}'])
      const large = await fetch(`${server.url}/api/v2/echo`, { method: "POST", body: "x".repeat(65) })
      expect([large.status, await large.text()]).toEqual([201, "false too-large"])
      expect(seen).toHaveLength(1)
    } finally {
      await server.close()
    }
  })

  it("gives the plain handler a body a parser in front already read, as JSON", async () => {
    const app = express()
    app.use(express.json())
    app.use(
      toExpressMiddleware(async () => new Response("unreachable"), {
        handlePlain: (request) =>
          request.body?.(1024).then((read) => ({
            status: 200,
            headers: { "x-length": String(request.headers["content-length"]) },
            body: read === "too-large" ? read : new TextDecoder().decode(read),
          })),
      }),
    )
    const server = await listen(app)
    try {
      const response = await fetch(`${server.url}/v2/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{ "url" : "http://example.test" }',
      })
      // Re-serialised: its length is no longer the client's, so none is passed on.
      expect([response.status, response.headers.get("x-length"), await response.text()]).toEqual([
        200,
        "undefined",
        '{"url":"http://example.test"}',
      ])
    } finally {
      await server.close()
    }
  })

  it("plainFirst answers plain GETs and POSTs before the app, reading the client address and forwarding headers as the app does", async () => {
    const seen: Array<{ headers: Readonly<Record<string, string | undefined>>; address?: string }> = []
    const app = express()
    // Loopback is a proxy this app trusts: its forwarding headers and X-Forwarded-For pass.
    app.set("trust proxy", "loopback")
    app.use((req, res) => void res.status(202).send(`app ${req.method} ${req.url}`))
    app.use(webdataErrorHandler)
    const server = createServer(
      plainFirst(app, (request, origin) => {
        if (request.url.endsWith("/broken")) return Promise.reject(new Error("a bug"))
        if (request.url.endsWith("/echo") && request.body !== undefined)
          return request.body(1024).then((read) => ({
            status: 201,
            headers: {},
            body: read === "too-large" ? read : new TextDecoder().decode(read),
          }))
        if (!request.url.endsWith("/hot")) return undefined
        seen.push({ headers: request.headers, ...(origin?.clientAddress ? { address: origin.clientAddress } : {}) })
        return Promise.resolve({ status: 203, headers: { "x-plain": "yes" }, body: new TextEncoder().encode("plain") })
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const hot = await fetch(`${url}/v2/hot`, {
        headers: { authorization: "Bearer k", "x-forwarded-for": "203.0.113.9", "x-forwarded-host": "api.test" },
      })
      expect([hot.status, hot.headers.get("x-plain"), await hot.text()]).toEqual([203, "yes", "plain"])
      expect(seen[0]?.address).toBe("203.0.113.9")
      expect(seen[0]?.headers).toMatchObject({ authorization: "Bearer k", "x-forwarded-host": "api.test" })
      expect(seen[0]?.headers["x-forwarded-prefix"]).toBeUndefined()
      const other = await fetch(`${url}/v2/other?x=1`)
      expect([other.status, await other.text()]).toEqual([202, "app GET /v2/other?x=1"])
      const posted = await fetch(`${url}/v2/other`, { method: "POST", body: "{}" })
      expect([posted.status, await posted.text()]).toEqual([202, "app POST /v2/other"])
      const echoed = await fetch(`${url}/v2/echo`, { method: "POST", body: '{"b":2}' })
      expect([echoed.status, await echoed.text()]).toEqual([201, '{"b":2}'])
      expect(seen).toHaveLength(1)
      // A bug in the plain path is the API's 500 envelope, as in the app.
      const broken = await fetch(`${url}/v2/broken`)
      expect(broken.status).toBe(500)
      expect(await broken.json()).toMatchObject({ success: false, code: "UNKNOWN_ERROR" })
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("refuses bodies over its cap with 413 without buffering them", async () => {
    const app = express()
    app.use(toExpressMiddleware(async () => new Response("unreachable"), { maxBodyBytes: 1024 }))
    const server = await listen(app)
    try {
      const response = await fetch(`${server.url}/v2/scrape`, { method: "POST", body: "x".repeat(10_000) })
      expect(response.status).toBe(413)
    } finally {
      await server.close()
    }
  })
})

describe("the official Firecrawl SDK", () => {
  it("scrapes through the Express adapter", async () => {
    const client = new Firecrawl({ apiKey: "test-key", apiUrl: api.url })
    const document = await client.scrape(`${site.url}/article`, {
      formats: ["markdown", "links"],
      onlyMainContent: true,
    })
    expect(document.markdown).toContain("Tidal power captures the energy")
    expect(document.links).toContain(`${site.url}/topics`)
    expect(document.metadata?.statusCode).toBe(200)
    expect(document.metadata?.sourceURL).toBe(`${site.url}/article`)
  })

  it("surfaces API errors with their status and code", async () => {
    const client = new Firecrawl({ apiKey: "test-key", apiUrl: api.url })
    await expect(client.scrape(`${site.url}/article`, { formats: ["screenshot"] })).rejects.toMatchObject({
      status: 400,
      code: "SCRAPE_UNSUPPORTED_FORMAT",
    })
    const anonymous = new Firecrawl({ apiKey: "wrong", apiUrl: api.url })
    await expect(anonymous.scrape(`${site.url}/article`)).rejects.toMatchObject({ status: 401 })
  })
})
