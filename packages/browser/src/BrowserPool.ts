/**
 * The browser engine on the system Chromium (playwright-core): one browser process, launched on the first page that
 * needs it, a fresh context per page (no cookies or storage shared between scrapes), at most `maxPages` pages open,
 * and the process replaced after `pagesPerBrowser` pages (its memory grows with them) or when it dies. Every request
 * a page makes (the document, sub-resources, redirects, fetch/XHR) passes the same URL guard as plain HTTP.
 */
import {
  type ActionResults,
  BrowserEngine,
  type RenderedPage,
  type RenderRequest,
  ScrapeError,
  UrlGuard,
} from "@webdata/core"
import { Cause, Config, Effect, Exit, Layer, Option, Runtime } from "effect"
import type { Browser, BrowserContext, Page, Response } from "playwright-core"
import { findChromium } from "./Chromium.js"
import { emulationOf } from "./Emulation.js"

export interface BrowserOptions {
  /** The Chromium to launch (`findChromium()` finds the system's). */
  readonly executablePath: string
  /** Pages open at once; more renders wait for one to close. Default 4. */
  readonly maxPages?: number
  /** Pages one browser process renders before it is replaced. Default 200. */
  readonly pagesPerBrowser?: number
}

/**
 * Flags for a server: no sandbox (it needs user namespaces, which containers and root users lack), no /dev/shm (small
 * in containers), no GPU, and nothing that calls home (updates, sync, crash reports, background networking).
 */
const LAUNCH_ARGS = [
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
]

const VIEWPORT = { width: 1280, height: 800 }

/** The longest an action waits for its element (a `wait` for a selector, a click). */
const ACTION_TIMEOUT_MS = 10_000

/** After the load event, how long a page may keep changing its text (scripts that render late) before it is read. */
const SETTLE_MAX_MS = 3000
const SETTLE_POLL_MS = 100

/** Waits until the page's text has not changed for three checks in a row, or until `deadline`. */
const settle = async (page: Page, deadline: number) => {
  let last = -1
  for (let quiet = 0; quiet < 3 && Date.now() < deadline; ) {
    const length = await page.evaluate(() => document.body?.innerText.length ?? 0).catch(() => -2)
    quiet = length === last ? quiet + 1 : 0
    last = length
    await page.waitForTimeout(SETTLE_POLL_MS)
  }
}

/** A browser process, how many pages it has been given and how many it has open. */
interface Instance {
  readonly browser: Promise<Browser>
  given: number
  open: number
  retired: boolean
}

const REASONS: ReadonlyArray<readonly [RegExp, ScrapeError["reason"]]> = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/, "DnsResolution"],
  [/ERR_CONNECTION_(REFUSED|RESET|CLOSED|FAILED)|ERR_EMPTY_RESPONSE|ERR_ADDRESS_UNREACHABLE/, "Connection"],
  [/ERR_CERT_|ERR_SSL_/, "Tls"],
  [/ERR_TOO_MANY_REDIRECTS/, "TooManyRedirects"],
]

/** A Playwright failure as a scrape error. */
const scrapeErrorOf = (error: unknown, url: string): ScrapeError => {
  if (error instanceof ScrapeError) return error
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error)
  if (error instanceof Error && error.name === "TimeoutError")
    return new ScrapeError({ reason: "Timeout", url, message: `The browser timed out loading ${url}: ${message}` })
  const reason = REASONS.find(([pattern]) => pattern.test(message))?.[1] ?? "EngineFailed"
  return new ScrapeError({ reason, url, message: `The browser could not load ${url}: ${message}` })
}

/**
 * An `executeJavascript` script as an expression when it is one (`document.title`), else as a function body
 * (`el.click(); return el.textContent`); it runs in an async function, so `await` works in it.
 */
const scriptOf = (script: string): string => {
  const single = script.trim().replace(/;\s*$/, "")
  return /\breturn\b|;|\n/.test(single) ? `(async () => {\n${script}\n})()` : `(async () => (${single}))()`
}

const isHtml = (contentType: string | undefined) => contentType === undefined || /html|xml/i.test(contentType)

