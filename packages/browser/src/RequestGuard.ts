/**
 * Every request a browser context makes passes the URL guard that plain HTTP uses: its URL here, where Playwright
 * routes it (refused at once, counted, ads left out), and its connection in the context's guard proxy
 * (`GuardProxy.ts`), which sees what routes do not — the hops of a redirect — and resolves and checks host names as it
 * connects. What the proxy refused is matched to the failed request here.
 */
import { ScrapeError } from "@webdata/core/engine"
import type { BrowserContext, Page, Request, Route } from "playwright-core"
import { refusalFor } from "./GuardProxy.js"

/** Undefined when the guard allows `url` (its scheme, an IP-literal host, an intranet name; no DNS), else why not. */
export type CheckTarget = (url: string) => Promise<ScrapeError | undefined>

/** What the guard refused on one page: the first refusal of its own document becomes the scrape's error. */
export interface Refusals {
  document?: ScrapeError | undefined
  /** What the context's guard proxy refused, by URL or `host:port` (`refusalFor`). */
  readonly proxied: Map<string, ScrapeError>
  /** The response being received when the page's byte budget ran out. */
  overBudget?: string | undefined
  /** The page whose document counts (a scrape's: not its popups'); when unset, any page's. */
  page?: Page | undefined
  readonly urls: Array<string>
}

/** Whether a request loads a page's own document, of `page` when given (a service worker's has no frame to ask). */
const isPageDocument = (request: Request, page?: Page) => {
  try {
    const frame = request.frame()
    return (
      request.isNavigationRequest() && frame.parentFrame() === null && (page === undefined || frame.page() === page)
    )
  } catch {
    return false
  }
}

/** Requests one context may make; a page asking for more (ten thousand frames) gets the rest refused. */
export const MAX_REQUESTS = 1500

/**
 * `blocked`: sub-resources refused before anything else (ads, trackers); the page's own document never is. They are
 * not the guard's refusals.
 */
export const guardRequests = async (
  context: BrowserContext,
  check: CheckTarget,
  refusals: Refusals,
  blocked?: (request: Request) => boolean,
) => {
  let requests = 0
  const handle = async (route: Route) => {
    const request = route.request()
    const allowed = async (url: string) => {
      const refusal = await check(url)
      if (refusal === undefined) return true
      refusals.urls.push(url)
      if (refusals.document === undefined && isPageDocument(request, refusals.page)) refusals.document = refusal
      return false
    }
    const url = request.url()
    // data: and blob: URLs never leave the browser.
    if (!/^https?:/i.test(url)) return route.continue()
    if (++requests > MAX_REQUESTS) return route.abort("blockedbyclient")
    if (blocked !== undefined && !isPageDocument(request) && blocked(request)) return route.abort("blockedbyclient")
    if (!(await allowed(url))) return route.abort("blockedbyclient")
    // Sent through the guard proxy, which checks every redirect hop and streams the answer.
    return route.continue()
  }
  // A page closed while its request was in flight makes the route's calls throw: nobody is left to answer.
  await context.route("**/*", (route) => handle(route).catch(() => route.abort().catch(() => undefined)))
  // A request the proxy refused fails in the browser as a tunnel or empty response: the refusal says why.
  context.on("requestfailed", (request) => {
    const refusal = refusalFor(refusals.proxied, request.url())
    if (refusal !== undefined && refusals.document === undefined && isPageDocument(request, refusals.page))
      refusals.document = refusal
  })
  // WebSockets are not requests Playwright routes: their URLs are checked here (http(s) form), their connections in the proxy.
  await context.routeWebSocket(/^wss?:/i, async (socket) => {
    const url = socket.url()
    const refusal = await check(url.replace(/^ws/i, "http"))
    if (refusal === undefined) return socket.connectToServer()
    refusals.urls.push(url)
    return socket.close({ code: 1008, reason: "Refused by the URL guard" })
  })
}

/** A refusal for when the guard's own error is not at hand. */
export const refusalOf = (url: string) =>
  new ScrapeError({ reason: "BlockedAddress", url, message: `The URL guard refused ${url}` })
