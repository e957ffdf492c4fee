/**
 * Interact sessions over the REST API in real Chromium: open, run actions, profiles saved and restored, sessions of
 * one key hidden from another, the inactivity end, the DevTools endpoint for `connectOverCDP`, code only where the
 * operator allows it, a scrape continued in a session, and the live view driven from another browser.
 */
import { createServer } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import { layer as browserLayer } from "@webdata/browser"
import { Engine, type EngineOptions, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executablePath } from "../../browser/test/support/chromium.js"
import { sessionProcesses, sessionProcessesSettled } from "../../browser/test/support/sessionProcesses.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"

const KEY_A = "key-a"
const KEY_B = "key-b"

/** The colour of the page's block. */
const BLOCK = [200, 30, 30] as const

let site: Listening
beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      if (req.url === "/shop")
        return void res.end(`<!doctype html><title>Shop</title><p>Shop</p><script>
          document.cookie = "basket=42; max-age=3600; path=/"; localStorage.setItem("seen", "yes")</script>`)
      if (req.url === "/button")
        // The right half a block of one colour, for the live view's frames to be checked by their pixels.
        return void res.end(`<!doctype html><title>Button</title><body style="margin:0;background:#fff">
          <button id="go" style="position:absolute;left:0;top:0;width:400px;height:300px"
            onclick="this.textContent='clicked'">press</button>
          <input id="field" style="position:absolute;left:0;top:320px;width:400px;height:60px">
          <div style="position:absolute;left:50%;top:0;width:50%;height:100%;background:rgb(${BLOCK})"></div></body>`)
      res.end(`<!doctype html><title>Tides</title><h1>Tides</h1><p>The moon pulls the sea.</p>`)
    }),
  )
})
afterAll(() => site.close())

const start = (interact: EngineOptions["interact"] = {}) =>
  serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      worker: false,
      browser: browserLayer({ executablePath }),
      interact,
    }),
    serverConfig: ServerConfig.layer({ apiKeys: [KEY_A, KEY_B] }),
  })

/** The fields of the API's answers these tests read. */
interface Answer {
  readonly id?: string
  readonly status?: string
  readonly error?: string
  readonly sessionId?: string
  readonly cdpUrl?: string
  readonly stdout?: string
  readonly sessionDurationMs?: number
  readonly sessions?: ReadonlyArray<{ readonly id: string }>
  readonly actions?: { readonly javascriptReturns: ReadonlyArray<{ readonly value: unknown }> }
  readonly data?: { readonly metadata: { readonly scrapeId: string } }
}

/** A JSON call to the API with a key; status and body. */
const call = async (server: RunningServer, method: string, path: string, body?: unknown, key = KEY_A) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: response.status, body: (await response.json()) as Answer }
}

const open = async (server: RunningServer, body: unknown = {}, key = KEY_A) => {
  const { status, body: session } = await call(server, "POST", "/v2/interact", body, key)
  expect(status, JSON.stringify(session)).toBe(200)
  return session as unknown as { id: string; cdpUrl: string; liveViewUrl: string; interactiveLiveViewUrl: string }
}

const evaluate = async (server: RunningServer, id: string, script: string, url?: string) => {
  const { status, body } = await call(server, "POST", `/v2/interact/${id}/execute`, {
    actions: [{ type: "executeJavascript", script }],
    ...(url !== undefined ? { url } : {}),
  })
  expect(status, JSON.stringify(body)).toBe(200)
  return body.actions?.javascriptReturns[0]?.value
}

/** `script`'s value in the session once it is `expected` (input from a live view arrives in a moment), or at 5 s. */
const eventually = async (server: RunningServer, id: string, script: string, expected: unknown) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    if ((await evaluate(server, id, script)) === expected) break
    await sleep(100)
  }
  return evaluate(server, id, script)
}

/** Waits for a live view page to show its first frame. */
const shown = (page: Page) =>
  page.waitForFunction(() => (document.getElementById("screen") as HTMLImageElement).naturalWidth > 0)

/** The colours at points (fractions of its width and height) of a PNG, decoded by a page of `browser`. */
const coloursOf = async (browser: Browser, png: Buffer, points: ReadonlyArray<readonly [number, number]>) => {
  const page = await browser.newPage()
  try {
    return await page.evaluate(
      async ({ data, points }) => {
        const image = new Image()
        image.src = `data:image/png;base64,${data}`
        await image.decode()
        const canvas = document.createElement("canvas")
        canvas.width = image.width
        canvas.height = image.height
        const context = canvas.getContext("2d")!
        context.drawImage(image, 0, 0)
        return points.map(([x, y]) => [
          ...context.getImageData(Math.floor(x * image.width), Math.floor(y * image.height), 1, 1).data.slice(0, 3),
        ])
      },
      { data: png.toString("base64"), points },
    )
  } finally {
    await page.close()
  }
}

