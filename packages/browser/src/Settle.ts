/** Waiting for a page that renders late (scripts that fill it after the load event) before it is read. */
import type { Page } from "playwright-core"

/** After the load event, how long a page may keep changing its text before it is read. */
export const SETTLE_MAX_MS = 3000
const SETTLE_POLL_MS = 100

/** Waits until the page's text has not changed for three checks in a row, or until `deadline`. */
export const settle = async (page: Page, deadline: number) => {
  let last = -1
  for (let quiet = 0; quiet < 3 && Date.now() < deadline; ) {
    const length = await page.evaluate(() => document.body?.innerText.length ?? 0).catch(() => -2)
    quiet = length === last ? quiet + 1 : 0
    last = length
    await page.waitForTimeout(SETTLE_POLL_MS)
  }
}
