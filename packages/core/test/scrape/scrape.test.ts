import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Webdata } from "../../src/Webdata.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { failure } from "../support/webdataFailure.js"

let site: FixtureSite
let webdata: Webdata
beforeAll(async () => {
  site = await startFixtureSite()
  // Plain HTTP only: the options the browser would honour must be refused here.
  webdata = new Webdata({ allowPrivateAddresses: true, browser: false })
})
afterAll(async () => {
  await webdata.close()
  await site.close()
})

describe("scrape over HTTP", () => {
  it("returns the article as markdown without navigation, sidebar, cookie banner or footer", async () => {
    const document = await webdata.scrape(`${site.url}/article`)
    const markdown = document.markdown ?? ""
    // The headline (in the article's header, and repeating the title) is metadata.title, not the text.
    expect(markdown).not.toContain("Tidal Energy Explained")
    expect(markdown.startsWith("Tidal power captures the energy")).toBe(true)
    expect(markdown).toContain("the tides are set by the orbit of the moon")
    expect(markdown).toContain("| Sihwa Lake | South Korea | 254 |")
    expect(markdown).toContain("```python")
    expect(markdown).toContain(`[2025 tidal report](${site.url}/reports/2025-tidal.pdf)`)
    for (const boilerplate of [
      "Subscribe to the newsletter",
      "Trending now",
      "Accept all cookies",
      "All rights reserved",
    ])
      expect(markdown).not.toContain(boilerplate)
    expect(Object.keys(document).sort()).toEqual(["markdown", "metadata"])
  })

  it("fills the metadata", async () => {
    const { metadata } = await webdata.scrape(`${site.url}/article`, { maxAge: 0 })
    expect(metadata).toMatchObject({
      title: "Tidal Energy Explained | Ocean Notes",
      description: "How tidal turbines turn the moon's pull into electricity.",
      language: "en",
      ogTitle: "Tidal Energy Explained",
      "og:title": "Tidal Energy Explained",
      "twitter:card": "summary_large_image",
      favicon: `${site.url}/favicon.png`,
      sourceURL: `${site.url}/article`,
      url: `${site.url}/article`,
      statusCode: 200,
      contentType: "text/html; charset=utf-8",
      proxyUsed: "basic",
      cacheState: "miss",
      engine: "http",
    })
    expect(metadata.scrapeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it("keeps the URL as sent in sourceURL and the final one in url", async () => {
    const raw = site.url.replace("http://", "")
    const { metadata } = await webdata.scrape(`${raw}/redirect`)
    expect(metadata.sourceURL).toBe(`${raw}/redirect`)
    expect(metadata.url).toBe(`${site.url}/article`)
  })

  it("returns only the requested formats", async () => {
    const document = await webdata.scrape(`${site.url}/article`, {
      formats: ["html", { type: "rawHtml" }, "links", "images"],
    })
    expect(Object.keys(document).sort()).toEqual(["html", "images", "links", "metadata", "rawHtml"])
    expect(document.rawHtml).toContain('<div class="cookie-consent"')
    expect(document.html).toContain("Tidal power captures the energy")
    expect(document.html).not.toContain("<script")
    expect(document.links).toEqual(expect.arrayContaining([`${site.url}/topics`, `${site.url}/reports/2025-tidal.pdf`]))
    expect(document.images).toEqual(expect.arrayContaining([`${site.url}/img/turbine-large.jpg`]))
  })

  it("treats error pages as documents with their status", async () => {
    const document = await webdata.scrape(`${site.url}/status/404`)
    expect(document.metadata.statusCode).toBe(404)
    expect(document.metadata.error).toBe("Not Found")
    expect(document.markdown).toContain("does not exist")
    expect((await webdata.scrape(`${site.url}/status/500`)).metadata.statusCode).toBe(500)
  })

  it("turns JSON into a fenced block and keeps plain text as is", async () => {
    const json = await webdata.scrape(`${site.url}/data.json`)
    expect(json.markdown).toContain("```json")
    expect(json.markdown).toContain('"name": "tides"')
    const text = await webdata.scrape(`${site.url}/notes.txt`)
    expect(text.markdown).toBe("Plain *notes* stay as they are.\nLine two.")
  })

  it("decodes a windows-1252 page", async () => {
    const document = await webdata.scrape(`${site.url}/latin1`)
    expect(document.markdown).toContain("Café crème brûlée à la carte")
  })

  it("refuses content it cannot turn into a document", async () => {
    const error = await failure(webdata.scrape(`${site.url}/image.png`))
    expect(error.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR")
  })

  it("times out with SCRAPE_TIMEOUT within the request's timeout", async () => {
    const started = Date.now()
    const error = await failure(webdata.scrape(`${site.url}/slow?ms=10000`, { timeout: 1000 }))
    expect(error.code).toBe("SCRAPE_TIMEOUT")
    expect(error.status).toBe(408)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it("serves repeated scrapes from the cache within maxAge", async () => {
    const url = `${site.url}/article?cache-test=1`
    const first = await webdata.scrape(url)
    expect(first.metadata.cacheState).toBe("miss")
    const second = await webdata.scrape(url, { formats: ["links"] })
    expect(second.metadata.cacheState).toBe("hit")
    expect(second.metadata.cachedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(second.links?.length).toBeGreaterThan(3)
    expect((await webdata.scrape(url, { maxAge: 0 })).metadata.cacheState).toBe("miss")
  })

  it("answers minAge from the cache only", async () => {
    const url = `${site.url}/article?min-age=1`
    const miss = await failure(webdata.scrape(url, { minAge: 1 }))
    expect(miss.code).toBe("SCRAPE_NO_CACHED_DATA")
    expect(miss.status).toBe(404)
    await webdata.scrape(url)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await webdata.scrape(url, { minAge: 1 })).metadata.cacheState).toBe("hit")
  })

  it("does not store pages when storeInCache is false", async () => {
    const url = `${site.url}/article?no-store=1`
    await webdata.scrape(url, { storeInCache: false })
    expect((await webdata.scrape(url)).metadata.cacheState).toBe("miss")
  })

  it("refuses options this build cannot honour with a coded 400, before fetching", async () => {
    for (const [options, code] of [
      [{ formats: ["screenshot"] }, "SCRAPE_UNSUPPORTED_FORMAT"],
      [{ formats: [{ type: "json", prompt: "title" }] }, "LLM_NOT_CONFIGURED"],
      [{ formats: ["branding"] }, "SCRAPE_UNSUPPORTED_FORMAT"],
      [{ actions: [{ type: "click", selector: "#a" }] }, "SCRAPE_ACTIONS_NOT_SUPPORTED"],
      [{ waitFor: 1000 }, "SCRAPE_BROWSER_REQUIRED"],
      [{ mobile: true }, "SCRAPE_BROWSER_REQUIRED"],
      [{ proxy: "stealth" }, "SCRAPE_PROXY_NOT_AVAILABLE"],
    ] as const) {
      const error = await failure(webdata.scrape(`${site.url}/article`, options))
      expect(error.status).toBe(400)
      expect(error.code).toBe(code)
    }
    // Defaults and an empty action list never fail a request.
    const fine = await webdata.scrape(`${site.url}/article`, { actions: [], blockAds: true, proxy: "basic" })
    expect(fine.metadata.statusCode).toBe(200)
  })

  it("refuses an invalid CSS selector with a 400", async () => {
    const error = await failure(webdata.scrape(`${site.url}/article`, { includeTags: ["div[unclosed"] }))
    expect(error.code).toBe("BAD_REQUEST")
    expect(error.message).toBe('Invalid CSS selector in includeTags: "div[unclosed"')
  })

  it("keeps only includeTags and drops excludeTags", async () => {
    const only = await webdata.scrape(`${site.url}/article`, { includeTags: ["table"] })
    expect(only.markdown).toContain("| Site | Country | Capacity (MW) |")
    expect(only.markdown).not.toContain("Tidal power captures")
    const without = await webdata.scrape(`${site.url}/article`, { excludeTags: ["table", "pre"] })
    expect(without.markdown).toContain("Tidal power captures")
    expect(without.markdown).not.toContain("Sihwa Lake")
    expect(without.markdown).not.toContain("def power")
  })

  it("speaks to a library caller of options and of this build, not of a body or a server", async () => {
    const unknown = await failure(webdata.scrape(`${site.url}/article`, { formatz: ["markdown"] } as never))
    expect(unknown.code).toBe("BAD_REQUEST")
    expect(unknown.message).toBe('Unrecognized option: "formatz"')
    const nested = await failure(
      webdata.crawl(site.url, { scrapeOptions: { formats: ["markdown"], onlyMain: true } } as never),
    )
    expect(nested.message).toBe('Unrecognized option: "scrapeOptions.onlyMain"')
    const unsupported = await failure(webdata.scrape(`${site.url}/article`, { formats: ["branding"] }))
    for (const error of [unknown, nested, unsupported]) expect(error.message).not.toMatch(/\bbody\b|server/)
  })

  it("refuses a crawl or a batch whose scrape options this build cannot honour, before it starts", async () => {
    const crawl = await failure(webdata.startCrawl(site.url, { scrapeOptions: { formats: ["screenshot"] } }))
    expect(crawl).toMatchObject({ status: 400, code: "SCRAPE_UNSUPPORTED_FORMAT" })
    const batch = await failure(webdata.startBatchScrape([`${site.url}/article`], { waitFor: 1000 }))
    expect(batch).toMatchObject({ status: 400, code: "SCRAPE_BROWSER_REQUIRED" })
  })

  it("validates options like the API does", async () => {
    const error = await failure(webdata.scrape(`${site.url}/article`, { waitFor: 40_000, timeout: 60_000 }))
    expect(error.code).toBe("BAD_REQUEST")
    expect(error.message).toBe("waitFor must not exceed half of timeout")
  })
})

describe("the URL guard in the engine", () => {
  it("refuses loopback targets unless private addresses are allowed", async () => {
    const guarded = new Webdata()
    try {
      const error = await failure(guarded.scrape(`${site.url}/article`))
      expect(error.code).toBe("SCRAPE_BLOCKED_ADDRESS")
      expect(error.status).toBe(403)
    } finally {
      await guarded.close()
    }
  })

  it("lets an allow-listed target through", async () => {
    const allowed = new Webdata({ allowedTargets: ["127.0.0.1/32"] })
    try {
      expect((await allowed.scrape(`${site.url}/article`)).metadata.statusCode).toBe(200)
    } finally {
      await allowed.close()
    }
  })
})
