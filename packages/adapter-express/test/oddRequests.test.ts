/**
 * Requests that never reach the API's routes — methods a web Request cannot carry or Node's parser does not know,
 * CONNECT, a malformed Host header, headers over Node's limit — answer the error envelope, never an empty body, an
 * HTML page or a stack trace.
 */
import { createServer, request as httpRequest, type Server } from "node:http"
import { connect } from "node:net"
import type { Duplex } from "node:stream"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listenOnLoopback } from "../../core/test/support/loopback.js"
import { attachClientErrorEnvelope } from "../src/index.js"

let api: RunningServer
let port: number
beforeAll(async () => {
  api = await serve({ port: 0, engine: Engine.layer({ worker: false }), serverConfig: ServerConfig.layer() })
  port = Number(new URL(api.url).port)
})
afterAll(() => api.close())

/** Sends raw bytes and reads the whole answer (the server closes or the answer is complete). */
const raw = (payload: string, to = port): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(to, "127.0.0.1", () => socket.end(payload))
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk.toString()
    })
    socket.on("close", () => resolve(answer))
    socket.on("error", reject)
  })

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>

describe("requests the API's routes never see", () => {
  it("answers TRACE 405 in the envelope", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, method: "TRACE", path: "/v2/scrape" }, (res) => {
        let text = ""
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.on("error", reject)
      req.end()
    })
    expect(status).toBe(405)
    expect(JSON.parse(body)).toMatchObject({ success: false, code: "METHOD_NOT_ALLOWED" })
  })

  it("answers a malformed Host header 400 in the envelope, without a stack trace or a path", async () => {
    for (const host of ["a b", "[", "x:99999"]) {
      const answer = await raw(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect(answer, host).toMatch(/^HTTP\/1\.1 400 /)
      expect(answer).toMatch(/content-type: application\/json/i)
      expect(answer).not.toMatch(/at |\/node_modules\/|<html/i)
      expect(bodyOf(answer)).toMatchObject({ success: false, code: "BAD_REQUEST" })
    }
  })

  it("answers headers over Node's limit 431 in the envelope", async () => {
    const answer = await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`)
    expect(answer).toMatch(/^HTTP\/1\.1 431 /)
    expect(bodyOf(answer)).toMatchObject({ success: false, code: "REQUEST_HEADER_FIELDS_TOO_LARGE" })
  })

  it("answers methods Node's parser does not know (TRACK) and CONNECT 405 in the envelope", async () => {
    for (const line of ["TRACK / HTTP/1.1", "BREW /v2/scrape HTTP/1.1", "CONNECT 127.0.0.1:80 HTTP/1.1"]) {
      const answer = await raw(`${line}\r\nHost: 127.0.0.1\r\n\r\n`)
      expect(answer, line).toMatch(/^HTTP\/1\.1 405 /)
      expect(bodyOf(answer)).toEqual({
        success: false,
        code: "METHOD_NOT_ALLOWED",
        error: `Method ${line.split(" ")[0]} is not allowed on this API`,
      })
    }
  })

  it("answers a request Node cannot parse 400 in the envelope", async () => {
    const answer = await raw("NOT A REQUEST\r\n\r\n")
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(bodyOf(answer)).toMatchObject({ success: false, code: "BAD_REQUEST" })
  })

  it("keeps serving", async () => {
    expect((await fetch(`${api.url}/`)).status).toBe(200)
  })
})

describe("attachClientErrorEnvelope on a server of your own", () => {
  const withServer = async (setUp: (server: Server) => void, run: (port: number) => Promise<void>) => {
    const server = createServer((_req, res) => res.end("ok"))
    setUp(server)
    const listening = await listenOnLoopback(server)
    try {
      await run(Number(new URL(listening.url).port))
    } finally {
      await listening.close()
    }
  }

  it("answers headers over Node's limit 431 in the envelope", () =>
    withServer(attachClientErrorEnvelope, async (own) => {
      const answer = await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`, own)
      expect(answer).toMatch(/^HTTP\/1\.1 431 /)
      expect(answer).toMatch(/content-length: \d+/i)
      expect(bodyOf(answer)).toMatchObject({ success: false, code: "REQUEST_HEADER_FIELDS_TOO_LARGE" })
    }))

  it("leaves CONNECT to the server's own listener", () =>
    withServer(
      (server) => {
        attachClientErrorEnvelope(server)
        server.on("connect", (_request, socket: Duplex) => socket.end("HTTP/1.1 200 Connection Established\r\n\r\n"))
      },
      async (own) => {
        const answer = await raw("CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", own)
        expect(answer).toBe("HTTP/1.1 200 Connection Established\r\n\r\n")
      },
    ))
})

describe("forwarding headers", () => {
  const startCrawl = async (url: string, headers: Record<string, string>) => {
    const response = await fetch(`${url}/v2/crawl`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ url: "https://example.com" }),
    })
    return ((await response.json()) as { url: string }).url
  }
  const spoofed = {
    "x-forwarded-proto": "javascript",
    "x-forwarded-host": "evil.example",
    "x-forwarded-prefix": "/x",
  }

  it("are ignored from a peer Express does not trust", async () => {
    const answer = await startCrawl(api.url, spoofed)
    expect(answer).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/v2/crawl/`))
  })

  it("are honoured from a trusted proxy (WEBDATA_TRUST_PROXY / trustProxy), when they are valid", async () => {
    const proxied = await serve({
      port: 0,
      engine: Engine.layer({ worker: false }),
      serverConfig: ServerConfig.layer(),
      trustProxy: "loopback",
    })
    try {
      const honoured = await startCrawl(proxied.url, {
        "x-forwarded-proto": "https",
        "x-forwarded-host": "api.example.org",
        "x-forwarded-prefix": "/firecrawl",
      })
      expect(honoured).toMatch(/^https:\/\/api\.example\.org\/firecrawl\/v2\/crawl\//)
      const invalid = await startCrawl(proxied.url, { ...spoofed, "x-forwarded-host": "evil.example/path" })
      expect(invalid).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/x\/v2\/crawl\//)
    } finally {
      await proxied.close()
    }
  })
})
