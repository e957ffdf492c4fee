/**
 * `blockAds` (on by default) in real Chromium: requests that the bundled filter lists name are never made, ads and
 * cookie banners are gone from the page before it is read, the page's own content stays, and nothing is fetched to
 * get the lists; `blockAds: false` leaves the page as the site sent it.
 */
import { createServer } from "node:http"
import { Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { filters } from "../src/AdBlock.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

const ARTICLE = "Fishermen read the sky at dawn: a red sunrise means a wet and windy day ahead."

/** What the ad server was asked for. */
const adRequests: Array<string> = []
let ads: Listening
let site: Listening
let webdata: Webdata
beforeAll(async () => {
  ads = await listenOnLoopback(
    createServer((req, res) => {
      adRequests.push(req.url ?? "/")
      res.writeHead(200, { "content-type": req.url?.endsWith(".js") ? "text/javascript" : "image/gif" })
      res.end(req.url?.endsWith(".js") ? "document.title = 'tracked'" : "")
    }),
    "127.0.0.3",
  )
  // Not 127.0.0.1: EasyList turns generic cosmetic filters off there (and on localhost), for developers' own pages.
  site = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<!doctype html><title>Weather lore</title><body>
        <div id="onetrust-banner-sdk"><p>We use cookies to improve your experience. Accept all cookies?</p></div>
        <article><h1>Weather lore</h1><p>${ARTICLE}</p>
          <div class="div-gpt-ad-top"><p>Sponsored: buy a barometer today.</p></div>
          <img src="${ads.url}/banner-ad.gif" alt="">
        </article>
        <script src="${ads.url}/pagead/conversion.js"></script></body>`)
    }),
    "127.0.0.2",
  )
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
})
afterAll(async () => {
  await webdata?.close()
  await site?.close()
  await ads?.close()
})

describe("blockAds", () => {
  it("refuses ad and tracker requests and removes ads and cookie banners, by default", async () => {
    adRequests.length = 0
    const document = await webdata.scrape(site.url, { formats: ["markdown"], waitFor: 1, onlyMainContent: false })
    expect(adRequests).toEqual([])
    expect(document.markdown).toContain(ARTICLE)
    expect(document.markdown).not.toContain("Accept all cookies")
    expect(document.markdown).not.toContain("buy a barometer")
    // The tracker's script never ran.
    expect(document.metadata.title).toBe("Weather lore")
  })

  it("leaves the page as the site sent it with blockAds: false", async () => {
    adRequests.length = 0
    const document = await webdata.scrape(site.url, {
      formats: ["markdown"],
      waitFor: 1,
      onlyMainContent: false,
      blockAds: false,
    })
    expect(adRequests.sort()).toEqual(["/banner-ad.gif", "/pagead/conversion.js"])
    expect(document.markdown).toContain("Accept all cookies")
    expect(document.markdown).toContain("buy a barometer")
  })

  it("builds its filters from the lists in the package, without the network", async () => {
    const original = globalThis.fetch
    globalThis.fetch = () => Promise.reject(new Error("no network for the filter lists"))
    try {
      const engine = await filters()
      expect(engine.getFilters().networkFilters.length).toBeGreaterThan(10_000)
    } finally {
      globalThis.fetch = original
    }
  })
})
