/** The scrape's actions and screenshots run on an open page. */
import { type ActionResults, type RenderRequest, ScrapeError } from "@webdata/core/engine"
import type { Page } from "playwright-core"

/** The longest an action waits for its element (a `wait` for a selector, a click). */
const ACTION_TIMEOUT_MS = 10_000

/**
 * An `executeJavascript` script as an expression when it is one (`document.title`), else as a function body
 * (`el.click(); return el.textContent`); it runs in an async function, so `await` works in it.
 */
const scriptOf = (script: string): string => {
  const single = script.trim().replace(/;\s*$/, "")
  return /\breturn\b|;|\n/.test(single) ? `(async () => {\n${script}\n})()` : `(async () => (${single}))()`
}

/** The screenshot asked for, as a `data:` URL: PNG, or JPEG when a quality is given. */
export const screenshotOf = async (page: Page, request: RenderRequest): Promise<string | undefined> => {
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
export const runActions = async (page: Page, request: RenderRequest): Promise<ActionResults | undefined> => {
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
          else await page.mouse.wheel(0, (action.direction === "up" ? -1 : 1) * (page.viewportSize()?.height ?? 800))
          break
        case "screenshot":
          results.screenshots.push(
            (await screenshotOf(page, {
              ...request,
              screenshot: { fullPage: action.fullPage ?? false, quality: action.quality, viewport: action.viewport },
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
