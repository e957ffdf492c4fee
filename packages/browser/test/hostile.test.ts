/**
 * Hostile pages in real Chromium: endless dialogs, a script that never yields, memory without end, thousands of
 * frames and popups, a download, a redirect and a WebSocket to refused addresses. Each ends within its timeout with
 * the page's text or a clear error, and the pool goes on serving ordinary pages afterwards.
 */
import { createServer, type IncomingMessage } from "node:http"
import { type Document, Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

const ARTICLE = "The lighthouse keeper wound the lamp each evening and watched the ships go by."
const page = (body: string) => `<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`

/** The refused server's requests: nothing may arrive there. */
const refusedHits: Array<string> = []
let refused: Listening
let site: Listening
let webdata: Webdata
let guarded: Webdata
beforeAll(async () => {
  const refusedServer = createServer((req, res) => {
    refusedHits.push(req.url ?? "/")
    res.end("refused server")
  })
  refusedServer.on("upgrade", (req: IncomingMessage, socket) => {
    refusedHits.push(`upgrade ${req.url}`)
    socket.destroy()
  })
  refused = await listenOnLoopback(refusedServer, "127.0.0.2")
  site = await listenOnLoopback(
    createServer((req, res) => {
      const html = (body: string) => {
        res.writeHead(200, { "content-type": "text/html" })
        res.end(page(body))
      }
      switch (req.url) {
        case "/alerts":
          return html(
            `<p>${ARTICLE}</p><script>for (let i = 0; i < 1e9; i++) { alert(i); confirm(i); prompt(i) }</script>`,
          )
        case "/alerts-later":
          return html(`<p>${ARTICLE}</p><script>setTimeout(() => { for (;;) alert("again") }, 50)</script>`)
        case "/spin":
          return html(`<p>${ARTICLE}</p><script>while (true) {}</script>`)
        case "/spin-later":
          return html(`<p>${ARTICLE}</p><script>setTimeout(() => { while (true) {} }, 50)</script>`)
        case "/memory":
          return html(`<p>${ARTICLE}</p><script>
            const kept = []; setInterval(() => { for (let i = 0; i < 200; i++) kept.push(new Array(1e5).fill(Math.random())) }, 1)
          </script>`)
        case "/frames":
          return html(`<p>${ARTICLE}</p><script>
            for (let i = 0; i < 10000; i++) { const f = document.createElement("iframe"); f.src = "/small?" + i; document.body.appendChild(f) }
          </script>`)
        case "/popups":
          return html(`<p>${ARTICLE}</p><script>for (let i = 0; i < 200; i++) window.open("/small?popup" + i)</script>`)
        case "/download":
          res.writeHead(200, {
            "content-type": "application/octet-stream",
            "content-disposition": "attachment; filename=a.bin",
          })
          return void res.end(Buffer.alloc(1024))
        case "/to-refused":
          res.writeHead(302, { location: `${refused.url}/secret` })
          return void res.end()
        case "/socket":
          return html(`<p>${ARTICLE}</p><script>new WebSocket("${refused.url.replace("http", "ws")}/socket")</script>`)
        case "/worker":
          return html(`<p>${ARTICLE}</p><script>navigator.serviceWorker?.register("/sw.js").catch(() => {})</script>`)
        default:
          return html(`<p>${ARTICLE}</p>`)
      }
    }),
  )
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath, maxPages: 2 }) })
  // Private addresses refused, the site's own address allowed: the refused server stays out of reach.
  guarded = new Webdata({
    worker: false,
    allowedTargets: [`${new URL(site.url).hostname}/32`],
    browser: layer({ executablePath }),
  })
})
afterAll(async () => {
  await webdata?.close()
  await guarded?.close()
  await site?.close()
  await refused?.close()
})

interface Rendered {
  readonly document?: Document
  readonly error?: { readonly code?: string; readonly message: string }
  readonly elapsed: number
}

/** A browser scrape of `path` and how long it took. */
const render = async (engine: Webdata, path: string, timeout = 8000): Promise<Rendered> => {
  const started = Date.now()
  const outcome = await engine.scrape(`${site.url}${path}`, { formats: ["markdown"], waitFor: 1, timeout }).then(
    (document) => ({ document }),
    (error: unknown) => ({ error: error as { code?: string; message: string } }),
  )
  return { ...outcome, elapsed: Date.now() - started }
}

/** After a hostile page, an ordinary one renders well within its timeout (the last renderer may still be exiting). */
const poolHealthy = async () => {
  const { document, elapsed } = await render(webdata, "/plain")
  expect(document?.markdown).toContain(ARTICLE)
  expect(elapsed).toBeLessThan(8000)
}

describe("hostile pages", () => {
  it("ends a page of endless dialogs at the timeout", async () => {
    for (const path of ["/alerts", "/alerts-later"]) {
      // Each dialog is dismissed, and the next one holds the page's script thread again: nothing can be read.
      const { error, elapsed } = await render(webdata, path)
      expect(error?.code, path).toBe("SCRAPE_TIMEOUT")
      expect(elapsed, path).toBeLessThan(8000 + 3000)
    }
    await poolHealthy()
  })

  it("ends a script that never yields at the timeout", async () => {
    for (const path of ["/spin", "/spin-later"]) {
      const { error, elapsed } = await render(webdata, path, 6000)
      expect(error?.code, path).toBe("SCRAPE_TIMEOUT")
      expect(elapsed, path).toBeLessThan(6000 + 3000)
    }
    await poolHealthy()
  })

  it("stops a page that allocates memory without end", async () => {
    const { error, elapsed } = await render(webdata, "/memory", 20_000)
    // Its renderer's heap is capped: it crashes long before the timeout, and says so.
    expect(error?.code).toBe("SCRAPE_ALL_ENGINES_FAILED")
    expect(error?.message).toContain("crashed")
    expect(elapsed).toBeLessThan(20_000)
    await poolHealthy()
  }, 40_000)

  it("ends a page of ten thousand frames at the timeout, its requests bounded", async () => {
    const { error, elapsed } = await render(webdata, "/frames")
    expect(error?.code).toBe("SCRAPE_TIMEOUT")
    expect(elapsed).toBeLessThan(8000 + 3000)
    await poolHealthy()
  })

  it("opens no popups", async () => {
    const { document, elapsed } = await render(webdata, "/popups")
    expect(document?.markdown).toContain(ARTICLE)
    expect(elapsed).toBeLessThan(8000)
    await poolHealthy()
  })

  it("answers a download with a clear error", async () => {
    const { error, elapsed } = await render(webdata, "/download")
    expect(error?.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR")
    expect(error?.message).toContain("download")
    expect(elapsed).toBeLessThan(8000)
    await poolHealthy()
  })

  it("keeps redirects, WebSockets and service workers away from refused addresses, and says what it blocked", async () => {
    refusedHits.length = 0
    const redirected = await render(guarded, "/to-refused")
    expect(redirected.error?.code).toBe("SCRAPE_BLOCKED_ADDRESS")
    const socket = await render(guarded, "/socket")
    expect(socket.document?.markdown).toContain(ARTICLE)
    expect(socket.document?.warning).toContain(`${refused.url.replace("http", "ws")}/socket`)
    const worker = await render(guarded, "/worker")
    expect(worker.document?.markdown).toContain(ARTICLE)
    expect(refusedHits).toEqual([])
  })
})
