/**
 * When the browser reads a page: after its DOM has been quiet for a moment with no script, document or data request
 * in flight, so content fetched by the page's scripts after the load is there, and a still page is read at once.
 */
import { createServer } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import { Webdata } from "@webdata/core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { layer } from "../src/index.js"
import { SETTLE_MAX_MS } from "../src/Settle.js"
import { executablePath } from "./support/chromium.js"

const TEXT = "The harbour master posts the tide times on the board by the slipway every morning."

let site: Listening
let webdata: Webdata
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer(async (req, res) => {
      if (req.url === "/data") {
        // A slow API: longer than the quiet window, shorter than the settle cap.
        await sleep(900)
        res.writeHead(200, { "content-type": "application/json" })
        return void res.end(JSON.stringify({ text: TEXT }))
      }
      res.writeHead(200, { "content-type": "text/html" })
      if (req.url === "/fetches")
        return void res.end(`<!doctype html><title>App</title><main id="app">Loading…</main><script>
          fetch("/data").then((r) => r.json()).then(({ text }) => { document.getElementById("app").innerHTML = "<p>" + text + "</p>" })
        </script>`)
      res.end(`<!doctype html><title>Still</title><p>${TEXT}</p>`)
    }),
  )
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
})
afterAll(async () => {
  await webdata?.close()
  await site?.close()
})

it("waits for content the page's scripts fetch after the load", async () => {
  const document = await webdata.scrape(`${site.url}/fetches`, { formats: ["markdown"], waitFor: 1 })
  expect(document.markdown).toContain(TEXT)
})

it("reads a still page without waiting long", async () => {
  await webdata.scrape(`${site.url}/still`, { formats: ["markdown"], waitFor: 1 })
  const started = Date.now()
  const document = await webdata.scrape(`${site.url}/still?again`, { formats: ["markdown"], waitFor: 1 })
  expect(document.markdown).toContain(TEXT)
  // ~350 ms on a quiet machine; a page that never settled would be read at the cap. Under a loaded CI the browser's
  // own work took 1.5 s once, so the bound is the cap less a margin.
  expect(Date.now() - started).toBeLessThan(SETTLE_MAX_MS - 500)
})
