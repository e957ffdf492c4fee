/**
 * The browser engine on the system Chromium (playwright-core): a fresh context per page (no cookies or storage
 * shared between scrapes), at most `maxPages` pages open, on the processes of `Processes.ts`. Every request a page
 * makes passes the same URL guard as plain HTTP (`RequestGuard.ts`).
 */

import {
  BrowserEngine,
  type LiveSession,
  type RenderedPage,
  type RenderRequest,
  ScrapeError,
  type SessionSettings,
  UrlGuard,
} from "@webdata/core/engine"
import { Cause, Config, Effect, Exit, Layer, Option, Runtime } from "effect"
import type { BrowserContext, Page, Response } from "playwright-core"
import { runActions, screenshotOf } from "./Actions.js"
import { filters, isAd, removeHidden } from "./AdBlock.js"
import { findChromium } from "./Chromium.js"
import { emulationOf } from "./Emulation.js"
import { scrapeErrorOf } from "./Errors.js"
import { type GuardProxy, openProxyFor, overBudgetError, PAGE_BYTES, proxySetting } from "./GuardProxy.js"
import { makeProcesses } from "./Processes.js"
import { type CheckTarget, guardRequests, type Refusals, refusalOf } from "./RequestGuard.js"
import { type OpenedSession, openSession } from "./Session.js"
import { SETTLE_MAX_MS, settle, trackRequests } from "./Settle.js"
import { settlesWithin, valueWithin } from "./SettlesWithin.js"
import { isStorageState } from "./StorageState.js"

export interface BrowserOptions {
  /** The Chromium to launch (`findChromium()` finds the system's). */
  readonly executablePath: string
  /** Pages open at once; more renders wait for one to close. Default 4. */
  readonly maxPages?: number
  /** Pages one browser process renders before it is replaced. Default 200. */
  readonly pagesPerBrowser?: number
  /** Bytes one page may receive, all its responses together (streamed, never held here). Default 256 MiB. */
  readonly maxPageBytes?: number
}

const VIEWPORT = { width: 1280, height: 800 }

/** How long opening or closing a page's context may take before its browser is taken for hung. */
const CONTEXT_MS = 5000

/** The least time left in a scrape for another try on a fresh browser (which opens a page in ~1–2 s). */
const RETRY_MIN_MS = 2000

/** The most a page's ads and cookie banners may take to remove. */
const BANNER_BUDGET_MS = 500

const isHtml = (contentType: string | undefined) => contentType === undefined || /html|xml/i.test(contentType)

const documentOf = async (response: Response | null, html: () => Promise<string>) => {
  const headers = response === null ? {} : await response.allHeaders()
  const contentType = headers["content-type"]
  // An HTML page as the browser has it now; anything else (JSON, text) as the server sent it.
  const body = isHtml(contentType) || response === null ? new TextEncoder().encode(await html()) : await response.body()
  return { headers, contentType: isHtml(contentType) ? "text/html; charset=utf-8" : contentType, body }
}

