/**
 * A live session: a Chromium of its own (so that its DevTools endpoint shows nothing of other callers), one persistent
 * context with the URL guard on its requests, and the session's page. Callers drive it with actions, code in a child
 * process, the DevTools protocol through a relay that keeps them in the guarded context, or a live view.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises"
import type { LookupFunction } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import type { LiveFrame, LiveInput, SessionRun, SessionSettings } from "@webdata/core/engine"
import type { BrowserContext, CDPSession, Page } from "playwright-core"
import { runActions } from "./Actions.js"
import { startCdpRelay } from "./CdpRelay.js"
import { runCode } from "./CodeRunner.js"
import { emulationOf } from "./Emulation.js"
import { openProxyFor, overBudgetError, proxySetting } from "./GuardProxy.js"
import { LAUNCH_ARGS, LAUNCH_SIGNALS } from "./Processes.js"
import { type CheckTarget, guardRequests, type Refusals } from "./RequestGuard.js"
import { isStorageState } from "./StorageState.js"

const VIEWPORT = { width: 1280, height: 800 }

/** Chromium writes its DevTools port and path here once it listens. */
const devToolsEndpoint = async (userDataDir: string, deadline: number): Promise<string> => {
  for (;;) {
    const text = await readFile(join(userDataDir, "DevToolsActivePort"), "utf8").catch(() => "")
    const [port, path] = text.split("\n")
    if (port && path) return `ws://127.0.0.1:${port.trim()}${path.trim()}`
    if (Date.now() > deadline) throw new Error("Chromium did not open its DevTools endpoint")
    await sleep(25)
  }
}

export interface OpenedSession {
  readonly cdpEndpoint: string
  readonly run: (
    actions: Parameters<typeof runActions>[1]["actions"],
    timeoutMs: number,
    url?: string,
  ) => Promise<SessionRun>
  readonly runCode: (code: string, timeoutMs: number) => ReturnType<typeof runCode>
  readonly storageState: () => Promise<unknown>
  readonly watch: (onFrame: (frame: LiveFrame) => void) => Promise<() => Promise<void>>
  readonly input: (event: LiveInput) => Promise<void>
  readonly closed: Promise<void>
  readonly close: () => Promise<void>
}

/** Bytes a session's pages may receive in all: more than a page's, for a session lives long. */
const SESSION_BYTES = 1024 * 1024 * 1024

export const openSession = async (
  executablePath: string,
  guard: { readonly check: CheckTarget; readonly lookup: LookupFunction },
  settings: SessionSettings,
): Promise<OpenedSession> => {
  const userDataDir = await mkdtemp(join(tmpdir(), "webdata-session-"))
  const { chromium } = await import("playwright-core")
  const refusals: Refusals = { urls: [], proxied: new Map() }
  const proxy = await openProxyFor(refusals, { ...guard, maxBytes: SESSION_BYTES })
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      proxy: proxySetting(proxy),
      executablePath,
      headless: true,
      ...LAUNCH_SIGNALS,
      args: [...LAUNCH_ARGS, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"],
      viewport: VIEWPORT,
      ...emulationOf(settings),
      extraHTTPHeaders: { ...settings.headers },
      serviceWorkers: "block",
      acceptDownloads: false,
    })
  } catch (error) {
    await proxy.close()
    await rm(userDataDir, { recursive: true, force: true })
    throw error
  }
  const closed = new Promise<void>((resolve) => context.on("close", () => resolve()))
  const relay = await devToolsEndpoint(userDataDir, Date.now() + 10_000).then(startCdpRelay)
  const close = async () => {
    await relay.close()
    // A page stuck in a script can hold the close: the process is given a few seconds, then killed.
    const browser = context.browser()
    await Promise.race([context.close().catch(() => undefined), sleep(5000)])
    if (browser?.isConnected()) await browser.close().catch(() => undefined)
    await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined)
    await proxy.close()
  }
  await guardRequests(context, guard.check, refusals)
  if (isStorageState(settings.storageState)) await context.setStorageState(settings.storageState)
  /** The page callers work on: the newest one open (a click may have opened another). */
  const page = async (): Promise<Page> => context.pages().at(-1) ?? (await context.newPage())
  if (settings.url !== undefined) {
    const start = settings.url
    await page()
      .then((first) => first.goto(start, { timeout: settings.timeoutMs }))
      .catch(async (error: unknown) => {
        await close()
        throw refusals.document ?? overBudgetError(refusals, start) ?? error
      })
  }

  /** One screencast for every viewer of the session. */
  const viewers = new Set<(frame: LiveFrame) => void>()
  let screencast: CDPSession | undefined
  // Chromium sends a frame when the page repaints: a viewer joining a still page gets the last one at once.
  let lastFrame: LiveFrame | undefined
  const startScreencast = async () => {
    const cdp = await context.newCDPSession(await page())
    cdp.on("Page.screencastFrame", (frame) => {
      void cdp.send("Page.screencastFrameAck", { sessionId: frame.sessionId }).catch(() => undefined)
      lastFrame = { data: frame.data, width: frame.metadata.deviceWidth, height: frame.metadata.deviceHeight }
      for (const viewer of viewers) viewer(lastFrame)
    })
    await cdp.send("Page.startScreencast", { format: "jpeg", quality: 70, everyNthFrame: 1 })
    return cdp
  }

  void closed.then(close)

  return {
    cdpEndpoint: relay.url,
    run: async (actions, timeoutMs, url) => {
      const current = await page()
      refusals.document = undefined
      if (url !== undefined)
        await current.goto(url, { timeout: timeoutMs }).catch((error: unknown) => {
          throw refusals.document ?? overBudgetError(refusals, url) ?? error
        })
      const results = await runActions(current, {
        url: current.url(),
        headers: {},
        timeoutMs,
        skipTlsVerification: false,
        waitForMs: 0,
        actions,
      })
      // An action that took the page to a refused address left it on Chromium's error page: the caller is told.
      if (refusals.document !== undefined) throw refusals.document
      return {
        url: (await page()).url(),
        actions: results ?? { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] },
      }
    },
    runCode: (code, timeoutMs) => runCode(relay.url, code, timeoutMs),
    storageState: () => context.storageState(),
    watch: async (onFrame) => {
      viewers.add(onFrame)
      if (screencast === undefined) screencast = await startScreencast()
      else if (lastFrame !== undefined) onFrame(lastFrame)
      return async () => {
        viewers.delete(onFrame)
        if (viewers.size === 0 && screencast !== undefined) {
          const stopping = screencast
          screencast = undefined
          lastFrame = undefined
          await stopping.detach().catch(() => undefined)
        }
      }
    },
    input: async (event) => {
      const current = await page()
      switch (event.type) {
        case "click":
          return current.mouse.click(event.x, event.y)
        case "scroll":
          await current.mouse.move(event.x, event.y)
          return current.mouse.wheel(0, event.deltaY)
        case "key":
          return current.keyboard.press(event.key)
        case "text":
          return current.keyboard.type(event.text)
      }
    },
    closed,
    close,
  }
}
