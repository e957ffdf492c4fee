/**
 * Files over HTTP: uploads to `POST /v2/parse` (by the official SDK's `parse()` and by hand), PDFs and office files
 * scraped, batch-scraped and crawled from a site on loopback, and hostile uploads, each answered with its clear error
 * while the server keeps answering others.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, ServerConfig } from "@webdata/core"
import * as Parse from "@webdata/parse"
import { type RunningServer, serve } from "@webdata/server"
import { ConfigProvider, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"

const fixture = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../parse/test/fixtures/${path}`, import.meta.url)))

const KEY = "parse-key"
let site: Listening
let api: RunningServer
let client: Firecrawl

beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((req, res) => {
      if (req.url === "/") {
        res.writeHead(200, { "content-type": "text/html" })
        return void res.end(
          `<!doctype html><title>Reports</title><h1>Reports</h1><p>The <a href="/files/report.pdf">survey</a> and the <a href="/files/report.docx">field report</a>.</p>`,
        )
      }
      const files: Record<string, readonly [string, string]> = {
        "/files/report.pdf": ["pdf/report.pdf", "application/pdf"],
        // Servers often send files as octet-stream: the bytes say what they are.
        "/files/report.docx": ["office/report.docx", "application/octet-stream"],
        "/files/scan.pdf": ["pdf/scanned.pdf", "application/pdf"],
        "/files/sales.xlsx": ["office/sales.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
        // A misconfigured server: the bytes, not the header, say it is a PDF.
        "/files/mislabelled": ["pdf/report.pdf", "text/html; charset=utf-8"],
      }
      const file = files[req.url ?? ""]
      if (file === undefined) {
        res.writeHead(404)
        return void res.end()
      }
      res.writeHead(200, { "content-type": file[1] })
      res.end(fixture(file[0]))
    }),
  )
  api = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true, parser: Parse.layer({ threads: 1 }) }),
    serverConfig: ServerConfig.layer({ apiKeys: [KEY], maxUploadBytes: 50 * 1024 * 1024 }),
  })
  client = new Firecrawl({ apiUrl: api.url, apiKey: KEY })
})
afterAll(async () => {
  await api?.close()
  await site?.close()
})

/** `bytes` uploaded as `name` (of content `type`, else octet-stream) to `to` (by default the API of these tests). */
const upload = (bytes: Uint8Array, name: string, options?: unknown, { to = api.url, type = "" } = {}) => {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array(bytes)], { type }), name)
  if (options !== undefined) form.append("options", JSON.stringify(options))
  return fetch(`${to}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form })
}

/** An upload's status and JSON body. */
const answerOf = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as { code?: string; error?: string; data?: { markdown?: string } },
})

const healthy = async () => (await fetch(`${api.url}/`)).status === 200

/** A crawl's or batch's documents by the path of their URL. */
const byPath = <D extends { metadata?: { sourceURL?: string } }>(documents: ReadonlyArray<D>) =>
  new Map(documents.map((document) => [new URL(document.metadata?.sourceURL ?? "").pathname, document]))

describe("POST /v2/parse", () => {
  it("parses uploads with the official SDK: DOCX, PDF with page markers and pages, XLSX", async () => {
    const docx = await client.parse({ data: fixture("office/report.docx"), filename: "report.docx" })
    expect(docx.markdown).toMatch(/^# Quarterly Field Report$/m)
    expect(docx.markdown).toContain("| Site 7 | 15.1 | Rising |")
    expect(docx.metadata?.title).toBe("Quarterly Field Report")
    expect(docx.metadata?.contentType).toContain("wordprocessingml")

    const pdf = await client.parse(
      { data: fixture("pdf/report.pdf"), filename: "report.pdf", contentType: "application/pdf" },
      { formats: ["markdown", "html"], parsers: [{ type: "pdf", pageMarkers: true, pages: true } as never] },
    )
    expect(pdf.metadata?.numPages).toBe(3)
    expect(pdf.markdown).toContain("\n\n---\n\n<!-- page 2 -->\n\n## Results")
    expect(pdf.markdown).not.toContain("<!-- page 1 -->")
    expect(pdf.html).toContain("<h2>Results</h2>")
    const pages = (pdf as { pages?: Array<{ pageNumber: number; markdown: string }> }).pages
    expect(pages?.map((page) => page.pageNumber)).toEqual([1, 2, 3])
    expect(pages?.[2]?.markdown).toContain("## Conclusions")

    const sheet = await client.parse({ data: fixture("office/sales.xlsx"), filename: "sales.xlsx" })
    expect(sheet.markdown).toContain("| South | 2024-02-20 | 8 | 4.25 | 34 |")
  })

  it("refuses options that need a page in a browser with PARSE_UNSUPPORTED_OPTIONS", async () => {
    for (const [options, named] of [
      [{ actions: [{ type: "wait", milliseconds: 10 }] }, "actions"],
      [{ formats: ["screenshot"] }, "screenshot"],
      [{ waitFor: 1000 }, "waitFor"],
      [{ mobile: true }, "mobile"],
      [{ location: { country: "de" } }, "location"],
    ] as const) {
      const response = await upload(fixture("office/data.csv"), "data.csv", options)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({
        success: false,
        code: "PARSE_UNSUPPORTED_OPTIONS",
        error: `Parse uploads do not support ${named}.`,
      })
    }
    // Options a scrape of this build cannot honour either are refused the same way, not ignored.
    const redact = await upload(fixture("office/data.csv"), "data.csv", { redactPII: true })
    expect(redact.status).toBe(400)
    expect(await redact.json()).toMatchObject({ success: false, code: "SCRAPE_REDACT_PII_NOT_SUPPORTED" })
    // What needs a model is refused as a scrape refuses it; a summary works without one (extractive).
    const prompted = await upload(fixture("office/data.csv"), "data.csv", {
      formats: [{ type: "json", prompt: "rows" }],
    })
    expect(await prompted.json()).toMatchObject({ success: false, code: "LLM_NOT_CONFIGURED" })
    const summary = await upload(fixture("office/report.docx"), "report.docx", { formats: ["summary"] })
    expect(summary.status).toBe(200)
    const summarised = (await summary.json()) as { data: { summary: string; metadata: { summaryMode: string } } }
    expect(summarised.data.metadata.summaryMode).toBe("extractive")
    expect(summarised.data.summary.length).toBeGreaterThan(20)
  })

  it("answers bad uploads with clear errors: not multipart, no file, bad options JSON, unknown option", async () => {
    const json = await fetch(`${api.url}/v2/parse`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: "{}",
    })
    expect(json.status).toBe(400)
    const form = new FormData()
    form.append("options", "{}")
    const noFile = await fetch(`${api.url}/v2/parse`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: form,
    })
    expect(noFile.status).toBe(400)
    expect(((await noFile.json()) as { error: string }).error).toMatch(/file/)
    const withBadJson = new FormData()
    withBadJson.append("file", new Blob([fixture("office/data.csv")]), "data.csv")
    withBadJson.append("options", "{formats: markdown")
    const badJson = await fetch(`${api.url}/v2/parse`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: withBadJson,
    })
    expect(badJson.status).toBe(400)
    expect(((await badJson.json()) as { error: string }).error).toMatch(/options field is not valid JSON/)
    const unknown = await upload(fixture("office/data.csv"), "data.csv", { colour: "red" })
    expect(unknown.status).toBe(400)
    expect(JSON.stringify(await unknown.json())).toContain('"colour"')
  })

  it("reads macro-enabled DOCM and XLSM; refuses a Word 97 file with 415 and says to save it as DOCX", async () => {
    const docm = await answerOf(await upload(fixture("office/report.docm"), "report.docm"))
    expect(docm.body.data?.markdown).toMatch(/^## Findings$/m)
    expect(docm.body.data?.markdown).toContain("| Site 7 | 15.1 | Rising |")
    const xlsm = await answerOf(await upload(fixture("office/sales.xlsm"), "sales.xlsm"))
    expect(xlsm.body.data?.markdown).toMatch(/^## Sales$/m)
    expect(xlsm.body.data?.markdown).toContain("| South | 2024-02-20 | 8 | 4.25 | 34 |")
    expect(await answerOf(await upload(fixture("office/report.doc"), "report.doc"))).toEqual({
      status: 415,
      body: {
        success: false,
        code: "SCRAPE_UNSUPPORTED_FILE_ERROR",
        error: "report.doc is a legacy binary DOC file, which is not read: save it as DOCX and send that.",
      },
    })
  })

  it("reads XHTML, XML, JSON and plain text uploads, by their content type or else by their bytes and name", async () => {
    // Each: name, content type, content, what the markdown holds however it is sent, and what only with its type.
    const cases: ReadonlyArray<readonly [string, string, string, string | RegExp, ReadonlyArray<string | RegExp>]> = [
      [
        "tides.xhtml",
        "application/xhtml+xml",
        `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Tide Tables</title></head><body><h1>Tide Tables</h1><p>High water at <b>06:12</b> today.</p></body></html>`,
        "High water at **06:12** today.",
        [/^# Tide Tables$/m],
      ],
      [
        "catalog.xml",
        "application/xml",
        `<?xml version="1.0"?><catalog><chart id="7">Sea Charts of the Sound</chart></catalog>`,
        '<chart id="7">Sea Charts of the Sound</chart>',
        [/^```xml$/m],
      ],
      [
        "station.json",
        "application/json",
        `{"station":"Gull Rock","range":3.8}`,
        "Gull Rock",
        [/^ {2}"station": "Gull Rock",$/m],
      ],
      [
        "notes.txt",
        "text/plain",
        "Harbour notes\n\nThe quay is closed on Sundays.\n",
        /^The quay is closed on Sundays\.$/m,
        [],
      ],
    ]
    for (const [name, type, content, text, typedOnly] of cases) {
      const typed = await answerOf(await upload(Buffer.from(content), name, undefined, { type }))
      for (const each of [text, ...typedOnly]) expect(typed.body.data?.markdown, name).toMatch(each)
      // Sent as octet-stream, the text still comes through (XHTML as a page, by its extension).
      const untyped = await answerOf(await upload(Buffer.from(content), name))
      expect(untyped.body.data?.markdown, name).toMatch(text)
    }
  })

  it("answers hostile and broken files with 4xx, and other requests while they are being parsed", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")
    const cases: ReadonlyArray<readonly [Uint8Array, string, number, string, RegExp?]> = [
      [fixture("office/bomb.docx"), "bomb.docx", 422, "PARSE_FAILED", /zip bomb|unpacks to more than/],
      [fixture("office/bomb-lying.docx"), "bomb-lying.docx", 422, "PARSE_FAILED", /zip bomb|unpacks to more than/],
      [fixture("pdf/encrypted.pdf"), "encrypted.pdf", 422, "PARSE_FAILED", /encrypted/],
      [fixture("office/truncated.docx"), "truncated.docx", 422, "PARSE_FAILED"],
      // Cut at 40%: no cross-reference table, no page pdf.js can recover; the answer says the file is cut short.
      [fixture("pdf/truncated.pdf"), "truncated.pdf", 422, "PARSE_FAILED", /^The PDF is truncated/],
      [fixture("office/laughs.docx"), "laughs.docx", 422, "PARSE_FAILED", /declares XML entities/],
      [new Uint8Array(0), "empty.pdf", 422, "PARSE_FAILED", /empty/],
      [png, "scan.pdf", 415, "SCRAPE_UNSUPPORTED_FILE_ERROR", /an image/],
    ]
    // Everything at once, with a PDF read by OCR (seconds of work, bounded by its timeout) on the one parse thread.
    let parsing = true
    const slow = upload(fixture("pdf/report.pdf"), "report.pdf", {
      timeout: 5000,
      parsers: [{ type: "pdf", mode: "ocr" }],
    }).then(answerOf)
    const all = Promise.all([slow, ...cases.map(([bytes, name]) => upload(bytes, name).then(answerOf))]).finally(() => {
      parsing = false
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const asked = Date.now()
    expect(await healthy()).toBe(true)
    expect(Date.now() - asked).toBeLessThan(1000)
    // The health answer came while the files were still being parsed, not after.
    expect(parsing).toBe(true)
    const [slowAnswer, ...answers] = await all
    expect([200, 408]).toContain(slowAnswer!.status)
    for (const [index, [, name, status, code, message]] of cases.entries()) {
      expect(answers[index], name).toMatchObject({ status, body: { success: false, code } })
      expect(answers[index]!.body.error, name).toMatch(message ?? /.{10}/)
    }
    // Billion laughs in a sheet: the entity stays unexpanded text, answered at once.
    const laughsAsked = Date.now()
    const laughs = await answerOf(await upload(fixture("office/laughs.xlsx"), "laughs.xlsx"))
    expect(Date.now() - laughsAsked).toBeLessThan(3000)
    expect(laughs.status).toBe(200)
    expect(laughs.body.data?.markdown).toContain("Laughs:")
    expect(laughs.body.data?.markdown?.length).toBeLessThan(200)
    // A declared billion-cell sheet is read at once.
    const huge = await upload(fixture("office/huge-range.xlsx"), "huge.xlsx")
    expect(huge.status).toBe(200)
    expect(await healthy()).toBe(true)
  })

  it("answers a 60 MB upload 413 without reading it all, and answers others meanwhile", async () => {
    const big = new Uint8Array(60 * 1024 * 1024)
    const [response, health] = await Promise.all([upload(big, "big.pdf"), healthy()])
    expect(response.status).toBe(413)
    expect(((await response.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE")
    expect(health).toBe(true)
    // Streamed without a length: the cap holds while the body arrives.
    const chunk = new Uint8Array(1024 * 1024)
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(
            new TextEncoder().encode('--x\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n'),
          )
        sent++
        if (sent > 80) controller.close()
        else controller.enqueue(chunk)
      },
    })
    const streamed = await fetch(`${api.url}/v2/parse`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "multipart/form-data; boundary=x" },
      body: stream,
      duplex: "half",
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(sent).toBeLessThan(80)
  })

  it("stops a file that takes longer than its timeout with SCRAPE_TIMEOUT, and parses the next one", async () => {
    const started = Date.now()
    const slow = await upload(fixture("pdf/report.pdf"), "report.pdf", {
      timeout: 1000,
      parsers: [{ type: "pdf", mode: "ocr" }],
    })
    expect(slow.status).toBe(408)
    expect(((await slow.json()) as { code: string }).code).toBe("SCRAPE_TIMEOUT")
    expect(Date.now() - started).toBeLessThan(4000)
    const next = await upload(fixture("office/data.tsv"), "data.tsv")
    expect(next.status).toBe(200)
  })
})