export const make = (options: BrowserOptions) =>
  Effect.gen(function* () {
    const guard = yield* UrlGuard.UrlGuard
    const runPromiseExit = Runtime.runPromiseExit(yield* Effect.runtime<never>())
    const permits = yield* Effect.makeSemaphore(options.maxPages ?? 4)
    const processes = makeProcesses(options.executablePath, options.pagesPerBrowser ?? 200)
    // The URL alone: names are resolved and checked once, as the page's guard proxy connects (`guard.lookup`).
    const check: CheckTarget = async (url) => {
      const exit = await runPromiseExit(guard.checkUrl(url))
      return Exit.isSuccess(exit) ? undefined : Option.getOrElse(Cause.failureOption(exit.cause), () => refusalOf(url))
    }

    let rendering = 0
    const renderPage = async (request: RenderRequest, signal: AbortSignal): Promise<RenderedPage> => {
      rendering++
      const begun = Date.now()
      let instance = processes.acquire()
      // The filters are parsed (once, ~1 s) while the first browser starts.
      const adFiltersLoading = request.blockAds === false ? undefined : filters()
      let context: BrowserContext | undefined
      let proxy: GuardProxy | undefined
      const refusals: Refusals = { urls: [], proxied: new Map() }
      try {
        proxy = await openProxyFor(refusals, {
          check,
          lookup: guard.lookup,
          upstream: request.proxy,
          maxBytes: options.maxPageBytes ?? PAGE_BYTES,
        })
        const contextOptions = {
          viewport: VIEWPORT,
          ...emulationOf(request),
          ...(request.screenshot?.viewport !== undefined ? { viewport: request.screenshot.viewport } : {}),
          ignoreHTTPSErrors: request.skipTlsVerification,
          extraHTTPHeaders: { ...request.headers },
          serviceWorkers: "block" as const,
          acceptDownloads: false,
          ...(isStorageState(request.storageState) ? { storageState: request.storageState } : {}),
          proxy: proxySetting(proxy),
        }
        for (let attempt = 1; context === undefined; attempt++) {
          const opening = (await instance.browser).newContext(contextOptions)
          context = await valueWithin(opening, CONTEXT_MS)
          if (context !== undefined) break
          // A browser still tearing down a hostile page (ten thousand frames) can take seconds to open another: it
          // is replaced, and the page tried once more on a fresh one while the scrape's time allows.
          processes.retire(instance)
          void opening.then((late) => late.close()).catch(() => undefined)
          if (attempt > 1 || request.timeoutMs - (Date.now() - begun) < RETRY_MIN_MS)
            throw new ScrapeError({
              reason: "EngineFailed",
              url: request.url,
              message: `The browser did not open a page for ${request.url} within ${CONTEXT_MS} ms; it is being replaced.`,
            })
          processes.release(instance)
          instance = processes.acquire()
        }
        const opened = context
        signal.addEventListener("abort", () => void opened.close().catch(() => undefined), { once: true })
        const adFilters = await adFiltersLoading
        await guardRequests(
          context,
          check,
          refusals,
          adFilters === undefined ? undefined : (sub) => isAd(adFilters, sub, request.url),
        )
        // Two hundred `window.open` calls take Chromium ten seconds to refuse one by one.
        await context.addInitScript(() => {
          window.open = () => null
        })
        const page: Page = await context.newPage()
        refusals.page = page
        // Popups are not followed: scripts cannot open them, and any other (a link with a target) is closed as it opens.
        context.on("page", (opened) => {
          if (opened !== page) void opened.close().catch(() => undefined)
        })
        const started = Date.now()
        const requests = trackRequests(page)
        const response = await page.goto(request.url, { waitUntil: "load", timeout: request.timeoutMs })
        if (request.waitForMs > 0) await page.waitForTimeout(request.waitForMs)
        // Within the scrape's budget, leaving a second for reading the page.
        await settle(page, requests, Math.min(Date.now() + SETTLE_MAX_MS, started + request.timeoutMs - 1000))
        if (adFilters !== undefined) await removeHidden(adFilters, page, BANNER_BUDGET_MS)
        const actions = await runActions(page, request)
        // A script or action that took the page to a refused address left it on Chromium's error page.
        if (refusals.document !== undefined) throw refusals.document
        const document = await documentOf(response, () => page.content())
        const screenshot = await screenshotOf(page, request)
        const storageState = request.keepState === true ? await context.storageState() : undefined
        return {
          url: page.url(),
          status: response?.status() ?? 200,
          ...document,
          ...(screenshot !== undefined ? { screenshot } : {}),
          ...(actions !== undefined ? { actions } : {}),
          ...(storageState !== undefined ? { storageState } : {}),
          ...(refusals.urls.length > 0 ? { blockedUrls: [...refusals.urls] } : {}),
        }
      } catch (error) {
        throw refusals.document ?? overBudgetError(refusals, request.url) ?? scrapeErrorOf(error, request.url)
      } finally {
        // A browser that cannot close a context in time is hung: its other pages finish, new ones get a fresh one.
        if (context !== undefined && !(await settlesWithin(context.close(), CONTEXT_MS))) processes.retire(instance)
        processes.release(instance)
        rendering--
        await proxy?.close()
      }
    }

    const sessions = new Set<OpenedSession>()
    const openLive = (settings: SessionSettings): Effect.Effect<LiveSession, ScrapeError> =>
      Effect.map(
        Effect.tryPromise({
          try: () => openSession(options.executablePath, { check, lookup: guard.lookup }, settings),
          catch: (error) => scrapeErrorOf(error, settings.url ?? "about:blank"),
        }),
        (opened): LiveSession => {
          sessions.add(opened)
          void opened.closed.then(() => sessions.delete(opened))
          const attempt = <A>(url: string, run: () => Promise<A>) =>
            Effect.tryPromise({ try: run, catch: (error) => scrapeErrorOf(error, url) })
          return {
            cdpEndpoint: opened.cdpEndpoint,
            run: (actions, timeoutMs, url) =>
              attempt(url ?? "session", () => opened.run(actions, timeoutMs, url)).pipe(
                Effect.timeoutFail({
                  duration: timeoutMs,
                  onTimeout: () =>
                    new ScrapeError({ reason: "Timeout", message: `The actions took longer than ${timeoutMs} ms.` }),
                }),
              ),
            runCode: (code, timeoutMs) => attempt("session", () => opened.runCode(code, timeoutMs)),
            storageState: attempt("session", opened.storageState),
            watch: (onFrame) =>
              Effect.map(
                attempt("session", () => opened.watch(onFrame)),
                (stop) => Effect.promise(stop),
              ),
            input: (event) => attempt("session", () => opened.input(event)),
            closed: Effect.promise(() => opened.closed),
            close: Effect.promise(opened.close),
          }
        },
      )

    yield* Effect.addFinalizer(() =>
      Effect.promise(() => Promise.all([processes.close(), ...[...sessions].map((session) => session.close())])),
    )

    return {
      render: (request: RenderRequest) =>
        permits.withPermits(1)(
          Effect.tryPromise({
            try: (signal) => renderPage(request, signal),
            catch: (error): ScrapeError => scrapeErrorOf(error, request.url),
          }),
        ),
      openSession: openLive,
      probe: Effect.tryPromise({
        try: processes.probe,
        catch: (error) => scrapeErrorOf(error, "about:blank"),
      }),
      usage: Effect.sync(() => ({ pages: rendering, sessions: sessions.size })),
    }
  })

