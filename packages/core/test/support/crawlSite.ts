/**
 * A site for crawl tests, served on 127.0.0.1: pages with links, robots.txt, sitemaps, and per-page behaviour
 * (status, delay, Retry-After). It records every request (path and start time) and the most requests in flight.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export interface SitePage {
  readonly links?: ReadonlyArray<string>
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly delayMs?: number
  readonly title?: string
  /** Answers for the n-th request of this page (0-based); later requests use the page itself. */
  readonly answers?: ReadonlyArray<{ readonly status: number; readonly headers?: Record<string, string> }>
}

export interface CrawlSite {
  readonly url: string
  readonly hits: (path: string) => number
  /** Paths in the order they were requested, with the time each request started. */
  readonly requests: ReadonlyArray<{ readonly path: string; readonly at: number }>
  readonly maxInFlight: () => number
  readonly close: () => Promise<void>
}

export interface SiteSpec {
  readonly pages: Record<string, SitePage>
  readonly robots?: string
  /** Files served as is (sitemaps, ...): path → [content type, body]. */
  readonly files?: Record<string, readonly [string, string | Buffer]>
}

const page = (path: string, spec: SitePage): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${spec.title ?? `Page ${path}`}</title></head>` +
  `<body><nav><a href="/">Home</a></nav><main><article><h1>Page ${path}</h1>` +
  `<p>This is the content of the page at ${path}. It has enough words to count as the main content of the page.</p>` +
  `<ul>${(spec.links ?? []).map((link) => `<li><a href="${link}">${link}</a></li>`).join("")}</ul>` +
  "</article></main><footer>Footer text</footer></body></html>"

/** `count` pages `/p/0` … linked as a graph where every page is reachable from `/` (each page links the next two). */
export const chainPages = (count: number, options: { readonly delayMs?: number } = {}): Record<string, SitePage> => {
  const slow = options.delayMs !== undefined ? { delayMs: options.delayMs } : {}
  const pages: Record<string, SitePage> = { "/": { links: ["/p/0"], ...slow } }
  for (let i = 0; i < count; i++)
    pages[`/p/${i}`] = { links: [`/p/${(i + 1) % count}`, `/p/${(i * 7 + 3) % count}`, "/"], ...slow }
  return pages
}

export const startCrawlSite = async (spec: SiteSpec): Promise<CrawlSite> => {
  const counts = new Map<string, number>()
  const requests: Array<{ path: string; at: number }> = []
  let inFlight = 0
  let maxInFlight = 0
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://site").pathname
    const count = counts.get(path) ?? 0
    counts.set(path, count + 1)
    requests.push({ path, at: Date.now() })
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on("close", () => inFlight--)
    if (path === "/robots.txt" && spec.robots !== undefined) {
      res.setHeader("content-type", "text/plain")
      return void res.end(spec.robots)
    }
    const file = spec.files?.[path]
    if (file !== undefined) {
      res.setHeader("content-type", file[0])
      return void res.end(file[1])
    }
    const found = spec.pages[path]
    if (found === undefined) {
      res.statusCode = 404
      res.setHeader("content-type", "text/html")
      return void res.end("<html><body><h1>Not found</h1><p>Nothing lives at this address.</p></body></html>")
    }
    if (found.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, found.delayMs))
    if (res.destroyed) return
    const answer = found.answers?.[count]
    res.statusCode = answer?.status ?? found.status ?? 200
    for (const [name, value] of Object.entries({ ...found.headers, ...answer?.headers })) res.setHeader(name, value)
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(page(path, found))
  }
  const server = createServer((req, res) => void handle(req, res))
  const { url, close } = await listenOnLoopback(server)
  return { url, hits: (path) => counts.get(path) ?? 0, requests, maxInFlight: () => maxInFlight, close }
}
