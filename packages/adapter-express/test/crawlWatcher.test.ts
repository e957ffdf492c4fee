/**
 * The crawl WebSocket: the SDK's `watcher()` over it, Firecrawl's handshake and close codes with a raw client, and
 * the adapter's handling of paths, prefixes and clients that leave.
 */
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import Firecrawl, { type Document } from "@mendable/firecrawl-js"
import { type CrawlWatch, Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket, WebSocketServer } from "ws"
import { type CrawlSite, chainPages, startCrawlSite } from "../../core/test/support/crawlSite.js"
import { attachCrawlWatcher, webdataRouter } from "../src/index.js"
import { startTestApi } from "./support/apiWithSite.js"

interface Recorded {
  readonly protocol: string
  readonly messages: Array<{ type: string; data?: unknown }>
  close?: { code: number; reason: string }
}

/** The sockets the SDK opened, with what went over them. */
const recorded: Array<Recorded> = []

/**
 * Node 20 has no global WebSocket (and no `node:undici`), so the SDK would only poll. Give it `ws`'s, which follows the
 * browser API, and record what it sees.
 */
class RecordingWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | Array<string>) {
    super(url, protocols)
    const entry: Recorded = { protocol: "", messages: [] }
    recorded.push(entry)
    this.on("open", () => Object.assign(entry, { protocol: this.protocol }))
    this.on("message", (data) => entry.messages.push(JSON.parse(String(data))))
    this.on("close", (code, reason) => Object.assign(entry, { close: { code, reason: String(reason) } }))
  }
}

let site: CrawlSite
let api: RunningServer
let client: Firecrawl
const saved = (globalThis as { WebSocket?: unknown }).WebSocket

beforeAll(async () => {
  ;(globalThis as { WebSocket?: unknown }).WebSocket = RecordingWebSocket
  site = await startCrawlSite({ pages: chainPages(30, { delayMs: 30 }) })
  api = await startTestApi(["test-key", "other-key"])
  client = new Firecrawl({ apiUrl: api.url, apiKey: "test-key" })
})
afterAll(async () => {
  ;(globalThis as { WebSocket?: unknown }).WebSocket = saved
  await api?.close()
  await site?.close()
})

const allPaths = ["/", ...Array.from({ length: 30 }, (_, i) => `/p/${i}`)].sort()
const pathOf = (document: Document) => new URL(document.metadata?.sourceURL ?? "").pathname
const catchupDocuments = (message: { data?: unknown } | undefined): Array<Document> =>
  (message?.data as { data?: Array<Document> } | undefined)?.data ?? []
const wsUrl = (base: string, path: string) => `${base.replace(/^http/, "ws")}${path}`

/** What a raw client gets: the negotiated subprotocol, the messages, the close (or the handshake's failure). */
const watchRaw = (url: string, options: { protocols?: Array<string>; headers?: Record<string, string> } = {}) =>
  new Promise<{ protocol: string; messages: Array<{ type: string; data: never }>; code: number; reason: string }>(
    (resolve, reject) => {
      const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} })
      const messages: Array<{ type: string; data: never }> = []
      socket.on("message", (data) => messages.push(JSON.parse(String(data))))
      socket.on("error", reject)
      socket.on("close", (code, reason) =>
        resolve({ protocol: socket.protocol, messages, code, reason: String(reason) }),
      )
    },
  )

const waitFor = async (check: () => Promise<boolean>) => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("condition not reached in time")
}