/** Whether a colour is `expected` give or take the frames' JPEG compression. */
const near = (colour: ReadonlyArray<number>, expected: ReadonlyArray<number>) =>
  expected.every((channel, at) => Math.abs((colour[at] ?? -1000) - channel) <= 40)

/**
 * Sends `events` on a live view's socket from `page`, as any script could whatever the view's page does, once the
 * socket has given a frame (its input is read from then on); closes it after a moment.
 */
const sendOnSocket = (page: Page, liveViewUrl: string, events: ReadonlyArray<unknown>) =>
  page.evaluate(
    async ({ liveViewUrl, events }) => {
      const url = new URL(liveViewUrl)
      url.pathname = url.pathname.replace(/\/live$/, "/view")
      url.protocol = "ws:"
      const socket = new WebSocket(url)
      await new Promise((resolve) => socket.addEventListener("message", resolve, { once: true }))
      await new Promise((resolve) => setTimeout(resolve, 300))
      for (const event of events) socket.send(JSON.stringify(event))
      await new Promise((resolve) => setTimeout(resolve, 300))
      socket.close()
    },
    { liveViewUrl, events },
  )

describe("interact sessions", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it("open a session, run actions on a page, list it, and end it", async () => {
    const session = await open(server, { ttl: 120 })
    expect(session.cdpUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v2\/interact\/[^/]+\/cdp\?token=[\w-]{20,}$/)
    expect(session.liveViewUrl).not.toBe(session.interactiveLiveViewUrl)
    expect(await evaluate(server, session.id, "document.title", `${site.url}/tides`)).toBe("Tides")
    // The page stays where the last call left it.
    expect(await evaluate(server, session.id, "document.querySelector('h1').textContent")).toBe("Tides")
    const listed = await call(server, "GET", "/v2/interact")
    expect(listed.body.sessions?.map((entry) => entry.id)).toContain(session.id)
    expect((await call(server, "GET", `/v2/interact/${session.id}`)).body.status).toBe("active")
    const ended = await call(server, "DELETE", `/v2/interact/${session.id}`)
    expect(ended.status).toBe(200)
    expect(ended.body.sessionDurationMs).toBeGreaterThan(0)
    expect((await call(server, "GET", `/v2/interact/${session.id}`)).body.status).toBe("destroyed")
    expect((await call(server, "POST", `/v2/interact/${session.id}/execute`, { actions: [] })).status).toBe(410)
    const destroyed = await call(server, "GET", "/v2/interact?status=destroyed")
    expect(destroyed.body.sessions?.map((entry) => entry.id)).toContain(session.id)
  })

  it("keep one key's sessions from another key", async () => {
    const session = await open(server)
    try {
      expect((await call(server, "GET", `/v2/interact/${session.id}`, undefined, KEY_B)).status).toBe(404)
      expect((await call(server, "DELETE", `/v2/interact/${session.id}`, undefined, KEY_B)).status).toBe(404)
      const run = await call(server, "POST", `/v2/interact/${session.id}/execute`, { actions: [] }, KEY_B)
      expect(run.status).toBe(404)
      const listed = await call(server, "GET", "/v2/interact", undefined, KEY_B)
      expect(listed.body.sessions).toEqual([])
    } finally {
      await call(server, "DELETE", `/v2/interact/${session.id}`)
    }
  })

  it("save a profile's cookies and storage when the session ends and start the next session with them", async () => {
    const first = await open(server, { profile: { name: "shop" } })
    await evaluate(server, first.id, "1", `${site.url}/shop`)
    // Only one session at a time may save into a profile.
    expect((await call(server, "POST", "/v2/interact", { profile: { name: "shop" } })).status).toBe(409)
    await call(server, "DELETE", `/v2/interact/${first.id}`)
    const second = await open(server, { profile: { name: "shop", saveChanges: false } })
    try {
      const seen = await evaluate(
        server,
        second.id,
        "document.cookie + ' ' + localStorage.getItem('seen')",
        `${site.url}/tides`,
      )
      expect(seen).toBe("basket=42 yes")
    } finally {
      await call(server, "DELETE", `/v2/interact/${second.id}`)
    }
    // Another key's profile of the same name is its own (empty).
    const other = await open(server, { profile: { name: "shop" } }, KEY_B)
    const { body } = await call(
      server,
      "POST",
      `/v2/interact/${other.id}/execute`,
      { url: `${site.url}/tides`, actions: [{ type: "executeJavascript", script: "document.cookie" }] },
      KEY_B,
    )
    expect(body.actions?.javascriptReturns[0]?.value).toBe("")
    await call(server, "DELETE", `/v2/interact/${other.id}`, undefined, KEY_B)
  })

  it("refuse code unless the operator allows it, and other languages always", async () => {
    const session = await open(server)
    try {
      const refused = await call(server, "POST", `/v2/interact/${session.id}/execute`, { code: "return 1" })
      expect(refused.status).toBe(403)
      expect(refused.body.error).toContain("WEBDATA_INTERACT_ALLOW_CODE")
      for (const [language, code] of [
        ["python", "print(1)"],
        ["bash", "echo 1"],
      ]) {
        const other = await call(server, "POST", `/v2/interact/${session.id}/execute`, { code, language })
        expect(other.status, language).toBe(400)
        // Refused as a language that cannot run here, not as a malformed body.
        expect(other.body.error, language).toContain(`${language} is not available`)
      }
    } finally {
      await call(server, "DELETE", `/v2/interact/${session.id}`)
    }
  })

  it("let Playwright connect over the DevTools endpoint, held to the session's context", async () => {
    const session = await open(server)
    try {
      const browser = await chromium.connectOverCDP(session.cdpUrl)
      const page = browser.contexts()[0]!.pages()[0]!
      await page.goto(`${site.url}/tides`)
      expect(await page.title()).toBe("Tides")
      // A new context would have none of the session's request checks.
      await expect(browser.newContext()).rejects.toThrow(/not allowed/)
      await browser.close()
      // What the DevTools client did is the session's page.
      expect(await evaluate(server, session.id, "location.pathname")).toBe("/tides")
      // Without the token, or with the view token, there is no DevTools endpoint.
      const viewToken = new URL(session.liveViewUrl).searchParams.get("token")
      await expect(chromium.connectOverCDP(session.cdpUrl.replace(/token=.*/, `token=${viewToken}`))).rejects.toThrow()
    } finally {
      await call(server, "DELETE", `/v2/interact/${session.id}`)
    }
  })

  it("continue a scrape in a session and end it", async () => {
    const scraped = await call(server, "POST", "/v2/scrape", { url: `${site.url}/tides`, formats: ["markdown"] })
    const id = scraped.body.data!.metadata.scrapeId
    const run = await call(server, "POST", `/v2/scrape/${id}/interact`, {
      actions: [{ type: "executeJavascript", script: "document.title" }],
    })
    expect(run.status, JSON.stringify(run.body)).toBe(200)
    expect(run.body.actions?.javascriptReturns[0]?.value).toBe("Tides")
    expect(run.body.cdpUrl).toContain(run.body.sessionId)
    // The same session answers the next call.
    const again = await call(server, "POST", `/v2/scrape/${id}/interact`, {
      actions: [{ type: "executeJavascript", script: "location.pathname" }],
    })
    expect(again.body.sessionId).toBe(run.body.sessionId)
    expect((await call(server, "DELETE", `/v2/scrape/${id}/interact`)).status).toBe(200)
    expect((await call(server, "DELETE", `/v2/scrape/${id}/interact`)).status).toBe(404)
    expect((await call(server, "POST", `/v2/scrape/${id}/interact`, { prompt: "click it" })).status).toBe(400)
  })

  it("continue a browser scrape with its cookies, storage and phone emulation", async () => {
    const scraped = await call(server, "POST", "/v2/scrape", {
      url: `${site.url}/shop`,
      formats: ["markdown"],
      mobile: true,
    })
    const id = scraped.body.data!.metadata.scrapeId
    const run = await call(server, "POST", `/v2/scrape/${id}/interact`, {
      actions: [
        {
          type: "executeJavascript",
          script: "[location.pathname, document.cookie, localStorage.getItem('seen'), screen.width].join(' ')",
        },
      ],
    })
    expect(run.status, JSON.stringify(run.body)).toBe(200)
    expect(run.body.actions?.javascriptReturns[0]?.value).toBe("/shop basket=42 yes 390")
    // Another key cannot continue it.
    expect((await call(server, "POST", `/v2/scrape/${id}/interact`, { actions: [] }, KEY_B)).status).toBe(404)
    await call(server, "DELETE", `/v2/scrape/${id}/interact`)
  })

  it("show the page live, forward a viewer's clicks and keys with the interactive URL, and nothing with the other", async () => {
    const session = await open(server)
    const viewer = await chromium.launch({ executablePath, args: ["--no-sandbox"] })
    const field = "document.getElementById('field').value"
    const button = "document.getElementById('go').textContent"
    try {
      await evaluate(server, session.id, "1", `${site.url}/button`)
      const page = await viewer.newPage({ viewport: { width: 1280, height: 800 } })
      await page.goto(session.interactiveLiveViewUrl)
      await shown(page)
      const shot = await page.locator("#screen").screenshot()
      // The frame as shown: the page's block on its right half, its white background under the input on the left.
      expect(shot.readUInt32BE(16)).toBeGreaterThan(600)
      const [block, background] = await coloursOf(viewer, shot, [
        [0.75, 0.5],
        [0.25, 0.9],
      ])
      expect(near(block!, BLOCK), `${block}`).toBe(true)
      expect(near(background!, [255, 255, 255]), `${background}`).toBe(true)
      // The button fills the page's top-left 400 × 300 pixels; a click on the frame there presses it.
      await page.locator("#screen").click({ position: { x: 100, y: 100 } })
      expect(await eventually(server, session.id, button, "clicked")).toBe("clicked")
      // Keys typed on the live view reach the page's focused input: characters, and named keys (Backspace).
      await page.locator("#screen").click({ position: { x: 100, y: 350 } })
      await page.keyboard.type("tidex")
      await page.keyboard.press("Backspace")
      await page.keyboard.type("s")
      expect(await eventually(server, session.id, field, "tides")).toBe("tides")

      // The read-only URL shows the page but forwards nothing: not its clicks and keys, nor input sent on its socket.
      await evaluate(server, session.id, `document.getElementById('go').textContent = 'press'; ${field} = ''`)
      const watcher = await viewer.newPage()
      await watcher.goto(session.liveViewUrl)
      await shown(watcher)
      await watcher.locator("#screen").click({ position: { x: 100, y: 100 } })
      await watcher.keyboard.type("nope")
      await sendOnSocket(watcher, session.liveViewUrl, [
        { type: "click", x: 100, y: 100 },
        { type: "text", text: "nope" },
      ])
      // The same kind of message on the interactive socket arrives: what the read-only one sent before would have too.
      await sendOnSocket(watcher, session.interactiveLiveViewUrl, [{ type: "text", text: "!" }])
      expect(await eventually(server, session.id, field, "!")).toBe("!")
      expect(await evaluate(server, session.id, button)).toBe("press")
      expect((await fetch(session.liveViewUrl.replace(/token=.*/, "token=wrong"))).status).toBe(404)
    } finally {
      await viewer.close()
      await call(server, "DELETE", `/v2/interact/${session.id}`)
    }
  })
})