describe("files on the web", () => {
  it("scrapes a PDF and an office file served as octet-stream; parsers: [] gives the PDF as base64", async () => {
    const pdf = await client.scrape(`${site.url}/files/report.pdf`, { formats: ["markdown"] })
    expect(pdf.markdown).toMatch(/^# Tidal Energy Survey$/m)
    expect(pdf.metadata?.numPages).toBe(3)
    expect(pdf.metadata?.contentType).toBe("application/pdf")
    const docx = await client.scrape(`${site.url}/files/report.docx`, { formats: ["markdown"] })
    expect(docx.markdown).toContain("[survey handbook](https://example.com/report)")
    const raw = await client.scrape(`${site.url}/files/report.pdf`, { formats: ["markdown"], parsers: [] })
    expect(
      Buffer.from(raw.markdown ?? "", "base64")
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-")
    const limited = await client.scrape(`${site.url}/files/report.pdf`, {
      formats: ["markdown"],
      parsers: [{ type: "pdf", maxPages: 1 } as never],
    })
    expect(limited.metadata?.numPages).toBe(1)
    expect(limited.markdown).not.toContain("Conclusions")
  })

  it("reads a scanned PDF by OCR and serves the next scrape of it from the cache", async () => {
    const first = await client.scrape(`${site.url}/files/scan.pdf`, { formats: ["markdown"] })
    expect(first.markdown).toMatch(/quick brown fox/i)
    const again = await client.scrape(`${site.url}/files/scan.pdf`, { formats: ["markdown"] })
    expect(again.metadata?.cacheState).toBe("hit")
    expect(again.markdown).toBe(first.markdown)
  })

  it("reads a PDF served as text/html by its bytes, and reports its real content type", async () => {
    const pdf = await client.scrape(`${site.url}/files/mislabelled`, { formats: ["markdown"] })
    expect(pdf.markdown).toMatch(/^# Tidal Energy Survey$/m)
    expect(pdf.markdown).toContain("| Harbour Mouth | 5.1 | 2.9 |")
    expect(pdf.metadata?.contentType).toBe("application/pdf")
  })

  it("crawls a site whose pages link to files, and includes them", async () => {
    const job = await client.crawl(site.url, { sitemap: "skip", limit: 10, pollInterval: 0.1, timeout: 30 })
    expect(job.status).toBe("completed")
    const documents = byPath(job.data)
    expect([...documents.keys()].sort()).toEqual(["/", "/files/report.docx", "/files/report.pdf"])
    expect(documents.get("/files/report.pdf")?.markdown).toContain("## Results")
    expect(documents.get("/files/report.docx")?.markdown).toContain("## Findings")
  })

  it("batch-scrapes a PDF and a workbook into documents with their text", async () => {
    const job = await client.batchScrape([`${site.url}/files/report.pdf`, `${site.url}/files/sales.xlsx`], {
      options: { formats: ["markdown"] },
      pollInterval: 0.1,
      timeout: 30,
    })
    expect(job.status).toBe("completed")
    const documents = byPath(job.data)
    expect([...documents.keys()].sort()).toEqual(["/files/report.pdf", "/files/sales.xlsx"])
    expect(documents.get("/files/report.pdf")?.markdown).toMatch(/^## Conclusions$/m)
    expect(documents.get("/files/report.pdf")?.metadata?.numPages).toBe(3)
    expect(documents.get("/files/sales.xlsx")?.markdown).toContain("| West | 2024-03-28 | 5 | 10 | 50 |")
  })
})

describe("WEBDATA_MAX_UPLOAD_BYTES", () => {
  it("caps uploads at the size the environment sets: 413 past it, parsed below it", async () => {
    // The variables as the server's Config reads them from the environment, without changing this process's.
    const environment = ConfigProvider.fromMap(
      new Map([
        ["WEBDATA_API_KEYS", KEY],
        ["WEBDATA_MAX_UPLOAD_BYTES", "2048"],
      ]),
    )
    const small = await serve({
      port: 0,
      engine: Engine.layer({ allowPrivateAddresses: true }),
      serverConfig: ServerConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(environment))),
    })
    try {
      const over = await answerOf(await upload(Buffer.alloc(4096, "a"), "big.txt", undefined, { to: small.url }))
      expect(over).toMatchObject({
        status: 413,
        body: { code: "PAYLOAD_TOO_LARGE", error: expect.stringContaining("2048 bytes") },
      })
      const under = await answerOf(
        await upload(Buffer.from("Harbour notes"), "notes.txt", undefined, { to: small.url }),
      )
      expect(under).toMatchObject({ status: 200, body: { data: { markdown: "Harbour notes" } } })
    } finally {
      await small.close()
    }
  })
})