describe("watcher() of the Firecrawl SDK", () => {
  it("gets every document of a running crawl once over the WebSocket and ends with done", async () => {
    const started = await client.startCrawl(site.url, { sitemap: "skip", maxConcurrency: 2 })
    const watcher = client.watcher(started.id, { kind: "crawl", pollInterval: 0.1, timeout: 20 })
    const documents: Array<Document> = []
    const done: Array<{ status: string; data: ReadonlyArray<Document> }> = []
    const errors: Array<unknown> = []
    watcher.on("document", (document: Document) => documents.push(document))
    watcher.on("done", (event) => done.push(event))
    watcher.on("error", (event) => errors.push(event))
    await watcher.start()

    expect(errors).toEqual([])
    expect(done).toHaveLength(1)
    expect(done[0]?.status).toBe("completed")
    expect(documents.map(pathOf).sort()).toEqual(allPaths)

    // It went over the socket: the key echoed as subprotocol, catchup first, documents after, done as close reason.
    expect(recorded).toHaveLength(1)
    const socket = recorded[0]
    const [catchup, ...later] = socket?.messages ?? []
    expect(socket?.protocol).toBe("test-key")
    expect(catchup?.type).toBe("catchup")
    expect(later.length).toBeGreaterThan(0)
    expect(later.every((message) => message.type === "document")).toBe(true)
    const overSocket = [...catchupDocuments(catchup), ...later.map((message) => message.data as Document)]
    expect(overSocket.map(pathOf).sort()).toEqual(allPaths)
    expect(socket?.close).toEqual({ code: 1000, reason: '{"type":"done"}' })
  })

  it("watches a batch scrape over its WebSocket too (Firecrawl has none: the SDK would end with an error)", async () => {
    const started = await client.startBatchScrape([`${site.url}/p/1`, `${site.url}/p/2`])
    const watcher = client.watcher(started.id, { kind: "batch", pollInterval: 0.1, timeout: 20 })
    const documents: Array<Document> = []
    let status: string | undefined
    watcher.on("document", (document: Document) => documents.push(document))
    watcher.on("done", (event: { status: string }) => {
      status = event.status
    })
    await watcher.start()
    expect(status).toBe("completed")
    expect(documents.map(pathOf).sort()).toEqual(["/p/1", "/p/2"])
    expect(recorded).toHaveLength(2)
    expect(recorded[1]?.protocol).toBe("test-key")
    expect(recorded[1]?.messages[0]?.type).toBe("catchup")
  })

  it("watches a crawl and a batch scrape at v1's crawl route with the SDK's v1 client", async () => {
    const v1 = client.v1
    const watchAll = async (watcher: EventTarget) => {
      const documents: Array<Document> = []
      watcher.addEventListener("document", (event) => documents.push((event as CustomEvent<Document>).detail))
      const ended = await new Promise<{ status: string }>((resolve) => {
        for (const type of ["done", "error"])
          watcher.addEventListener(type, (event) => resolve((event as CustomEvent<{ status: string }>).detail))
      })
      return { status: ended.status, paths: [...new Set(documents.map(pathOf))].sort() }
    }
    const crawl = await watchAll(await v1.crawlUrlAndWatch(site.url, { limit: 4, ignoreSitemap: true }))
    expect(crawl.status).toBe("completed")
    expect(crawl.paths).toHaveLength(4)
    const batch = await watchAll(await v1.batchScrapeUrlsAndWatch([`${site.url}/p/3`, `${site.url}/p/4`], {}))
    expect(batch).toEqual({ status: "completed", paths: ["/p/3", "/p/4"] })
    const sockets = recorded.slice(-2)
    expect(sockets.map((socket) => socket.protocol)).toEqual(["test-key", "test-key"])
    expect(sockets.map((socket) => socket.messages[0]?.type)).toEqual(["catchup", "catchup"])
  })
})

describe("the crawl WebSocket", () => {
  let finishedId: string
  beforeAll(async () => {
    finishedId = (await client.crawl(site.url, { sitemap: "skip", limit: 3, pollInterval: 0.1, timeout: 20 })).id
  })

  it("sends a finished crawl's catchup with every document, then closes 1000 done; the key may be a header", async () => {
    const byProtocol = await watchRaw(wsUrl(api.url, `/v2/crawl/${finishedId}`), { protocols: ["test-key"] })
    expect(byProtocol.protocol).toBe("test-key")
    expect(byProtocol.messages).toHaveLength(1)
    expect(byProtocol.messages[0]).toMatchObject({
      type: "catchup",
      data: { success: true, status: "completed", completed: 3, total: 3 },
    })
    expect(catchupDocuments(byProtocol.messages[0])).toHaveLength(3)
    expect([byProtocol.code, byProtocol.reason]).toEqual([1000, '{"type":"done"}'])

    const byHeader = await watchRaw(wsUrl(api.url, `/v2/crawl/${finishedId}`), {
      headers: { authorization: "Bearer test-key" },
    })
    expect(byHeader.messages).toEqual(byProtocol.messages)
    expect(byHeader.code).toBe(1000)
  })

  it("closes with Firecrawl's codes for a bad id, a bad key and another key's crawl", async () => {
    const url = wsUrl(api.url, `/v2/crawl/${finishedId}`)
    const invalid = await watchRaw(wsUrl(api.url, "/v2/crawl/nope"), { protocols: ["test-key"] })
    expect([invalid.code, invalid.reason]).toEqual([1008, "Invalid job ID"])
    const wrong = await watchRaw(url, { protocols: ["wrong-key"] })
    expect([wrong.code, JSON.parse(wrong.reason)]).toEqual([
      3000,
      { type: "error", error: "Unauthorized: Invalid token" },
    ])
    const missing = await watchRaw(url)
    expect(missing.code).toBe(3000)
    const notFound = [1008, '{"type":"error","error":"Job not found"}', []]
    const stranger = await watchRaw(url, { protocols: ["other-key"] })
    expect([stranger.code, stranger.reason, stranger.messages]).toEqual(notFound)
    const asBatch = await watchRaw(wsUrl(api.url, `/v2/batch/scrape/${finishedId}`), { protocols: ["test-key"] })
    expect([asBatch.code, asBatch.reason, asBatch.messages]).toEqual(notFound)
  })

  it("refuses upgrades on other paths with 404", async () => {
    await expect(watchRaw(wsUrl(api.url, `/v2/scrape/${finishedId}`))).rejects.toThrow(/404/)
    await expect(watchRaw(wsUrl(api.url, `/v2/crawl/${finishedId}/errors`))).rejects.toThrow(/404/)
  })

  it("closes open watches with 1001 when the server shuts down", async () => {
    const own = await serve({
      port: 0,
      engine: Engine.layer({ allowPrivateAddresses: true }),
      serverConfig: ServerConfig.layer({ apiKeys: ["test-key"] }),
    })
    const started = await new Firecrawl({ apiUrl: own.url, apiKey: "test-key" }).startCrawl(site.url, {
      sitemap: "skip",
      maxConcurrency: 1,
      delay: 1,
    })
    const watching = watchRaw(wsUrl(own.url, `/v2/crawl/${started.id}`), { protocols: ["test-key"] })
    await new Promise((resolve) => setTimeout(resolve, 200))
    await own.close()
    const closed = await watching
    expect(closed.messages[0]?.type).toBe("catchup")
    expect(closed.code).toBe(1001)
  })
})

