/**
 * The official Firecrawl SDK through `serve()` with the browser engine: scrapes with `actions` and `screenshot`, and
 * its interact methods (sessions under `/v2/browser`, a scrape continued with `interact`).
 */
import { createServer } from "node:http"
import Firecrawl from "@mendable/firecrawl-js"
import * as Browser from "@webdata/browser"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, expect, it } from "vitest"
import { executablePath } from "../../browser/test/support/chromium.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"

let site: Listening
let api: RunningServer
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(
        `<html><head><title>Counter</title></head><body><p id="count">Clicked 0 times.</p>
        <button onclick="document.getElementById('count').textContent = 'Clicked ' + (++window.n || (window.n = 1)) + ' times.'">Add</button>
        <a href="/second">Second page</a></body></html>`,
      )
    }),
  )
  api = await serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      browser: Browser.layer({ executablePath }),
      interact: { allowCode: true },
    }),
    serverConfig: ServerConfig.layer({ apiKeys: [] }),
  })
})
afterAll(async () => {
  await api?.close()
  await site?.close()
})

it("scrapes with actions and a screenshot through the official SDK", async () => {
  const client = new Firecrawl({ apiKey: "fc-unused", apiUrl: api.url })
  const document = await client.scrape(site.url, {
    formats: ["markdown", { type: "screenshot", fullPage: false }],
    actions: [
      { type: "click", selector: "button" },
      { type: "click", selector: "button" },
      { type: "executeJavascript", script: "document.title" },
    ],
  })
  expect(document.markdown).toContain("Clicked 2 times.")
  expect(document.screenshot?.startsWith("data:image/png;base64,")).toBe(true)
  expect(document.actions?.javascriptReturns).toEqual([{ type: "string", value: "Counter" }])
})

it("opens, lists, drives and deletes browser sessions through the official SDK", async () => {
  const client = new Firecrawl({ apiKey: "fc-unused", apiUrl: api.url })
  const session = await client.browser({ ttl: 120, profile: { name: "sdk" } })
  expect(session.success).toBe(true)
  expect(session.cdpUrl).toMatch(/^ws:/)
  const run = await client.browserExecute(session.id!, {
    code: `await page.goto(${JSON.stringify(site.url)}); await page.click("button"); return await page.textContent("#count")`,
    language: "node",
  })
  expect(run.stdout).toBe("Clicked 1 times.\n")
  expect(run.exitCode).toBe(0)
  const listed = await client.listBrowsers({ status: "active" })
  expect(listed.sessions?.map((entry) => entry.id)).toContain(session.id)
  const deleted = await client.deleteBrowser(session.id!)
  expect(deleted.success).toBe(true)
  expect((await client.listBrowsers({ status: "active" })).sessions?.map((entry) => entry.id)).not.toContain(session.id)
})

it("continues a scrape with interact and stops it through the official SDK", async () => {
  const client = new Firecrawl({ apiKey: "fc-unused", apiUrl: api.url })
  const document = await client.scrape(site.url, { formats: ["markdown"] })
  const jobId = document.metadata?.scrapeId as string
  const run = await client.interact(jobId, {
    code: `await page.click("button"); return await page.textContent("#count")`,
  })
  expect(run.stdout).toBe("Clicked 1 times.\n")
  expect(run.success).toBe(true)
  const stopped = await client.stopInteraction(jobId)
  expect(stopped.success).toBe(true)
})

it("crawls and batch-scrapes with actions and screenshots in the scrape options through the official SDK", async () => {
  const client = new Firecrawl({ apiKey: "fc-unused", apiUrl: api.url })
  const scrapeOptions = {
    formats: ["markdown" as const, { type: "screenshot" as const }],
    actions: [{ type: "click" as const, selector: "button" }],
  }
  const crawl = await client.crawl(site.url, { limit: 2, scrapeOptions, pollInterval: 1 })
  expect(crawl.status).toBe("completed")
  expect(crawl.data.map((page) => new URL(page.metadata?.sourceURL ?? "").pathname).sort()).toEqual(["/", "/second"])
  for (const page of crawl.data) {
    expect(page.markdown).toContain("Clicked 1 times.")
    expect(page.screenshot?.startsWith("data:image/png;base64,")).toBe(true)
  }
  const batch = await client.batchScrape([`${site.url}/a`, `${site.url}/b`], {
    options: scrapeOptions,
    pollInterval: 1,
  })
  expect(batch.data).toHaveLength(2)
  for (const page of batch.data) expect(page.metadata?.engine).toBe("browser")
})