export const make = (options: BrowserOptions) =>
  Effect.gen(function* () {
    const guard = yield* UrlGuard.UrlGuard
    const runPromiseExit = Runtime.runPromiseExit(yield* Effect.runtime<never>())
    const permits = yield* Effect.makeSemaphore(options.maxPages ?? 4)
    const pagesPerBrowser = options.pagesPerBrowser ?? 200
    let current: Instance | undefined

    const closeBrowser = (instance: Instance) =>
      instance.browser.then(
        (browser) => browser.close(),
        () => undefined,
      )

    const launch = (): Instance => {
      const instance: Instance = {
        // playwright-core is loaded with the first browser: a server that never needs one does not pay for it.
        browser: import("playwright-core").then(({ chromium }) =>
          chromium.launch({ executablePath: options.executablePath, args: LAUNCH_ARGS, headless: true }),
        ),
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

    const acquire = (): Instance => {
      if (current === undefined || current.retired) current = launch()
      const instance = current
      instance.open++
      if (++instance.given >= pagesPerBrowser) instance.retired = true
      return instance
    }

    const release = async (instance: Instance) => {
      instance.open--
      if (instance.retired && instance.open === 0) await closeBrowser(instance)
    }

    /**
     * Checks every request of the page against the URL guard; the main document's refusal is the scrape's error.
     * Playwright does not route the hops of a redirect, so an allowed request is made from here without following
     * redirects (`maxRedirects: 0`) and its answer handed to the browser: a redirect's target is then asked for anew
     * and comes back through this check.
     */
    const guardRequests = async (context: BrowserContext, refused: { error?: ScrapeError }) =>
      context.route("**/*", async (route) => {
        const request = route.request()
        /** Whether the guard allows `url`; a refusal of the page's own document becomes the scrape's error. */
        const allowed = async (url: string) => {
          const exit = await runPromiseExit(guard.checkTarget(url))
          if (Exit.isSuccess(exit)) return true
          if (request.isNavigationRequest() && request.frame().parentFrame() === null && refused.error === undefined)
            refused.error = Option.getOrElse(
              Cause.failureOption(exit.cause),
              () => new ScrapeError({ reason: "BlockedAddress", url, message: `The URL guard refused ${url}` }),
            )
          return false
        }
        const url = request.url()
        // data: and blob: URLs never leave the browser.
        if (!/^https?:/i.test(url)) return route.continue()
        if (!(await allowed(url))) return route.abort("blockedbyclient")
        const response = await route.fetch({ maxRedirects: 0 }).catch(() => undefined)
        if (response === undefined) return route.abort("connectionfailed")
        // A redirect's target is checked before the browser is told to go there (it does not route a navigation's hops).
        const location = response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined
        const target = location === undefined ? undefined : URL.parse(location, url)?.href
        if (target !== undefined && !(await allowed(target))) return route.abort("blockedbyclient")
        return route.fulfill({ response })
      })

    const documentOf = async (response: Response | null, html: () => Promise<string>) => {
      const headers = response === null ? {} : await response.allHeaders()
      const contentType = headers["content-type"]
      // An HTML page as the browser has it now; anything else (JSON, text) as the server sent it.
      const body =
        isHtml(contentType) || response === null ? new TextEncoder().encode(await html()) : await response.body()
      return { headers, contentType: isHtml(contentType) ? "text/html; charset=utf-8" : contentType, body }
    }

    /** The screenshot asked for, as a `data:` URL: PNG, or JPEG when a quality is given. */
    const screenshotOf = async (page: Page, request: RenderRequest): Promise<string | undefined> => {
      const shot = request.screenshot
      if (shot === undefined) return undefined
      if (shot.viewport !== undefined) await page.setViewportSize(shot.viewport)
      const type = shot.quality === undefined ? "png" : "jpeg"
      const bytes = await page.screenshot({
        type,
        fullPage: shot.fullPage,
        ...(shot.quality !== undefined ? { quality: shot.quality } : {}),
        timeout: request.timeoutMs,
      })
      return `data:image/${type};base64,${bytes.toString("base64")}`
    }

    /** Runs the actions in order; what they give, or an `ActionFailed` error naming the action. */
    const runActions = async (page: Page, request: RenderRequest): Promise<ActionResults | undefined> => {
      const actions = request.actions ?? []
      if (actions.length === 0) return undefined
      const results = {
        screenshots: [] as string[],
        scrapes: [] as Array<{ url: string; html: string }>,
        javascriptReturns: [] as Array<{ type: string; value: unknown }>,
        pdfs: [] as string[],
      }
      // An action waits for its element at most this long, so that a missing one fails as itself, within the scrape.
      const timeout = Math.min(ACTION_TIMEOUT_MS, request.timeoutMs / 2)
      for (const [index, action] of actions.entries()) {
        try {
          switch (action.type) {
            case "wait":
              if (action.selector !== undefined) await page.waitForSelector(action.selector, { timeout })
              else await page.waitForTimeout(action.milliseconds ?? 0)
              break
            case "click": {
              const targets = page.locator(action.selector)
              if (!action.all) await targets.first().click({ timeout })
              else {
                const count = await targets.count()
                if (count === 0) throw new Error("no element matches the selector")
                for (let at = 0; at < count; at++) await targets.nth(at).click({ timeout })
              }
              break
            }
            case "write":
              await page.keyboard.type(action.text)
              break
            case "press":
              await page.keyboard.press(action.key)
              break
            case "scroll":
              if (action.selector !== undefined)
                await page.locator(action.selector).first().scrollIntoViewIfNeeded({ timeout })
              else
                await page.mouse.wheel(0, (action.direction === "up" ? -1 : 1) * (page.viewportSize()?.height ?? 800))
              break
            case "screenshot":
              results.screenshots.push(
                (await screenshotOf(page, {
                  ...request,
                  screenshot: {
                    fullPage: action.fullPage ?? false,
                    quality: action.quality,
                    viewport: action.viewport,
                  },
                })) ?? "",
              )
              break
            case "scrape":
              results.scrapes.push({ url: page.url(), html: await page.content() })
              break
            case "executeJavascript": {
              const value = await page.evaluate(scriptOf(action.script))
              results.javascriptReturns.push({ type: value === null ? "null" : typeof value, value })
              break
            }
            case "pdf": {
              const bytes = await page.pdf({
                ...(action.format !== undefined ? { format: action.format } : {}),
                ...(action.landscape !== undefined ? { landscape: action.landscape } : {}),
                ...(action.scale !== undefined ? { scale: action.scale } : {}),
              })
              results.pdfs.push(`data:application/pdf;base64,${bytes.toString("base64")}`)
              break
            }
          }
        } catch (error) {
          const selector = "selector" in action && action.selector !== undefined ? ` on "${action.selector}"` : ""
          const message = error instanceof Error ? error.message.split("\n")[0] : String(error)
          throw new ScrapeError({
            reason: "ActionFailed",
            url: request.url,
            message: `Action ${index} (${action.type}${selector}) failed: ${message}`,
          })
        }
      }
      return results
    }

    const renderPage = async (request: RenderRequest, signal: AbortSignal): Promise<RenderedPage> => {
      const instance = acquire()
      let context: BrowserContext | undefined
      const refused: { error?: ScrapeError } = {}
      try {
        context = await (await instance.browser).newContext({
          viewport: VIEWPORT,
          ...emulationOf(request),
          ...(request.screenshot?.viewport !== undefined ? { viewport: request.screenshot.viewport } : {}),
          ignoreHTTPSErrors: request.skipTlsVerification,
          extraHTTPHeaders: { ...request.headers },
          serviceWorkers: "block",
          acceptDownloads: false,
        })
        const opened = context
        signal.addEventListener("abort", () => void opened.close().catch(() => undefined), { once: true })
        await guardRequests(context, refused)
        const page = await context.newPage()
        const started = Date.now()
        const response = await page.goto(request.url, { waitUntil: "load", timeout: request.timeoutMs })
        if (request.waitForMs > 0) await page.waitForTimeout(request.waitForMs)
        // Within the scrape's budget, leaving a second for reading the page.
        await settle(page, Math.min(Date.now() + SETTLE_MAX_MS, started + request.timeoutMs - 1000))
        const actions = await runActions(page, request)
        const document = await documentOf(response, () => page.content())
        const screenshot = await screenshotOf(page, request)
        return {
          url: page.url(),
          status: response?.status() ?? 200,
          ...document,
          ...(screenshot !== undefined ? { screenshot } : {}),
          ...(actions !== undefined ? { actions } : {}),
        }
      } catch (error) {
        throw refused.error ?? scrapeErrorOf(error, request.url)
      } finally {
        await context?.close().catch(() => undefined)
        await release(instance)
      }
    }

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const instance = current
        current = undefined
        if (instance !== undefined) await closeBrowser(instance)
      }),
    )

    return {
      render: (request: RenderRequest) =>
        permits.withPermits(1)(
          Effect.tryPromise({
            try: (signal) => renderPage(request, signal),
            catch: (error) => scrapeErrorOf(error, request.url),
          }),
        ),
    }
  })

/** The browser engine on the given Chromium. */
export const layer = (options: BrowserOptions): Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> =>
  Layer.scoped(BrowserEngine, make(options))

/**
 * The browser engine configured from the environment: `CHROMIUM_PATH` (else Chromium found on the PATH) and
 * `WEBDATA_BROWSER_PAGES`; undefined when there is no Chromium, so that the host runs without it and says so.
 */
export const layerConfig = (
  env: NodeJS.ProcessEnv = process.env,
): Effect.Effect<Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> | undefined, never> =>
  Effect.gen(function* () {
    const executablePath = findChromium(env)
    if (executablePath === undefined) return undefined
    const maxPages = yield* Config.integer("WEBDATA_BROWSER_PAGES").pipe(Config.withDefault(4), Effect.orDie)
    return layer({ executablePath, maxPages: Math.max(1, maxPages) })
  })
