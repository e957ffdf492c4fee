/**
 * Hostile pages in real Chromium: endless dialogs, a script that never yields, memory without end, thousands of
 * frames, requests and popups, downloads, and popups, redirects, WebSockets and service workers aimed at refused
 * addresses. Each ends within its timeout with the page's text or a clear error, and the pool goes on serving
 * ordinary pages afterwards.
 */
import { readdirSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { type Document, type ScrapeOptionsInput, Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { layer } from "../src/index.js"
import { MAX_REQUESTS } from "../src/RequestGuard.js"
import { executablePath } from "./support/chromium.js"

const ARTICLE = "The lighthouse keeper wound the lamp each evening and watched the ships go by."

/**
 * A page opening `target` as popups in each way a page can: `window.open`, `window.open` of a fresh frame's realm
 * (which a script replacing `window.open` on the page may not reach), and a script's click on a `target=_blank`
 * link; the link (`#out`) is there for a `click` action too.
 */
const popups = (target: string) => `<p>${ARTICLE}</p><a id="out" target="_blank" href="${target}?link">out</a><script>
  window.open("${target}?open")
  document.body.appendChild(document.createElement("iframe")).contentWindow.open("${target}?frame")
  document.getElementById("out").click()
</script>`
const page = (body: string) => `<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`

/** The refused server's requests: nothing may arrive there. */
const refusedHits: Array<string> = []
/** The site's requests, path and query. */
const siteHits: Array<string> = []
/** Bytes the site wrote of its 32 MiB responses. */
let blobBytes = 0
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
      siteHits.push(req.url ?? "/")
      const html = (body: string) => {
        res.writeHead(200, { "content-type": "text/html" })
        res.end(page(body))
      }
      switch (req.url) {
        case "/heavy":
          return html(`<p>${ARTICLE}</p><img src="/blob">`)
        case "/blob":
        case "/heavy-document": {
          // 32 MiB, written as the client takes it: what was sent before the connection was cut is counted.
          res.writeHead(200, { "content-type": req.url === "/blob" ? "image/png" : "text/html" })
          const chunk =
            req.url === "/blob"
              ? Buffer.alloc(64 * 1024)
              : Buffer.from(`<p>${ARTICLE}</p>\n`.repeat(64 * 12).slice(0, 64 * 1024))
          let left = 512
          const pump = () => {
            while (left > 0 && !res.destroyed) {
              left--
              blobBytes += chunk.length
              if (!res.write(chunk)) return void res.once("drain", pump)
            }
            res.end()
          }
          return pump()
        }
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
        case "/requests":
          // Counts, on the page, the requests refused.
          return html(`<p>${ARTICLE}</p><p id="refused"></p><script>
            let refused = 0
            for (let i = 0; i < ${MAX_REQUESTS * 2}; i++)
              fetch("/small?" + i).catch(() => { document.getElementById("refused").textContent = "Refused " + ++refused + "." })
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
        case "/popups-refused":
          return html(popups(`${refused.url}/popup`))
        case "/popups-site":
          return html(popups("/beacon"))
        case "/beacon":
          // A popup that stays open says so, ten times a second.
          return html(`<p>popup</p><script>setInterval(() => fetch("/ping" + location.search), 100)</script>`)
        case "/download-links":
          return html(
            `<p>${ARTICLE}</p>${["/download", `${refused.url}/file.bin`]
              .map(
                (href, at) =>
                  `<a id="file${at}" href="${href}">file</a><a id="saved${at}" download href="${href}">file</a>`,
              )
              .join("")}`,
          )
        case "/worker":
          return html(`<p>${ARTICLE}</p><script>navigator.serviceWorker?.register("/sw.js").catch(() => {})</script>`)
        case "/worker-frame":
          // Registered from a fresh frame's realm, which a script replacing `register` on the page may not reach.
          return html(`<p>${ARTICLE}</p><script>
            const frame = document.body.appendChild(document.createElement("iframe"))
            frame.contentWindow.navigator.serviceWorker.register("/sw.js").catch(() => {})
          </script>`)
        case "/sw.js":
          res.writeHead(200, { "content-type": "text/javascript" })
          return void res.end(`fetch("${refused.url}/sw-top").catch(() => {})
            self.addEventListener("install", (event) => event.waitUntil(fetch("${refused.url}/sw-install").catch(() => {})))`)
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

/** Files where a browser would save a download: Playwright's artifacts folders (one per browser) and ~/Downloads. */
const savedFiles = (): Array<string> =>
  [
    join(homedir(), "Downloads"),
    ...readdirSync(tmpdir())
      .filter((name) => name.startsWith("playwright-artifacts-"))
      .map((name) => join(tmpdir(), name)),
  ].flatMap((folder) => {
    try {
      return readdirSync(folder).map((name) => join(folder, name))
    } catch {
      return [] // none, or removed with its browser meanwhile
    }
  })

interface Rendered {
  readonly document?: Document
  readonly error?: { readonly code?: string; readonly message: string }
  readonly elapsed: number
}

/** A browser scrape of `path` and how long it took. */
const render = (engine: Webdata, path: string, timeout = 8000): Promise<Rendered> =>
  renderWith(engine, path, { timeout })

/** A browser scrape of `path` with more options (actions), and how long it took. */
const renderWith = async (
  engine: Webdata,
  path: string,
  options: Omit<ScrapeOptionsInput, "url">,
): Promise<Rendered> => {
  const started = Date.now()
  const outcome = await engine
    .scrape(`${site.url}${path}`, { formats: ["markdown"], waitFor: 1, timeout: 8000, ...options })
    .then(
      (document) => ({ document }),
      (error: unknown) => ({ error: error as { code?: string; message: string } }),
    )
  return { ...outcome, elapsed: Date.now() - started }
}

/** After a hostile page, an ordinary one renders well within its timeout (the last renderer may still be exiting). */
const poolHealthy = async (engine = webdata) => {
  const { document, elapsed } = await render(engine, "/plain")
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
    // The timeout, not the request cap, ends it: a hundred or so frames load in the time (the cap is tested next).
    const { error, elapsed } = await render(webdata, "/frames")
    expect(error?.code).toBe("SCRAPE_TIMEOUT")
    expect(elapsed).toBeLessThan(8000 + 3000)
    await poolHealthy()
  })

  it("stops receiving a page's responses past its byte budget, and holds none of them", async () => {
    const budgeted = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath, maxPageBytes: 4 * 1024 * 1024 }),
    })
    try {
      // Warmed up first (Playwright's client and the ad filters load with the first page).
      expect((await render(budgeted, "/small?warm")).document).toBeDefined()
      blobBytes = 0
      const before = process.memoryUsage().rss
      const { document } = await renderWith(budgeted, "/heavy", { timeout: 15_000 })
      // The page is read; its 32 MiB image was cut off near the 4 MiB budget (what sat in socket buffers aside).
      expect(document?.markdown).toContain(ARTICLE)
      expect(blobBytes).toBeLessThan(16 * 1024 * 1024)
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
      // A document past the budget is cut off too: the scrape ends with an error within its timeout.
      blobBytes = 0
      const { error, elapsed } = await renderWith(budgeted, "/heavy-document", { timeout: 8000 })
      expect(["SCRAPE_RESPONSE_TOO_LARGE", "SCRAPE_TIMEOUT"]).toContain(error?.code)
      expect(elapsed).toBeLessThan(8000 + 3000)
      expect(blobBytes).toBeLessThan(16 * 1024 * 1024)
      await poolHealthy(budgeted)
    } finally {
      await budgeted.close()
    }
  }, 60_000)

  it("fetches at most its cap of requests for a page, refuses the rest, and answers with the page", async () => {
    siteHits.length = 0
    const { document } = await renderWith(webdata, "/requests", { waitFor: 1000, timeout: 20_000 })
    // Twice the cap asked for: every one after the cap is refused (Chromium may fail more of so many on its own).
    expect(document?.markdown).toContain(ARTICLE)
    const refusedCount = Number(/Refused (\d+)\./.exec(document?.markdown ?? "")?.[1])
    expect(refusedCount).toBeGreaterThanOrEqual(MAX_REQUESTS + 1)
    expect(siteHits.filter((hit) => hit.startsWith("/small?")).length).toBeLessThanOrEqual(MAX_REQUESTS - 1)
  }, 30_000)

  it("opens no popups", async () => {
    const { document, elapsed } = await render(webdata, "/popups")
    expect(document?.markdown).toContain(ARTICLE)
    expect(elapsed).toBeLessThan(8000)
    await poolHealthy()
  })

  it("closes popups of every kind as they open, and keeps them from refused addresses", async () => {
    // The page's own popups, and one more from a click action on its target=_blank link; then time to show.
    const clickOut = {
      actions: [
        { type: "click" as const, selector: "#out" },
        { type: "wait" as const, milliseconds: 1500 },
      ],
    }
    refusedHits.length = 0
    const toRefused = await renderWith(guarded, "/popups-refused", clickOut)
    expect(toRefused.document?.markdown).toContain(ARTICLE)
    // The links' popups asked for the refused address and were refused (the page says so, the scrape goes on).
    expect(toRefused.document?.warning).toContain(`${refused.url}/popup?link`)
    expect(refusedHits).toEqual([])
    siteHits.length = 0
    const toSite = await renderWith(webdata, "/popups-site", clickOut)
    expect(toSite.document?.markdown).toContain(ARTICLE)
    // A popup left open would ping about fifteen times during the wait.
    expect(siteHits.filter((hit) => hit.startsWith("/ping")).length).toBeLessThan(3)
    await poolHealthy()
  })

  it("answers a download with a clear error", async () => {
    const { error, elapsed } = await render(webdata, "/download")
    expect(error?.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR")
    expect(error?.message).toContain("download")
    expect(elapsed).toBeLessThan(8000)
    await poolHealthy()
  })

  it("answers a download started by a click with the page, saves no file, and keeps a refused one from its server", async () => {
    const clicking = (link: string) => ({
      actions: [
        { type: "click" as const, selector: link },
        { type: "wait" as const, milliseconds: 500 },
      ],
    })
    const before = new Set(savedFiles())
    // A plain link to an attachment and a link with the `download` attribute.
    for (const link of ["#file0", "#saved0"]) {
      siteHits.length = 0
      const { document } = await renderWith(webdata, "/download-links", clicking(link))
      // The click did start the download: the file was asked for; the browser saved nothing and stayed on the page.
      expect(siteHits, link).toContain("/download")
      expect(document?.markdown, link).toContain(ARTICLE)
      expect(document?.metadata.url, link).toBe(`${site.url}/download-links`)
    }
    expect(savedFiles().filter((file) => !before.has(file))).toEqual([])
    refusedHits.length = 0
    for (const link of ["#file1", "#saved1"]) {
      // The click takes the page to a refused address: the refusal is the answer, not Chromium's error page.
      const { error } = await renderWith(guarded, "/download-links", clicking(link))
      expect(error?.code, link).toBe("SCRAPE_BLOCKED_ADDRESS")
    }
    expect(refusedHits).toEqual([])
    await poolHealthy()
  })

  it("keeps redirects, WebSockets and service workers away from refused addresses, and says what it blocked", async () => {
    refusedHits.length = 0
    siteHits.length = 0
    const redirected = await render(guarded, "/to-refused")
    expect(redirected.error?.code).toBe("SCRAPE_BLOCKED_ADDRESS")
    await poolHealthy(guarded)
    const socket = await render(guarded, "/socket")
    expect(socket.document?.markdown).toContain(ARTICLE)
    expect(socket.document?.warning).toContain(`${refused.url.replace("http", "ws")}/socket`)
    for (const path of ["/worker", "/worker-frame"]) {
      const worker = await render(guarded, path)
      expect(worker.document?.markdown, path).toContain(ARTICLE)
    }
    // Playwright routes none of a service worker's own requests (their fetch of the refused address): none may start,
    // and none did, as its script was never fetched.
    expect(siteHits).not.toContain("/sw.js")
    expect(refusedHits).toEqual([])
  })
})
