/**
 * The CLI with the browser engine (Chromium found on the machine): `webdata scrape` with actions, a screenshot file,
 * a phone's viewport and a wait; bad actions as one-line failures; `webdata session` printing its URLs and ending on
 * Ctrl-C.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
// Fails the file at once on a machine without Chromium.
import "../../browser/test/support/chromium.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { runWebdata as webdata } from "./support/binary.js"
import { spawnWebdata } from "./support/child.js"

let site: Listening
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<!doctype html><html><head><title>More</title>
        <meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
        <p id="width"></p><p id="more" hidden>The rest of the story, shown on demand.</p>
        <button id="show" onclick="document.getElementById('more').hidden = false">More</button>
        <script>document.getElementById("width").textContent = "Width " + innerWidth + "."</script></body></html>`)
    }),
  )
})
afterAll(() => site.close())

/** Width and height of a PNG, from its header. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) })

describe("webdata scrape in the browser", () => {
  it("runs actions, writes a screenshot file, and visits as a phone", async () => {
    const shot = join(mkdtempSync(join(tmpdir(), "webdata-cli-")), "page.png")
    const result = await webdata([
      "scrape",
      site.url,
      "--action",
      "click:#show",
      "--wait-for",
      "100",
      "--mobile",
      "--screenshot",
      shot,
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("The rest of the story, shown on demand.")
    expect(result.stdout).toContain("Width 390.")
    // A phone's viewport (390 CSS pixels at 3 device pixels each).
    expect(pngSize(readFileSync(shot))).toEqual({ width: 1170, height: 2532 })
  })

  it("prints what the actions gave with --json", async () => {
    const result = await webdata(["scrape", site.url, "--action", "js:document.title", "--json"])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).actions.javascriptReturns).toEqual([{ type: "string", value: "More" }])
  })

  it("fails a bad action with one line and exit code 1", async () => {
    const bad = await webdata(["scrape", site.url, "--action", "hover:#show"])
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain('Invalid --action "hover:#show"')
    // The action waits for its selector up to half the timeout: the other half covers starting Chromium on a loaded
    // machine, where 4 s of 8 did not always suffice.
    const missing = await webdata(["scrape", site.url, "--action", "click:#nowhere", "--timeout", "20000"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('Action 0 (click on "#nowhere") failed')
  })
})

describe("webdata session", () => {
  it("opens a session on a page, prints its URLs, and ends it on Ctrl-C", async () => {
    const child = spawnWebdata(["session", "--url", site.url, "--ttl", "60"])
    try {
      await child.waitFor((stdout) => stdout.includes("DevTools (connectOverCDP): "))
      const cdpUrl = /DevTools \(connectOverCDP\): (\S+)/.exec(child.stdout())![1]!
      expect(child.stdout()).toMatch(/Live view: +http:\/\/127\.0\.0\.1:\d+\/v2\/interact\/[^/]+\/live\?token=/)
      const browser = await chromium.connectOverCDP(cdpUrl)
      expect(await browser.contexts()[0]!.pages()[0]!.title()).toBe("More")
      await browser.close()
      child.process.kill("SIGINT")
      expect(await child.exited, child.stderr()).toBe(0)
      expect(child.stderr()).toContain("Session ended.")
    } finally {
      child.process.kill("SIGKILL")
    }
  })
})
