/**
 * The browser engine in real Chromium, through the Promise facade: pages rendered by JavaScript, the URL guard on
 * every request a page makes, failures mapped to the scrape's codes, at most `maxPages` pages at once, and the pool's
 * processes (launched only when needed, replaced when killed, none left behind).
 */
import { createServer, type RequestListener } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import { Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { failure } from "../../core/test/support/webdataFailure.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"
import { descendantsOf, ownProcesses, type Sighting, sight, stillRunning } from "./support/processes.js"

/** Chromium processes this test process started. */
const chromiumProcesses = () => ownProcesses().filter((entry) => /chrom/i.test(entry.args))

/** The processes of `pids` still there, to be checked later whether they have exited. */
const sightings = (pids: ReadonlyArray<number>): Array<Sighting> =>
  pids.map(sight).filter((seen): seen is Sighting => seen !== undefined)

/** Processes take a moment to exit after their browser closes. */
const settledProcessCount = async () => {
  for (let attempt = 0; attempt < 50 && chromiumProcesses().length > 0; attempt++) await sleep(100)
  return chromiumProcesses().length
}

const ARTICLE =
  "Tides rise and fall twice a day because the moon pulls the oceans towards it, and the earth turns beneath."

const html = (body: string) => `<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`

/**
 * The pages whose /held document is in flight now (by URL: Chromium may ask a page's document again on a fresh
 * connection, which is the same page), and the most at once.
 */
const held = { now: new Set<string>(), most: 0 }
/** `path user-agent` of each request for the single-page app. */
const agents: Array<string> = []
let elsewhere: Listening & { readonly requests: Array<string> }
let site: Listening
beforeAll(async () => {
  const requests: Array<string> = []
  const other: RequestListener = (req, res) => {
    requests.push(req.url ?? "/")
    res.writeHead(200, { "content-type": "text/html" })
    res.end(html("<p>elsewhere</p>"))
  }
  elsewhere = Object.assign(await listenOnLoopback(createServer(other), "127.0.0.2"), { requests })
  site = await listenOnLoopback(
    createServer((req, res) => {
      if (req.url === "/hang") return // never answers
      // Redirects to the refused address: Playwright does not route redirect hops, the engine checks them itself.
      if (req.url === "/redirect-out" || req.url === "/go-elsewhere") {
        res.writeHead(302, { location: `${elsewhere.url}${req.url}` })
        return void res.end()
      }
      res.writeHead(200, { "content-type": "text/html" })
      if (req.url?.startsWith("/held") && req.headers["user-agent"]?.includes("HeadlessChrome")) {
        // Each page's document is held a while: pages open at once are requests in flight at once. It is held until
        // a second page was seen at the same time (at most 3 s), so a loaded machine that opens pages slowly does
        // not look like a pool that opens them one by one.
        const page = req.url
        held.now.add(page)
        held.most = Math.max(held.most, held.now.size)
        const started = Date.now()
        const release = setInterval(() => {
          const waited = Date.now() - started
          if ((held.most < 2 || waited < 300) && waited < 3000) return
          clearInterval(release)
          held.now.delete(page)
          res.end(html(`<article><p>${ARTICLE}</p></article>`))
        }, 50)
        return
      }
      if (req.url === "/js")
        return void res.end(
          html(`<div id="app">Loading…</div><script>setTimeout(() => {
            document.getElementById("app").innerHTML = "<article><h2>Tides</h2><p>${ARTICLE}</p></article>"
          }, 100)</script>`),
        )
      if (req.url?.startsWith("/spa")) {
        agents.push(`${req.url} ${req.headers["user-agent"]}`)
        return void res.end(
          html(`<div id="root"></div><script>setTimeout(() => {
            document.getElementById("root").innerHTML = "<article><h2>Tides</h2><p>${ARTICLE}</p></article>"
          }, 100)</script>`),
        )
      }
      if (req.url === "/whoami")
        // A page made for phones (its viewport meta), reporting what it sees.
        return void res.end(
          html(`<p>Header ${req.headers["accept-language"]}.</p><p id="seen"></p><script>
            document.getElementById("seen").textContent = "Language " + navigator.language + ", zone " +
              Intl.DateTimeFormat().resolvedOptions().timeZone + ", width " + innerWidth + "."</script>`).replace(
            "<head>",
            `<head><meta name="viewport" content="width=device-width, initial-scale=1">`,
          ),
        )
      if (req.url === "/leaves")
        // Once loaded, the page sends itself to the refused address.
        return void res.end(
          html(`<p>${ARTICLE}</p><script>setTimeout(() => { location.href = "${elsewhere.url}/left" }, 50)</script>`),
        )
      if (req.url === "/tall")
        return void res.end(html(`<article><p>${ARTICLE}</p><div style="height: 3000px">tall</div></article>`))
      if (req.url === "/reaches-out")
        return void res.end(
          html(`<article><p>${ARTICLE}</p><img src="${elsewhere.url}/pixel.png"><img src="/redirect-out"></article>
            <script>fetch("${elsewhere.url}/api").catch(() => {})</script>`),
        )
      res.end(html(`<article><p>${ARTICLE}</p></article>`))
    }),
  )
})
afterAll(async () => {
  await site?.close()
  await elsewhere?.close()
})

describe("browser engine", () => {
  it("renders a page written by JavaScript for waitFor, and starts no browser for a plain scrape", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    try {
      const plain = await webdata.scrape(`${site.url}/js`, { formats: ["markdown"] })
      expect(plain.markdown).not.toContain("Tides rise")
      expect(chromiumProcesses()).toHaveLength(0)
      const rendered = await webdata.scrape(`${site.url}/js`, { formats: ["markdown"], waitFor: 500 })
      expect(rendered.markdown).toContain(ARTICLE)
      expect(rendered.metadata.statusCode).toBe(200)
      expect(chromiumProcesses().length).toBeGreaterThan(0)
    } finally {
      await webdata.close()
    }
    expect(await settledProcessCount()).toBe(0)
  })

  it("loads a JavaScript shell again in the browser without being asked, and that host's next pages at once", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    try {
      const first = await webdata.scrape(`${site.url}/spa`, { formats: ["markdown"] })
      expect(first.markdown).toContain(ARTICLE)
      const second = await webdata.scrape(`${site.url}/spa-next`, { formats: ["markdown"] })
      expect(second.markdown).toContain(ARTICLE)
      const browserAgent = (entry: string) => entry.includes("HeadlessChrome")
      // The first page over HTTP, then in the browser; the host's next page straight in the browser.
      expect(agents.map((entry) => [entry.split(" ")[0], browserAgent(entry)])).toEqual([
        ["/spa", false],
        ["/spa", true],
        ["/spa-next", true],
      ])
    } finally {
      await webdata.close()
    }
  })

  it("takes screenshots: the viewport, the full page, a viewport of the caller's, JPEG at a quality", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    const bytes = (dataUrl: string | undefined, type: string) => {
      expect(dataUrl?.startsWith(`data:image/${type};base64,`)).toBe(true)
      return Buffer.from(dataUrl!.slice(dataUrl!.indexOf(",") + 1), "base64")
    }
    const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) })
    try {
      const viewport = await webdata.scrape(`${site.url}/tall`, { formats: ["markdown", { type: "screenshot" }] })
      expect(viewport.markdown).toContain(ARTICLE)
      expect(pngSize(bytes(viewport.screenshot, "png"))).toEqual({ width: 1280, height: 800 })
      const full = await webdata.scrape(`${site.url}/tall`, { formats: [{ type: "screenshot", fullPage: true }] })
      expect(pngSize(bytes(full.screenshot, "png")).height).toBeGreaterThan(3000)
      const small = await webdata.scrape(`${site.url}/tall`, {
        formats: [{ type: "screenshot", viewport: { width: 400, height: 300 } }],
      })
      expect(pngSize(bytes(small.screenshot, "png"))).toEqual({ width: 400, height: 300 })
      const jpeg = await webdata.scrape(`${site.url}/tall`, { formats: [{ type: "screenshot", quality: 50 }] })
      expect([...bytes(jpeg.screenshot, "jpeg").subarray(0, 2)]).toEqual([0xff, 0xd8])
    } finally {
      await webdata.close()
    }
  })

  it("visits as a phone from a country: viewport, pixel ratio, locale, time zone and Accept-Language", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    try {
      const document = await webdata.scrape(`${site.url}/whoami`, {
        formats: ["markdown", { type: "screenshot" }],
        mobile: true,
        location: { country: "de" },
      })
      expect(document.markdown).toContain("Header de-DE.")
      expect(document.markdown).toContain("Language de-DE, zone Europe/Berlin, width 390.")
      const png = Buffer.from(document.screenshot!.split(",")[1]!, "base64")
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([390 * 3, 844 * 3])
      const languages = await webdata.scrape(`${site.url}/whoami`, {
        location: { country: "ch", languages: ["fr-CH"] },
      })
      expect(languages.markdown).toContain("Header fr-CH.")
      expect(languages.markdown).toContain("Language fr-CH, zone Europe/Zurich, width 1280.")
    } finally {
      await webdata.close()
    }
  })

  it("checks every request of the page and every redirect hop with the URL guard: nothing refused is fetched", async () => {
    // Only the site's address may be reached; 127.0.0.2 is refused like any other private address.
    const webdata = new Webdata({ allowedTargets: ["127.0.0.1/32"], worker: false, browser: layer({ executablePath }) })
    try {
      const document = await webdata.scrape(`${site.url}/reaches-out`, { formats: ["markdown"], waitFor: 300 })
      expect(document.markdown).toContain(ARTICLE)
      expect(elsewhere.requests).toEqual([])
      const refused = await failure(webdata.scrape(`${elsewhere.url}/`, { waitFor: 100 }))
      expect(refused.code).toBe("SCRAPE_BLOCKED_ADDRESS")
      const redirected = await failure(webdata.scrape(`${site.url}/go-elsewhere`, { waitFor: 100 }))
      expect(redirected.code).toBe("SCRAPE_BLOCKED_ADDRESS")
      // Not Chromium's error page read as the document.
      const left = await failure(webdata.scrape(`${site.url}/leaves`, { formats: ["markdown"], waitFor: 300 }))
      expect(left.code).toBe("SCRAPE_BLOCKED_ADDRESS")
      expect(elsewhere.requests).toEqual([])
    } finally {
      await webdata.close()
    }
  })

  it("opens at most maxPages pages at once: six scrapes at a time on two pages", async () => {
    const webdata = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath, maxPages: 2 }),
    })
    try {
      const documents = await Promise.all(
        Array.from({ length: 6 }, (_, at) =>
          webdata.scrape(`${site.url}/held?${at}`, { formats: ["markdown"], waitFor: 10 }),
        ),
      )
      for (const document of documents) expect(document.markdown).toContain(ARTICLE)
      // Two at a time, never more; and two (the bound is used, the scrapes do not go one by one).
      expect(held.most).toBe(2)
    } finally {
      await webdata.close()
    }
  })

  it("ends a page that never loads with SCRAPE_TIMEOUT within the timeout, and the pool goes on", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true, worker: false, browser: layer({ executablePath }) })
    try {
      const started = performance.now()
      const timedOut = await failure(webdata.scrape(`${site.url}/hang`, { waitFor: 100, timeout: 2000 }))
      expect(timedOut.code).toBe("SCRAPE_TIMEOUT")
      expect(performance.now() - started).toBeLessThan(4000)
      const next = await webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 50 })
      expect(next.markdown).toContain(ARTICLE)
    } finally {
      await webdata.close()
    }
    expect(await settledProcessCount()).toBe(0)
  })

  it("replaces the browser after its pages and when it is killed: 200 scrapes leave no process behind", async () => {
    expect(chromiumProcesses()).toHaveLength(0)
    const webdata = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath, pagesPerBrowser: 50, maxPages: 4 }),
    })
    const browsers = new Set<number>()
    // Every Chromium process seen: once its browser is gone, one left running is out of this process's tree.
    const seen = new Map<string, Sighting>()
    const look = () => {
      for (const process of sightings(chromiumProcesses().map((entry) => entry.pid)))
        seen.set(`${process.pid} ${process.start}`, process)
    }
    const mainProcess = () =>
      chromiumProcesses().find((entry) => entry.args.includes("--user-data-dir") && !entry.args.includes("--type="))
    try {
      for (let round = 0; round < 50; round++) {
        const scrapes = Promise.all(
          Array.from({ length: 4 }, () => webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 10 })),
        )
        look()
        const documents = await scrapes
        look()
        for (const document of documents) expect(document.markdown).toContain(ARTICLE)
        const main = mainProcess()
        if (main !== undefined) browsers.add(main.pid)
      }
      // 200 pages at 50 per browser: four browser processes in turn.
      expect(browsers.size).toBe(4)
      // Renderers and zygotes were seen too, not only the browsers.
      expect(seen.size).toBeGreaterThan(browsers.size * 2)
      const victim = mainProcess()
      expect(victim).toBeDefined()
      // Its zygotes and renderers, which SIGKILL leaves to be re-parented away from this process.
      const orphans = sightings(descendantsOf(victim!.pid).map((entry) => entry.pid))
      expect(orphans.length).toBeGreaterThan(0)
      process.kill(victim!.pid, "SIGKILL")
      await sleep(200)
      const after = await webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 10 })
      expect(after.markdown).toContain(ARTICLE)
      expect(mainProcess()?.pid).not.toBe(victim!.pid)
      look()
      expect(await stillRunning(orphans, 5000)).toEqual([])
    } finally {
      await webdata.close()
    }
    expect(await settledProcessCount()).toBe(0)
    expect(await stillRunning(seen.values(), 5000)).toEqual([])
  }, 420_000) // 190–215 s measured on a loaded two-core machine: the limit leaves room for a slower one

  it("replaces a browser that hangs, and kills its process", async () => {
    const webdata = new Webdata({
      allowPrivateAddresses: true,
      worker: false,
      browser: layer({ executablePath, maxPages: 2 }),
    })
    const mainProcesses = () =>
      chromiumProcesses().filter((entry) => entry.args.includes("--user-data-dir") && !entry.args.includes("--type="))
    let hung: { readonly pid: number } | undefined
    // The hung browser and its children: killing it leaves them to be re-parented away from this process.
    let family: Array<Sighting> = []
    try {
      await webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 10 })
      hung = mainProcesses()[0]
      expect(hung).toBeDefined()
      family = sightings([hung!.pid, ...descendantsOf(hung!.pid).map((entry) => entry.pid)])
      // A stopped process answers nothing, as a hung one.
      process.kill(hung!.pid, "SIGSTOP")
      const started = Date.now()
      expect(
        (await failure(webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 10, timeout: 3000 }))).code,
      ).toMatch(/SCRAPE_TIMEOUT|SCRAPE_ALL_ENGINES_FAILED/)
      expect(Date.now() - started).toBeLessThan(4500)
      // The next page gets a fresh browser once the hung one has been given up (within 5 s of its last page).
      await sleep(3000)
      const after = await webdata.scrape(`${site.url}/`, { formats: ["markdown"], waitFor: 10 })
      expect(after.markdown).toContain(ARTICLE)
      expect(mainProcesses().some((entry) => entry.pid !== hung!.pid)).toBe(true)
    } finally {
      await webdata.close()
    }
    // Closing waits for the hung browser to be killed.
    expect(await settledProcessCount()).toBe(0)
    expect(family.length).toBeGreaterThan(1)
    expect(await stillRunning(family, 5000)).toEqual([])
  }, 30_000)
})
