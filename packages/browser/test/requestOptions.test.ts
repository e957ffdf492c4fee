/**
 * The scrape's request options in the browser: `headers` (a cookie among them) reach the site with every request the
 * page makes, `skipTlsVerification` decides whether a self-signed certificate is accepted, and `profile` carries
 * cookies from one scrape to the next.
 */
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http"
import { createServer as createHttpsServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startForwardProxy } from "../../core/test/support/forwardProxy.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { selfSigned } from "../../core/test/support/selfSigned.js"
import { failure } from "../../core/test/support/webdataFailure.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

/** The headers of each request the site received, by path. */
const seen = new Map<string, IncomingHttpHeaders>()
let site: Listening
let secure: Server
let secureUrl: string
let webdata: Webdata
beforeAll(async () => {
  site = await listenOnLoopback(
    createHttpServer((req, res) => {
      seen.set(req.url ?? "/", req.headers)
      if (req.url?.startsWith("/remember?")) {
        res.writeHead(200, { "content-type": "text/html" })
        const value = req.url.slice("/remember?".length)
        return void res.end(
          `<!doctype html><p>Remembered.</p><script>document.cookie = "${value}; max-age=3600"</script>`,
        )
      }
      if (req.url === "/via") {
        res.writeHead(200, { "content-type": "text/html" })
        return void res.end(
          `<!doctype html><p>Came ${req.headers["x-through-proxy"] ? "through the proxy" : "directly"}.</p>`,
        )
      }
      if (req.url === "/data.json") {
        res.writeHead(200, { "content-type": "application/json" })
        return void res.end('{"ok":true}')
      }
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<!doctype html><title>Headers</title><p>Signed in as ${req.headers.cookie ?? "nobody"}.</p>
        <script>fetch("/data.json")</script>`)
    }),
  )
  secure = createHttpsServer(selfSigned(), (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end("<!doctype html><title>Secure</title><p>Behind a certificate nobody signed.</p>")
  })
  await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve))
  secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/`
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
})
afterAll(async () => {
  await webdata?.close()
  await site?.close()
  secure?.closeAllConnections()
  await new Promise((resolve) => secure?.close(resolve))
})

describe("request options in the browser", () => {
  it("sends the caller's headers and cookie with the page and with what it fetches", async () => {
    const document = await webdata.scrape(site.url, {
      formats: ["markdown"],
      waitFor: 200,
      headers: { "X-Team": "tides", Cookie: "session=abc" },
    })
    expect(document.metadata.engine).toBe("browser")
    expect(document.markdown).toContain("Signed in as session=abc.")
    for (const path of ["/", "/data.json"]) {
      expect(seen.get(path)?.["x-team"], path).toBe("tides")
      expect(seen.get(path)?.cookie, path).toBe("session=abc")
    }
  })

  it("accepts a self-signed certificate only with skipTlsVerification", async () => {
    const trusted = await webdata.scrape(secureUrl, { formats: ["markdown"], waitFor: 1, skipTlsVerification: true })
    expect(trusted.markdown).toContain("Behind a certificate nobody signed.")
    const refused = await failure(
      webdata.scrape(secureUrl, { formats: ["markdown"], waitFor: 1, skipTlsVerification: false }),
    )
    expect(refused.code).toBe("SCRAPE_SSL_ERROR")
  })

  it("keeps a profile's cookies from one scrape to the next, and leaves it as it was with saveChanges: false", async () => {
    const visit = (path: string, saveChanges?: boolean) =>
      webdata.scrape(`${site.url}${path}`, {
        formats: ["markdown"],
        profile: { name: "reader", ...(saveChanges !== undefined ? { saveChanges } : {}) },
      })
    await visit("/remember?visit=1")
    expect((await visit("/")).markdown).toContain("Signed in as visit=1.")
    await visit("/remember?extra=2", false)
    expect((await visit("/")).markdown).toContain("Signed in as visit=1.")
    // Another profile starts empty.
    const other = await webdata.scrape(site.url, { formats: ["markdown"], profile: { name: "other" } })
    expect(other.markdown).toContain("Signed in as nobody.")
  })

  it("goes through the operator's proxy with proxy: basic", async () => {
    const proxy = await startForwardProxy()
    const proxied = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath }),
      proxies: [proxy.url],
    })
    try {
      const page = await proxied.scrape(site.url, { formats: ["markdown"], waitFor: 1, proxy: "basic" })
      expect(page.metadata.engine).toBe("browser")
      expect(page.markdown).toContain("Signed in as nobody.")
      // The page's guard proxy sent the browser's request on through the operator's (plain HTTP as an absolute URL).
      expect(proxy.seen).toContain(`${site.url}/`)
    } finally {
      await proxied.close()
      await proxy.close()
    }
  })
})
