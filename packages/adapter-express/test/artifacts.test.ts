/**
 * The artifact stores: with `artifacts` set, screenshots and PDFs are files served under `/v2/artifacts/{name}`, or
 * objects in an S3-compatible bucket (a fake one on loopback here), and documents carry their URLs instead of `data:`
 * URLs; names are random, anything else is 404.
 */
import { mkdtempSync, readdirSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { layer as browserLayer } from "@webdata/browser"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { AwsClient } from "aws4fetch"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executablePath } from "../../browser/test/support/chromium.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { hasValidSignature } from "../../core/test/support/sigV4.js"

const BASE = "https://files.example.test/v2/artifacts"
const directory = mkdtempSync(join(tmpdir(), "webdata-artifacts-"))
let site: Listening
let api: RunningServer
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end("<!doctype html><title>Chart</title><p>A chart worth keeping.</p>")
    }),
  )
  api = await serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      worker: false,
      browser: browserLayer({ executablePath }),
      artifacts: { directory, baseUrl: BASE },
    }),
    serverConfig: ServerConfig.layer({ apiKeys: [] }),
  })
})
afterAll(async () => {
  await api?.close()
  await site?.close()
})

it("keeps screenshots and PDFs as files and answers their URLs", async () => {
  const response = await fetch(`${api.url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: site.url, formats: ["markdown", "screenshot"], actions: [{ type: "pdf" }] }),
  })
  const { data } = (await response.json()) as { data: { screenshot: string; actions: { pdfs: Array<string> } } }
  expect(data.screenshot).toMatch(new RegExp(`^${BASE}/[0-9a-f]{32}\\.png$`))
  expect(data.actions.pdfs[0]).toMatch(new RegExp(`^${BASE}/[0-9a-f]{32}\\.pdf$`))
  expect(readdirSync(directory).sort()).toEqual(
    [data.screenshot, data.actions.pdfs[0]!].map((url) => url.slice(BASE.length + 1)).sort(),
  )
  const image = await fetch(`${api.url}/v2/artifacts/${data.screenshot.slice(BASE.length + 1)}`)
  expect(image.status).toBe(200)
  expect(image.headers.get("content-type")).toBe("image/png")
  expect(
    Buffer.from(await image.arrayBuffer())
      .subarray(1, 4)
      .toString(),
  ).toBe("PNG")
  const pdf = await fetch(`${api.url}/v2/artifacts/${data.actions.pdfs[0]!.slice(BASE.length + 1)}`)
  expect(
    Buffer.from(await pdf.arrayBuffer())
      .subarray(0, 5)
      .toString(),
  ).toBe("%PDF-")
})

it("answers 404 for names it did not give", async () => {
  for (const name of ["0123456789abcdef0123456789abcdef.png", "..%2F..%2Fetc%2Fpasswd", "x.png"]) {
    const response = await fetch(`${api.url}/v2/artifacts/${name}`)
    expect(response.status, name).toBe(404)
    expect(await response.json()).toMatchObject({ success: false, code: "NOT_FOUND" })
  }
})

describe("in an S3-compatible bucket", () => {
  const SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
  /** The fake bucket: objects by path; it answers 403, as S3 does, to a request whose signature does not check out. */
  const objects = new Map<string, { readonly type: string; readonly bytes: Buffer }>()
  const puts: Array<string> = []
  let s3: Listening
  let bucketApi: RunningServer
  beforeAll(async () => {
    s3 = await listenOnLoopback(
      createServer(async (req, res) => {
        const url = new URL(req.url ?? "/", "http://s3.test")
        const chunks: Array<Buffer> = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const body = Buffer.concat(chunks)
        const signed = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body }
        if (!hasValidSignature(signed, SECRET)) return void res.writeHead(403).end("SignatureDoesNotMatch")
        if (req.method === "PUT") {
          puts.push(url.pathname)
          objects.set(url.pathname, { type: String(req.headers["content-type"]), bytes: body })
          return void res.writeHead(200).end()
        }
        const object = objects.get(url.pathname)
        if (object === undefined) return void res.writeHead(404).end()
        res.writeHead(200, { "content-type": object.type }).end(object.bytes)
      }),
    )
    bucketApi = await serve({
      port: 0,
      engine: Engine.layer({
        allowPrivateAddresses: true,
        worker: false,
        browser: browserLayer({ executablePath }),
        artifacts: {
          bucket: "shots",
          prefix: "webdata/",
          endpoint: s3.url,
          region: "eu-west-1",
          accessKeyId: "AKIDEXAMPLE",
          secretAccessKey: SECRET,
        },
      }),
      serverConfig: ServerConfig.layer({ apiKeys: [] }),
    })
  })
  afterAll(async () => {
    await bucketApi?.close()
    await s3?.close()
  })

  it("puts screenshots in the bucket with signed requests and answers presigned URLs", async () => {
    const response = await fetch(`${bucketApi.url}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: site.url, formats: ["screenshot"] }),
    })
    const { data } = (await response.json()) as { data: { screenshot: string } }
    const url = new URL(data.screenshot)
    expect(url.origin).toBe(s3.url)
    expect(url.pathname).toMatch(/^\/shots\/webdata\/[0-9a-f]{32}\.png$/)
    expect(url.searchParams.get("X-Amz-Expires")).toBe("86400")
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/)
    expect(puts).toEqual([url.pathname])
    // The fake bucket checks signatures: a URL signed with another secret, or altered, is refused.
    const tampered = new URL(data.screenshot)
    tampered.searchParams.set("X-Amz-Expires", "604800")
    expect((await fetch(tampered)).status).toBe(403)
    const image = await fetch(data.screenshot)
    expect(image.headers.get("content-type")).toBe("image/png")
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG")
  })

  it("has a bucket that refuses what a wrong secret signed", async () => {
    const signedBy = (secretAccessKey: string) =>
      new AwsClient({ accessKeyId: "AKIDEXAMPLE", secretAccessKey, service: "s3", region: "eu-west-1" }).sign(
        `${s3.url}/shots/probe.txt`,
        { method: "PUT", body: "probe", headers: { "content-type": "text/plain" } },
      )
    for (const [secret, valid] of [
      [SECRET, true],
      ["not-the-secret", false],
    ] as const) {
      const request = await signedBy(secret)
      const headers = Object.fromEntries([...request.headers, ["host", new URL(s3.url).host]])
      const url = new URL(request.url)
      expect(
        hasValidSignature(
          { method: "PUT", url: url.pathname + url.search, headers, body: Buffer.from("probe") },
          SECRET,
        ),
        secret,
      ).toBe(valid)
    }
  })
})
