/**
 * A small website served on 127.0.0.1 for end-to-end tests: the fixture pages, redirects, error pages, JSON and
 * text. Start it with `startFixtureSite()`; every test process gets its own port.
 */
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { fileURLToPath } from "node:url"
import { type Listening, listenOnLoopback } from "./loopback.js"

const page = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/site/${name}`, import.meta.url)))

const html = (body: string, title = "Fixture") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

export type FixtureSite = Listening

type Route = (url: URL) => { status?: number; type?: string; headers?: Record<string, string>; body: string | Buffer }

/** Routes of the site; the article lives at `/article`. */
export const routes: Record<string, Route> = {
  "/": () => ({
    type: "text/html; charset=utf-8",
    body: html('<h1>Ocean Notes</h1><p>Start here.</p><a href="/article">Tidal energy</a>', "Ocean Notes"),
  }),
  "/article": () => ({ type: "text/html; charset=utf-8", body: page("article.html") }),
  "/redirect": () => ({ status: 302, headers: { location: "/article" }, body: "" }),
  "/status/404": () => ({
    status: 404,
    type: "text/html; charset=utf-8",
    body: html("<h1>Page not found</h1><p>The page you asked for does not exist on this site.</p>", "Not found"),
  }),
  "/status/500": () => ({
    status: 500,
    type: "text/html; charset=utf-8",
    body: html("<h1>Server error</h1><p>Something broke while rendering this page.</p>", "Error"),
  }),
  "/data.json": () => ({ type: "application/json", body: JSON.stringify({ name: "tides", values: [1, 2, 3] }) }),
  "/notes.txt": () => ({ type: "text/plain; charset=utf-8", body: "Plain *notes* stay as they are.\nLine two." }),
  "/latin1": () => ({
    type: "text/html; charset=windows-1252",
    body: Buffer.from(html("<p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u00e0 la carte</p>", "Menu"), "latin1"),
  }),
  "/deep": (url) => {
    const depth = Number(url.searchParams.get("n") ?? 100_000)
    return {
      type: "text/html; charset=utf-8",
      body: html(
        `${"<div>".repeat(depth)}<p>Deep inside the nesting.</p>${"</div>".repeat(depth)}<p>After the nesting.</p>`,
      ),
    }
  },
  "/many-links": (url) => {
    const count = Number(url.searchParams.get("n") ?? 100_000)
    const links = Array.from({ length: count }, (_, i) => `<a href="/l/${i}">link ${i}</a>`).join(" ")
    return { type: "text/html; charset=utf-8", body: html(`<p>Many links follow.</p>${links}`) }
  },
  "/image.png": () => ({
    type: "image/png",
    body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
  }),
}

export const startFixtureSite = async (): Promise<FixtureSite> => {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (url.pathname === "/slow") {
      // Answers after `ms` milliseconds (default 10 s): for timeouts.
      const timer = setTimeout(() => res.end(html("<p>finally</p>")), Number(url.searchParams.get("ms") ?? 10_000))
      res.on("close", () => clearTimeout(timer))
      return
    }
    const route = routes[url.pathname]
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/html; charset=utf-8" })
      res.end(html("<h1>Not found</h1>"))
      return
    }
    const answer = route(url)
    res.writeHead(answer.status ?? 200, { ...(answer.type ? { "content-type": answer.type } : {}), ...answer.headers })
    res.end(answer.body)
  })
  return listenOnLoopback(server)
}
