/**
 * Every request a browser context makes passes the URL guard that plain HTTP uses. Playwright does not route the hops
 * of a redirect, so an allowed request is made from here without following redirects (`maxRedirects: 0`) and its
 * answer handed to the browser: a redirect's target is then asked for anew and comes back through this check.
 */
import { ScrapeError } from "@webdata/core/engine"
import type { BrowserContext } from "playwright-core"

/** Undefined when the guard allows `url`, else why it refuses it. */
export type CheckTarget = (url: string) => Promise<ScrapeError | undefined>

/** What the guard refused on one page: the first refusal of its own document becomes the scrape's error. */
export interface Refusals {
  document?: ScrapeError | undefined
  /** Why the page's own document could not be fetched (the browser only learns "connection failed"). */
  documentFailure?: unknown
  readonly urls: Array<string>
}

export const guardRequests = async (context: BrowserContext, check: CheckTarget, refusals: Refusals) =>
  context.route("**/*", async (route) => {
    const request = route.request()
    const allowed = async (url: string) => {
      const refusal = await check(url)
      if (refusal === undefined) return true
      refusals.urls.push(url)
      if (request.isNavigationRequest() && request.frame().parentFrame() === null && refusals.document === undefined)
        refusals.document = refusal
      return false
    }
    const url = request.url()
    // data: and blob: URLs never leave the browser.
    if (!/^https?:/i.test(url)) return route.continue()
    if (!(await allowed(url))) return route.abort("blockedbyclient")
    const response = await route.fetch({ maxRedirects: 0 }).catch((error: unknown) => {
      if (request.isNavigationRequest() && request.frame().parentFrame() === null) refusals.documentFailure ??= error
      return undefined
    })
    if (response === undefined) return route.abort("connectionfailed")
    // A redirect's target is checked before the browser is told to go there (it does not route a navigation's hops).
    const location = response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined
    const target = location === undefined ? undefined : URL.parse(location, url)?.href
    if (target !== undefined && !(await allowed(target))) return route.abort("blockedbyclient")
    return route.fulfill({ response })
  })

/** A refusal for when the guard's own error is not at hand. */
export const refusalOf = (url: string) =>
  new ScrapeError({ reason: "BlockedAddress", url, message: `The URL guard refused ${url}` })
