/** A site on 127.0.0.1 whose pages a test edits between requests: path → HTML (absent: 404), with a hit count. */
import { createServer } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export interface EditableSite {
  readonly url: string
  /** Path → HTML body; delete a path to make it answer 404. */
  readonly pages: Map<string, string>
  /** Path → milliseconds the answer waits (a slow page). */
  readonly delays: Map<string, number>
  readonly hits: (path: string) => number
  readonly close: () => Promise<void>
}

export const page = (title: string, body: string, links: ReadonlyArray<string> = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}${links
    .map((link) => `<p><a href="${link}">${link}</a></p>`)
    .join("")}</main></body></html>`

export const startEditableSite = async (pages: Record<string, string>): Promise<EditableSite> => {
  const served = new Map(Object.entries(pages))
  const hits = new Map<string, number>()
  const delays = new Map<string, number>()
  const listening = await listenOnLoopback(
    createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://site").pathname
      hits.set(path, (hits.get(path) ?? 0) + 1)
      setTimeout(() => {
        const body = served.get(path)
        if (body === undefined) {
          response.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not found</h1></body></html>")
          return
        }
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)
      }, delays.get(path) ?? 0)
    }),
  )
  return { url: listening.url, pages: served, delays, hits: (path) => hits.get(path) ?? 0, close: listening.close }
}
