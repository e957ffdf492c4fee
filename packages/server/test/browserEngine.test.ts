/**
 * `serve()` configured from the environment, as `npm start` runs it: with a Chromium found, `waitFor` renders the page
 * in the browser; without one, it answers 400 SCRAPE_BROWSER_REQUIRED.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { type RunningServer, serve } from "../src/index.js"

const TEXT = "Written by the page's own script after it loaded, so only a browser sees it."

let site: Listening
beforeAll(async () => {
  process.env.WEBDATA_STORE = "memory:"
  process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES = "1"
  process.env.WEBDATA_WORKER = "0"
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(
        `<html><body><main id="app"></main><script>setTimeout(() => {
          document.getElementById("app").innerHTML = "<p>${TEXT}</p>"
        }, 50)</script></body></html>`,
      )
    }),
  )
})
afterAll(() => site.close())

const scrape = async (server: RunningServer) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: site.url, formats: ["markdown"], waitFor: 300 }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

it("renders pages in the system Chromium for waitFor", async () => {
  const server = await serve({ port: 0 })
  try {
    const { status, body } = await scrape(server)
    expect(status).toBe(200)
    const data = body.data as { markdown: string; metadata: { engine: string } }
    expect(data.markdown).toContain(TEXT)
    // The document says which engine made it.
    expect(data.metadata.engine).toBe("browser")
  } finally {
    await server.close()
  }
})

it("answers waitFor with 400 SCRAPE_BROWSER_REQUIRED when no Chromium is found", async () => {
  process.env.CHROMIUM_PATH = "/nonexistent/chromium"
  const server = await serve({ port: 0 })
  try {
    const { status, body } = await scrape(server)
    expect(status).toBe(400)
    expect(body.code).toBe("SCRAPE_BROWSER_REQUIRED")
  } finally {
    await server.close()
    delete process.env.CHROMIUM_PATH
  }
})
