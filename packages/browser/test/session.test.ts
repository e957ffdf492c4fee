/**
 * Interact sessions through the Promise facade (`webdata.interact()`), in real Chromium: actions and a document of the
 * session's page, the URL guard on the session's requests, code refused unless allowed, the DevTools endpoint, and
 * the session's browser gone once it ends.
 */
import { createServer } from "node:http"
import { Webdata, WebdataError } from "@webdata/core"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { failure } from "../../core/test/support/webdataFailure.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"
import { sessionProcesses, sessionProcessesSettled } from "./support/sessionProcesses.js"

let site: Listening
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<!doctype html><title>Notes</title><main><h1>Notes</h1><ul id="list"></ul>
        <button onclick="document.getElementById('list').insertAdjacentHTML('beforeend', '<li>A note kept in the list.</li>')">Add</button></main>`)
    }),
  )
})
afterAll(() => site.close())

describe("webdata.interact()", () => {
  it("drives a page with actions, reads it as a document, and closes its browser", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    const before = sessionProcesses()
    try {
      {
        await using session = await webdata.interact({ ttl: 60 })
        expect(sessionProcesses()).toBeGreaterThan(before)
        const run = await session.execute({
          url: site.url,
          actions: [
            { type: "click", selector: "button" },
            { type: "click", selector: "button" },
          ],
        })
        expect(run.url).toBe(`${site.url}/`)
        const document = await session.scrape({ formats: ["markdown", "links"] })
        expect(document.markdown).toContain("- A note kept in the list.\n- A note kept in the list.")
        expect(document.metadata.title).toBe("Notes")
        // Code is the operator's choice; without it, a clear refusal.
        const refused = await failure(session.execute({ code: "return 1" }))
        expect(refused).toBeInstanceOf(WebdataError)
        expect(refused.code).toBe("INTERACT_CODE_DISABLED")
        // The DevTools endpoint is the session's page.
        const browser = await chromium.connectOverCDP(session.cdpUrl)
        expect(await browser.contexts()[0]!.pages()[0]!.title()).toBe("Notes")
        await browser.close()
      }
      // `await using` closed the session: its Chromium exits.
      expect(await sessionProcessesSettled(before)).toBe(before)
    } finally {
      await webdata.close()
    }
  })

  it("holds a session to the URL guard: a refused address does not load", async () => {
    // No browser given: the facade finds the installed package and the machine's Chromium by itself.
    const webdata = new Webdata({ worker: false })
    try {
      await using session = await webdata.interact()
      const blocked = await failure(session.execute({ url: site.url, actions: [] }))
      expect(blocked.code).toBe("SCRAPE_BLOCKED_ADDRESS")
    } finally {
      await webdata.close()
    }
  })

  it("says so when an action takes the session's page to a refused address", async () => {
    const refused = await listenOnLoopback(
      createServer((_, res) => res.end("internal")),
      "127.0.0.2",
    )
    const webdata = new Webdata({
      worker: false,
      allowedTargets: [`${new URL(site.url).hostname}/32`],
      browser: layer({ executablePath }),
    })
    try {
      await using session = await webdata.interact()
      const away = `location.href = ${JSON.stringify(refused.url)}`
      const blocked = await failure(
        session.execute({
          url: site.url,
          actions: [
            { type: "executeJavascript", script: away },
            { type: "wait", milliseconds: 500 },
          ],
        }),
      )
      expect(blocked.code).toBe("SCRAPE_BLOCKED_ADDRESS")
      // The session goes on: the next run on an allowed page works.
      expect((await session.execute({ url: site.url, actions: [{ type: "click", selector: "button" }] })).url).toBe(
        `${site.url}/`,
      )
    } finally {
      await webdata.close()
      await refused.close()
    }
  })

  it("runs code where it is allowed, and says the browser engine is missing where it is", async () => {
    const webdata = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath }),
      interact: { allowCode: true },
    })
    try {
      await using session = await webdata.interact()
      const run = await session.execute({ code: `await page.goto(${JSON.stringify(site.url)}); return page.title()` })
      expect(run).toMatchObject({ stdout: "Notes\n", exitCode: 0, killed: false })
    } finally {
      await webdata.close()
    }
    const plain = new Webdata({ worker: false, browser: false })
    try {
      expect((await failure(plain.interact())).code).toBe("SCRAPE_BROWSER_REQUIRED")
    } finally {
      await plain.close()
    }
  })
})