describe("interact sessions with code allowed", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await start({ allowCode: true, maxSessions: 1 })
  })
  afterAll(() => server.close())

  it("run Node.js code against the session's page, print what it returns, and stop code that runs over", async () => {
    const session = await open(server)
    try {
      const run = await call(server, "POST", `/v2/interact/${session.id}/execute`, {
        code: `await page.goto(${JSON.stringify(`${site.url}/tides`)}); console.log("at", new URL(page.url()).pathname); return await page.title()`,
      })
      expect(run.status, JSON.stringify(run.body)).toBe(200)
      expect(run.body).toMatchObject({
        stdout: "at /tides\nTides\n",
        result: "at /tides\nTides\n",
        exitCode: 0,
        killed: false,
      })
      const thrown = await call(server, "POST", `/v2/interact/${session.id}/execute`, {
        code: "throw new Error('nope')",
      })
      expect(thrown.body).toMatchObject({ exitCode: 1, killed: false, error: "nope" })
      // The child has none of the server's environment.
      const env = await call(server, "POST", `/v2/interact/${session.id}/execute`, {
        code: "return Object.keys(process.env).sort()",
      })
      expect(JSON.parse(env.body.stdout ?? "")).toEqual(["PATH", "WEBDATA_CDP_ENDPOINT", "WEBDATA_PLAYWRIGHT"])
      const started = Date.now()
      const endless = await call(server, "POST", `/v2/interact/${session.id}/execute`, {
        code: "while (true) {}",
        timeout: 2,
      })
      expect(endless.body).toMatchObject({ killed: true })
      expect(Date.now() - started).toBeLessThan(6000)
      // Sessions are bounded: this server allows one.
      expect((await call(server, "POST", "/v2/interact", {})).status).toBe(429)
    } finally {
      await call(server, "DELETE", `/v2/interact/${session.id}`)
    }
  })

  it("end a session that has not been used for its activityTtl, and its browser with it", async () => {
    const before = sessionProcesses()
    const session = await open(server, { activityTtl: 10 })
    expect(sessionProcesses()).toBeGreaterThan(before)
    await sleep(11_500)
    expect((await call(server, "GET", `/v2/interact/${session.id}`)).body.status).toBe("destroyed")
    expect(await sessionProcessesSettled(before)).toBe(before)
    await expect(chromium.connectOverCDP(session.cdpUrl, { timeout: 2000 })).rejects.toThrow()
  }, 20_000)
})