describe("attachCrawlWatcher()", () => {
  const listen = async (app: express.Express) =>
    new Promise<Server>((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve(server))
    })
  const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  it("serves the watcher of a router mounted under a prefix, on the app's own server", async () => {
    const router = webdataRouter({ engineOptions: { allowPrivateAddresses: true }, apiKeys: ["k"] })
    const app = express()
    app.use("/api", router)
    const server = await listen(app)
    const watcher = attachCrawlWatcher(server, router, { prefix: "/api/" })
    try {
      const sdk = new Firecrawl({ apiUrl: `${urlOf(server)}/api`, apiKey: "k" })
      const job = await sdk.crawl(site.url, { sitemap: "skip", limit: 2, pollInterval: 0.1, timeout: 20 })
      const watched = await watchRaw(wsUrl(urlOf(server), `/api/v2/crawl/${job.id}`), { protocols: ["k"] })
      expect(watched.messages[0]).toMatchObject({ type: "catchup", data: { status: "completed", completed: 2 } })
      expect(watched.code).toBe(1000)
      await expect(watchRaw(wsUrl(urlOf(server), `/v2/crawl/${job.id}`), { protocols: ["k"] })).rejects.toThrow(/404/)
    } finally {
      watcher.close()
      await new Promise((resolve) => server.close(resolve))
      await router.dispose()
    }
  })

  it("leaves other upgrade paths to the server's other listeners", async () => {
    const server = await listen(express())
    const chat = new WebSocketServer({ noServer: true })
    server.on("upgrade", (request, socket, head) => {
      if (request.url === "/chat") chat.handleUpgrade(request, socket, head, (ws) => ws.send("hello"))
    })
    const watcher = attachCrawlWatcher(server, {
      watchJob: () => {
        throw new Error("not a watch path")
      },
    })
    try {
      const socket = new WebSocket(wsUrl(urlOf(server), "/chat"))
      expect(String(await new Promise((resolve) => socket.once("message", resolve)))).toBe("hello")
      socket.close()
    } finally {
      watcher.close()
      chat.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("stops the watch when the client goes away", async () => {
    let stopped = false
    let waiting: (() => void) | undefined
    const source = {
      watchJob: (): AsyncIterable<CrawlWatch.WatchEvent> => ({
        [Symbol.asyncIterator]: () => {
          let sent = false
          return {
            next: async () => {
              if (!sent) {
                sent = true
                return { done: false, value: { _tag: "Message", text: '{"type":"catchup","data":{}}' } as const }
              }
              // Never another event: only the client can end this watch.
              return new Promise<IteratorResult<CrawlWatch.WatchEvent>>((resolve) => {
                waiting = () => resolve({ done: true, value: undefined })
              })
            },
            return: async () => {
              stopped = true
              waiting?.()
              return { done: true, value: undefined }
            },
          }
        },
      }),
    }
    const server = await listen(express())
    const watcher = attachCrawlWatcher(server, source)
    try {
      const socket = new WebSocket(wsUrl(urlOf(server), "/v2/crawl/any"), ["k"])
      await new Promise((resolve) => socket.once("message", resolve))
      expect(stopped).toBe(false)
      socket.terminate()
      await waitFor(async () => stopped)
    } finally {
      watcher.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
