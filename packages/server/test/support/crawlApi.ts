/** A crawl driven through a server process's HTTP API, as the tests of real processes drive it. */
import { expect } from "vitest"

export interface Status {
  readonly status: string
  readonly total: number
  readonly completed: number
  readonly creditsUsed: number
  readonly expiresAt: string
  readonly next?: string
  readonly data: ReadonlyArray<{ readonly metadata: { readonly sourceURL: string } }>
}

export const status = async (api: string, id: string, skip = 0): Promise<Status> => {
  const response = await fetch(`${api}/v2/crawl/${id}?skip=${skip}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Status
}

/** Starts a crawl of `site` (markdown only) with `options` over the defaults; its id. */
export const startCrawl = async (api: string, site: string, options: Record<string, unknown>): Promise<string> => {
  const response = await fetch(`${api}/v2/crawl`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: `${site}/`, scrapeOptions: { formats: ["markdown"] }, ...options }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { id: string }).id
}

/** `read` every 100 ms until `done` holds of its value; fails past `timeoutMs` with the last value. */
export const until = async <A>(read: () => Promise<A>, done: (value: A) => boolean, timeoutMs: number): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value).slice(0, 300)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Every page's URL of the crawl, read through the status pages' `next` cursor. */
export const allPages = async (api: string, id: string): Promise<Array<string>> => {
  const urls: Array<string> = []
  for (;;) {
    const page = await status(api, id, urls.length)
    urls.push(...page.data.map((document) => document.metadata.sourceURL))
    if (page.next === undefined || page.data.length === 0) return urls
  }
}
