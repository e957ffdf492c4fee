/** Firecrawl's browser actions in real Chromium, on fixture pages, through the Promise facade. */
import { createServer } from "node:http"
import { Webdata } from "@webdata/core"
import { extractText } from "unpdf"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { failure } from "../../core/test/support/webdataFailure.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

const html = (body: string) => `<!doctype html><html><head><title>Fixture</title></head><body>${body}</body></html>`

const PAGES: Record<string, string> = {
  "/form": html(
    `<form action="/searched" method="get"><input id="q" name="q"><button type="submit">Go</button></form>`,
  ),
  "/more": html(
    `<p>Three hidden notes.</p>${[1, 2, 3]
      .map(
        (n) =>
          `<button class="more" onclick="this.insertAdjacentHTML('afterend', '<p>Note ${n} shown.</p>')">More</button>`,
      )
      .join("")}`,
  ),
  "/scroll": html(`<main id="list"><p>Item 1 of the feed.</p></main><div style="height: 2000px"></div><script>
    let count = 1
    addEventListener("scroll", () => {
      if (count >= 4) return
      count++
      document.getElementById("list").insertAdjacentHTML("beforeend", "<p>Item " + count + " of the feed.</p>")
    })</script>`),
}

let site: Listening
let webdata: Webdata
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x")
      res.writeHead(200, { "content-type": "text/html" })
      if (url.pathname === "/searched")
        return void res.end(html(`<p>You searched for ${url.searchParams.get("q")}.</p>`))
      res.end(PAGES[url.pathname] ?? html("<p>A plain page with some words on it.</p>"))
    }),
  )
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
})
afterAll(async () => {
  await webdata?.close()
  await site?.close()
})

describe("actions", () => {
  it("fill a form, submit it and follow the navigation; scrape keeps each step's page", async () => {
    const document = await webdata.scrape(`${site.url}/form`, {
      formats: ["markdown"],
      actions: [
        { type: "scrape" },
        { type: "click", selector: "#q" },
        { type: "write", text: "tides" },
        { type: "press", key: "Enter" },
        { type: "wait", selector: "p" },
        { type: "scrape" },
      ],
    })
    expect(document.markdown).toContain("You searched for tides.")
    expect(document.actions?.scrapes.map((scrape) => new URL(scrape.url).pathname)).toEqual(["/form", "/searched"])
    expect(document.actions?.scrapes[1]?.html).toContain("You searched for tides.")
  })

  it("click every match with `all`", async () => {
    const document = await webdata.scrape(`${site.url}/more`, {
      formats: ["markdown"],
      actions: [{ type: "click", selector: "button.more", all: true }],
    })
    for (const n of [1, 2, 3]) expect(document.markdown).toContain(`Note ${n} shown.`)
  })

  it("scroll a feed that grows as it scrolls", async () => {
    const document = await webdata.scrape(`${site.url}/scroll`, {
      formats: ["markdown"],
      actions: [
        { type: "scroll", direction: "down" },
        { type: "wait", milliseconds: 100 },
        { type: "scroll", direction: "down" },
        { type: "wait", milliseconds: 100 },
        { type: "scroll", direction: "down" },
        { type: "wait", milliseconds: 100 },
      ],
    })
    expect(document.markdown).toContain("Item 4 of the feed.")
  })

  it("return JavaScript values, take screenshots and make PDFs, in the order of the actions", async () => {
    const document = await webdata.scrape(`${site.url}/`, {
      formats: ["markdown"],
      actions: [
        { type: "executeJavascript", script: "document.title" },
        { type: "executeJavascript", script: "const n = 20; return n + 22" },
        { type: "screenshot" },
        { type: "screenshot", viewport: { width: 500, height: 400 } },
        { type: "pdf", format: "A4" },
      ],
    })
    expect(document.actions?.javascriptReturns).toEqual([
      { type: "string", value: "Fixture" },
      { type: "number", value: 42 },
    ])
    const png = (dataUrl: string | undefined) => Buffer.from(dataUrl!.split(",")[1]!, "base64")
    const [first, second] = document.actions?.screenshots ?? []
    expect(png(first).readUInt32BE(16)).toBe(1280)
    expect([png(second).readUInt32BE(16), png(second).readUInt32BE(20)]).toEqual([500, 400])
    const pdf = Buffer.from(document.actions!.pdfs[0]!.split(",")[1]!, "base64")
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-")
    // A PDF reader finds the page's text in it.
    const { text, totalPages } = await extractText(new Uint8Array(pdf), { mergePages: true })
    expect(totalPages).toBe(1)
    expect(text).toContain("A plain page with some words on it.")
  })

  it("fail with SCRAPE_ACTION_ERROR naming the action and its selector", async () => {
    const started = performance.now()
    const error = await failure(
      webdata.scrape(`${site.url}/`, {
        timeout: 6000,
        actions: [
          { type: "wait", milliseconds: 10 },
          { type: "click", selector: "#missing" },
        ],
      }),
    )
    expect(error.code).toBe("SCRAPE_ACTION_ERROR")
    expect(error.message).toContain('Action 1 (click on "#missing")')
    expect(performance.now() - started).toBeLessThan(6000)
  })
})
