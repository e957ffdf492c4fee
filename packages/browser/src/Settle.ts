/**
 * Waiting for a page that renders late (scripts that fill it after the load event) before it is read: until its DOM
 * has not changed for a moment and none of its scripts, documents or data requests is in flight, or a deadline.
 */
import type { Page, Request } from "playwright-core"

/** After the load event, how long a page may keep changing before it is read anyway. */
export const SETTLE_MAX_MS = 3000
/** A DOM that has not changed for this long, with no request in flight, is taken as rendered. */
const QUIET_MS = 150

/** Requests that may still bring the page's content (images, fonts and media do not). */
const BRINGS_CONTENT = new Set(["document", "script", "fetch", "xhr", "eventsource"])

export interface RequestsInFlight {
  readonly busy: () => boolean
  /** Resolves once no content request is in flight (at once when none is), or at the deadline. */
  readonly idle: (deadline: number) => Promise<void>
}

/** Counts the page's content requests in flight, from now on. */
export const trackRequests = (page: Page): RequestsInFlight => {
  const inFlight = new Set<Request>()
  const waiters = new Set<() => void>()
  const done = (request: Request) => {
    if (!inFlight.delete(request) || inFlight.size > 0) return
    for (const waiter of waiters) waiter()
  }
  page.on("request", (request) => {
    if (BRINGS_CONTENT.has(request.resourceType())) inFlight.add(request)
  })
  page.on("requestfinished", done)
  page.on("requestfailed", done)
  return {
    busy: () => inFlight.size > 0,
    idle: (deadline) =>
      inFlight.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const finish = () => {
              waiters.delete(finish)
              clearTimeout(timer)
              resolve()
            }
            const timer = setTimeout(finish, Math.max(0, deadline - Date.now()))
            waiters.add(finish)
          }),
  }
}

/** Resolves once the page's DOM has not changed for `quietMs`, or after `budgetMs`; runs in the page. */
const domQuiet = ({ quietMs, budgetMs }: { quietMs: number; budgetMs: number }) =>
  new Promise<void>((resolve) => {
    const finish = () => {
      observer.disconnect()
      clearTimeout(quiet)
      clearTimeout(cap)
      resolve()
    }
    let quiet = setTimeout(finish, quietMs)
    const cap = setTimeout(finish, budgetMs)
    const observer = new MutationObserver(() => {
      clearTimeout(quiet)
      quiet = setTimeout(finish, quietMs)
    })
    observer.observe(document, { subtree: true, childList: true, characterData: true })
  })

/** Waits until the DOM is quiet with no content request in flight, or until `deadline`. */
export const settle = async (page: Page, requests: RequestsInFlight, deadline: number) => {
  while (Date.now() < deadline) {
    // A page whose scripts hold its thread cannot answer: the scrape's own timeout ends it then.
    await page.evaluate(domQuiet, { quietMs: QUIET_MS, budgetMs: deadline - Date.now() }).catch(() => undefined)
    if (!requests.busy()) return
    // What is still loading may change the page: wait for it, then for the DOM to be quiet again.
    await requests.idle(deadline)
  }
}