/** The browser engine on the given Chromium. */
export const layer = (options: BrowserOptions): Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> =>
  Layer.scoped(BrowserEngine, make(options))

/**
 * The browser engine configured from the environment: `CHROMIUM_PATH` (else Chromium found on the PATH) and
 * `WEBDATA_BROWSER_PAGES`, `WEBDATA_BROWSER_PAGE_MB`; undefined when there is no Chromium, so that the host runs
 * without it and says so.
 */
export const layerConfig = (
  env: NodeJS.ProcessEnv = process.env,
): Effect.Effect<Layer.Layer<BrowserEngine, never, UrlGuard.UrlGuard> | undefined, never> =>
  Effect.gen(function* () {
    const executablePath = findChromium(env)
    if (executablePath === undefined) return undefined
    const maxPages = yield* Config.integer("WEBDATA_BROWSER_PAGES").pipe(Config.withDefault(4), Effect.orDie)
    const pageMb = yield* Config.number("WEBDATA_BROWSER_PAGE_MB").pipe(
      Config.withDefault(PAGE_BYTES / 1024 / 1024),
      Effect.orDie,
    )
    return layer({ executablePath, maxPages: Math.max(1, maxPages), maxPageBytes: Math.max(1, pageMb) * 1024 * 1024 })
  })
