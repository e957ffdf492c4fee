/**
 * The official Firecrawl SDK against the Lambda handler, through a local shim that plays API Gateway (HTTP API, stage
 * `prod`): each request becomes a payload 2.0 event with a base64 body, each result an HTTP response. The crawl's
 * status pages are followed through `next`, whose URL must carry the stage.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, ServerConfig } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CrawlSite, chainPages, startCrawlSite } from "../../../core/test/support/crawlSite.js"
import { type Listening, listenOnLoopback } from "../../../core/test/support/loopback.js"
import { type ApiGatewayV2Result, type LambdaHttpHandler, toLambdaHandler } from "../../src/http/index.js"

const STAGE = "prod"

/** API Gateway in front of the handler, on 127.0.0.1. */
const startShim = async (handler: LambdaHttpHandler): Promise<Listening> => {
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk)
    const url = new URL(req.url ?? "/", "http://shim")
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && name !== "cookie") headers[name] = Array.isArray(value) ? value.join(",") : value
    // What API Gateway adds; the shim speaks plain HTTP.
    headers["x-forwarded-proto"] = "http"
    headers["x-forwarded-for"] = req.socket.remoteAddress ?? "127.0.0.1"
    const cookies = req.headers.cookie?.split("; ")
    const event = {
      version: "2.0" as const,
      routeKey: "$default",
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      ...(cookies !== undefined ? { cookies } : {}),
      headers,
      requestContext: {
        accountId: "123456789012",
        apiId: "local",
        domainName: headers.host ?? "127.0.0.1",
        http: {
          method: req.method ?? "GET",
          path: url.pathname,
          protocol: "HTTP/1.1",
          sourceIp: "127.0.0.1",
          userAgent: headers["user-agent"] ?? "",
        },
        requestId: `req-${Date.now()}`,
        routeKey: "$default",
        stage: STAGE,
        time: new Date().toUTCString(),
        timeEpoch: Date.now(),
      },
      body: Buffer.concat(chunks).toString("base64"),
      isBase64Encoded: true,
    }
    const result = (await handler(event)) as ApiGatewayV2Result
    res.statusCode = result.statusCode
    for (const [name, value] of Object.entries(result.headers))
      if (name !== "content-length") res.setHeader(name, value)
    if (result.cookies.length > 0) res.setHeader("set-cookie", [...result.cookies])
    res.end(Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8"))
  }
  return listenOnLoopback(
    createServer((req, res) => {
      serve(req, res).catch((error: unknown) => {
        res.statusCode = 502
        res.end(String(error))
      })
    }),
  )
}

let site: CrawlSite
let shim: Listening
let client: Firecrawl
const handler = toLambdaHandler(Engine.layer({ allowPrivateAddresses: true }), {
  serverConfig: ServerConfig.layer({ apiKeys: ["sdk-key"] }),
})

beforeAll(async () => {
  // 121 pages: two status pages of at most 100 documents.
  site = await startCrawlSite({ pages: chainPages(120) })
  shim = await startShim(handler)
  client = new Firecrawl({ apiUrl: `${shim.url}/${STAGE}`, apiKey: "sdk-key" })
})
afterAll(async () => {
  await shim?.close()
  await handler.dispose()
  await site?.close()
})

describe("the Firecrawl SDK through API Gateway (HTTP API, stage prod) to the Lambda handler", () => {
  it("scrape() returns the page's markdown", async () => {
    const document = await client.scrape(`${site.url}/p/3`, { formats: ["markdown"] })
    expect(document.markdown).toContain("This is the content of the page at /p/3")
    expect(document.metadata?.sourceURL).toBe(`${site.url}/p/3`)
    expect(document.metadata?.statusCode).toBe(200)
  })

  it("a wrong key is refused", async () => {
    const stranger = new Firecrawl({ apiUrl: `${shim.url}/${STAGE}`, apiKey: "wrong-key" })
    await expect(stranger.scrape(`${site.url}/p/1`)).rejects.toMatchObject({ status: 401 })
  })

  it("crawl() follows `next` under the stage until every page is in", async () => {
    const started = await client.startCrawl(site.url, { sitemap: "skip" })
    expect(started.url).toBe(`${shim.url}/${STAGE}/v2/crawl/${started.id}`)
    let status = await client.getCrawlStatus(started.id, { autoPaginate: false })
    for (const deadline = Date.now() + 30_000; status.status === "scraping" && Date.now() < deadline; )
      status = await client.getCrawlStatus(started.id, { autoPaginate: false })
    expect(status.status).toBe("completed")
    expect(status.data).toHaveLength(100)
    expect(status.next).toBe(`${shim.url}/${STAGE}/v2/crawl/${started.id}?skip=100`)
    const all = await client.getCrawlStatus(started.id)
    expect(all.next).toBeNull()
    const paths = all.data.map((document) => new URL(document.metadata?.sourceURL ?? "").pathname)
    expect(new Set(paths).size).toBe(121)
  })
})
