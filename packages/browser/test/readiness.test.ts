/** The browser in `/v2/ready` and `/metrics`: launched by the check when none runs, and its open pages counted. */
import { createServer } from "node:http"
import { Engine, makeWebHandler, ServerConfig } from "@webdata/core"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

let site: Listening
/**
 * `/held` is answered only once released, so that a render stays open while the metrics are read (every request for
 * it: Chromium may ask a document again on a fresh connection).
 */
const held: Array<() => void> = []
let released = false
const release = () => {
  released = true
  for (const answer of held.splice(0)) answer()
}
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((request, response) => {
      const answer = () => response.writeHead(200, { "content-type": "text/html" }).end("<p>held page</p>")
      if (request.url === "/held" && !released) held.push(answer)
      else answer()
    }),
  )
})
afterAll(() => site.close())

const handlerWith = (chromium: string) =>
  makeWebHandler(
    Layer.merge(
      Engine.layer({ worker: false, allowPrivateAddresses: true, browser: layer({ executablePath: chromium }) }),
      ServerConfig.layer(),
    ),
  )

const get = (web: ReturnType<typeof handlerWith>, path: string) => web.handler(new Request(`http://api.test${path}`))

const gauge = async (web: ReturnType<typeof handlerWith>, name: string) => {
  const text = await (await get(web, "/metrics")).text()
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1])
}

describe("the browser's readiness and metrics", () => {
  it("is ready once the check has launched the browser, and counts the pages it renders", async () => {
    const web = handlerWith(executablePath)
    try {
      const ready = await get(web, "/v2/ready")
      expect(ready.status).toBe(200)
      expect(await ready.json()).toMatchObject({ checks: { store: { status: "ok" }, browser: { status: "ok" } } })
      expect(await gauge(web, "webdata_browser_pages_open")).toBe(0)
      expect(await gauge(web, "webdata_browser_sessions_open")).toBe(0)
      const scraping = web.handler(
        new Request("http://api.test/v2/scrape", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${site.url}/held`, waitFor: 10, storeInCache: false }),
        }),
      )
      // The page is open once its document is asked for.
      for (let waited = 0; held.length === 0; waited += 100) {
        if (waited > 20_000) throw new Error("the page never asked for its document")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(await gauge(web, "webdata_browser_pages_open")).toBe(1)
      release()
      const done = await scraping
      expect(done.status, await done.clone().text()).toBe(200)
      expect(await gauge(web, "webdata_browser_pages_open")).toBe(0)
    } finally {
      await web.dispose()
    }
  })

  it("is not ready when the browser cannot be launched", async () => {
    const web = handlerWith("/nonexistent/chromium")
    try {
      const ready = await get(web, "/v2/ready")
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({
        success: false,
        code: "NOT_READY",
        error: "Not ready: browser",
        details: { checks: { store: { status: "ok" }, browser: { status: "failed" } } },
      })
    } finally {
      await web.dispose()
    }
  })
})
