/**
 * Outgoing proxies over plain HTTP: `proxy: "basic"` goes through the operator's proxy, `"auto"` (the default) goes
 * direct and again through the proxy when the site refuses (401/403/429), proxies are taken in turn, credentials in
 * the proxy URL are sent, and without proxies a refusal is the page.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Webdata } from "../../src/Webdata.js"
import { type ForwardProxy, startForwardProxy } from "../support/forwardProxy.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

/** Requests the site received, with whether they came through a proxy. */
const visits: Array<string> = []
let site: Listening
let first: ForwardProxy
let second: ForwardProxy
let guarded: ForwardProxy
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((req, res) => {
      const proxied = req.headers["x-through-proxy"] === "1"
      visits.push(`${req.url} ${proxied ? "proxy" : "direct"}`)
      // The site refuses direct visitors to /members, as a site blocking a data-centre address would.
      const refused = req.url === "/members" && !proxied
      res.writeHead(refused ? 403 : 200, { "content-type": "text/html" })
      res.end(refused ? "<p>Access denied.</p>" : `<p>Welcome, ${proxied ? "proxied" : "direct"} reader.</p>`)
    }),
  )
  first = await startForwardProxy()
  second = await startForwardProxy()
  guarded = await startForwardProxy("user:s3cret")
})
afterAll(async () => {
  await Promise.all([site, first, second, guarded].map((server) => server?.close()))
})

const engine = (proxies: ReadonlyArray<string>) =>
  new Webdata({ allowPrivateAddresses: true, worker: false, browser: false, proxies, cacheMaxBytes: 0 })

describe("outgoing proxies", () => {
  it("retries a refused page through a proxy with auto, and goes through one at once with basic", async () => {
    const webdata = engine([first.url, second.url])
    try {
      visits.length = 0
      const auto = await webdata.scrape(`${site.url}/members`, { formats: ["markdown"] })
      expect(auto.metadata.statusCode).toBe(200)
      expect(auto.markdown).toContain("Welcome, proxied reader.")
      expect(visits).toEqual(["/members direct", "/members proxy"])
      // An open page is not asked twice.
      visits.length = 0
      expect((await webdata.scrape(`${site.url}/open`, { formats: ["markdown"] })).markdown).toContain("direct reader")
      expect(visits).toEqual(["/open direct"])
      // basic: straight through the next proxy in turn.
      visits.length = 0
      const basic = await webdata.scrape(`${site.url}/open`, { formats: ["markdown"], proxy: "basic" })
      expect(basic.markdown).toContain("proxied reader")
      expect(visits).toEqual(["/open proxy"])
      expect(first.seen).toEqual([`${site.url}/members`])
      expect(second.seen).toEqual([`${site.url}/open`])
    } finally {
      await webdata.close()
    }
  })

  it("sends the credentials of the proxy URL", async () => {
    const withCredentials = guarded.url.replace("http://", "http://user:s3cret@")
    const webdata = engine([withCredentials])
    try {
      const page = await webdata.scrape(`${site.url}/open`, { formats: ["markdown"], proxy: "basic" })
      expect(page.markdown).toContain("proxied reader")
      expect(guarded.seen).toEqual([`${site.url}/open`])
    } finally {
      await webdata.close()
    }
  })

  it("answers the refusal as the page without proxies, and refuses a bad proxy URL at start", async () => {
    const webdata = engine([])
    try {
      const page = await webdata.scrape(`${site.url}/members`, { formats: ["markdown"] })
      expect(page.metadata.statusCode).toBe(403)
      expect(page.markdown).toContain("Access denied.")
    } finally {
      await webdata.close()
    }
    expect(() => engine(["socks://nowhere"])).toThrow(
      "Not a proxy URL (http://[user:password@]host:port): socks://nowhere",
    )
  })
})
