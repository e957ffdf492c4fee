/**
 * The Chromium processes: one at a time, launched on first need, replaced after `pagesPerBrowser` pages (its memory
 * grows with them) or when it dies. A retired process closes when its last page does.
 */
import type { Browser } from "playwright-core"
import { settlesWithin, valueWithin } from "./SettlesWithin.js"

/**
 * Flags for a server: no sandbox (it needs user namespaces, which containers and root users lack), no /dev/shm (small
 * in containers), no GPU, and nothing that calls home (updates, sync, crash reports, background networking).
 */
/** The V8 heap of one renderer (a page's scripts), in MiB. */
export const RENDERER_HEAP_MB = 512

export const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-default-apps",
  "--disable-sync",
  "--disable-breakpad",
  "--no-first-run",
  "--mute-audio",
  // A page's scripts get at most this much heap: one that allocates without end crashes its own renderer instead of
  // taking the machine's memory.
  `--js-flags=--max-old-space-size=${RENDERER_HEAP_MB}`,
]

/**
 * The host owns the process's signals: Playwright's own handlers would close the browsers and exit the process on
 * Ctrl-C, before the host's shutdown (sessions' profiles saved, requests finished) could run.
 */
export const LAUNCH_SIGNALS = { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false } as const

/** A browser process, how many pages it has been given and how many it has open. */
export interface Instance {
  readonly browser: Promise<Browser>
  /** Its operating-system process, to kill when it will not close. */
  readonly pid: Promise<number | undefined>
  given: number
  open: number
  retired: boolean
}

export interface Processes {
  /** The current process (launched if need be), counted as having one more page open. */
  readonly acquire: () => Instance
  /** One page of `instance` closed; a retired process closes with its last page (in the background). */
  readonly release: (instance: Instance) => void
  /** No more pages for `instance` (it hung): the next page gets a fresh process. */
  readonly retire: (instance: Instance) => void
  /** The current process (launched if need be) once it is connected; rejects when it cannot be launched. */
  readonly probe: () => Promise<void>
  /** Closes the current process and waits for those closing. */
  readonly close: () => Promise<void>
}

/** How long a browser may take to close before its process is killed. */
const CLOSE_MS = 5000

/** Playwright does not say which process it launched; the browser does, over CDP. */
const pidOf = async (browser: Browser) => {
  const session = await browser.newBrowserCDPSession()
  const { processInfo } = await session.send("SystemInfo.getProcessInfo")
  await session.detach()
  return processInfo.find((entry) => entry.type === "browser")?.id
}

const closeBrowser = async (instance: Instance): Promise<void> => {
  if (
    await settlesWithin(
      instance.browser.then((browser) => browser.close()),
      CLOSE_MS,
    )
  )
    return
  // A hung browser never answers `close`; its renderers exit with it.
  const pid = await valueWithin(instance.pid, 0)
  if (pid !== undefined) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
}

export const makeProcesses = (executablePath: string, pagesPerBrowser: number): Processes => {
  let current: Instance | undefined

  const closing = new Set<Promise<void>>()
  const closeInBackground = (instance: Instance) => {
    const done = closeBrowser(instance).finally(() => closing.delete(done))
    closing.add(done)
  }

  const launch = (): Instance => {
    // playwright-core is loaded with the first browser: a server that never needs one does not pay for it.
    const browser = import("playwright-core").then(({ chromium }) =>
      chromium.launch({ executablePath, args: LAUNCH_ARGS, headless: true, ...LAUNCH_SIGNALS }),
    )
    const instance: Instance = {
      browser,
      pid: browser.then((launched) => valueWithin(pidOf(launched), CLOSE_MS)).catch(() => undefined),
      given: 0,
      open: 0,
      retired: false,
    }
    // A crashed or killed browser is replaced by the next page.
    instance.browser.then(
      (browser) =>
        browser.on("disconnected", () => {
          if (current === instance) current = undefined
        }),
      () => {
        if (current === instance) current = undefined
      },
    )
    return instance
  }

  return {
    acquire: () => {
      if (current === undefined || current.retired) current = launch()
      const instance = current
      instance.open++
      if (++instance.given >= pagesPerBrowser) instance.retired = true
      return instance
    },
    release: (instance) => {
      instance.open--
      if (instance.retired && instance.open === 0) closeInBackground(instance)
    },
    probe: async () => {
      if (current === undefined || current.retired) current = launch()
      const browser = await current.browser
      if (!browser.isConnected()) throw new Error("the browser is not connected")
    },
    retire: (instance) => {
      instance.retired = true
      if (current === instance) current = undefined
    },
    close: async () => {
      const instance = current
      current = undefined
      if (instance !== undefined) closeInBackground(instance)
      await Promise.all([...closing])
    },
  }
}
