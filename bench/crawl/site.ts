/**
 * A deterministic fixture site for the crawl benchmarks, served by node:http on 127.0.0.1 (ephemeral port). Page 0 is
 * `/`, page i > 0 is `/articles/<i>/<slug>`. On the `articles` site every page is a ~15–30 KB article (header,
 * navigation, sidebar, footer boilerplate, paragraphs, a list, sometimes a table) that links to 10–20 other pages; on
 * the `small` site every page is ~4 KB with navigation, pagination and a few related links. On both, pages 2i+1 and
 * 2i+2 are always among page i's links, so every page is reachable from `/`. The same `pages` always gives the same site, byte for
 * byte. `/robots.txt` allows everything; `/sitemap.xml` (and its robots.txt line) exists only with `sitemap: true`.
 *
 * `spawnSite` runs the same site in a child process, so that serving pages does not compete with the crawler under
 * test for its event loop, heap or RSS.
 */
import { fork } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface SiteOptions {
  readonly pages: number
  /**
   * `articles` (default): ~15–30 KB articles with 10–20 links in the text. `small`: ~4 KB pages of a catalogue, each
   * with the site's navigation, a short text, a few related pages and pagination (first, previous, nearby numbers,
   * next, last), where the per-page fixed cost of a crawler dominates.
   */
  readonly kind?: "articles" | "small"
  /** Serve `/sitemap.xml` listing every page and announce it in robots.txt. Default false. */
  readonly sitemap?: boolean
}

export interface Site {
  readonly url: string
  /** Article pages served so far (robots.txt, the sitemap and 404s not counted). */
  hits(): Promise<number>
  close(): Promise<void>
}

/** mulberry32: a tiny seeded PRNG, so that page i is the same on every run. */
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  "the a of and to in is that for it as with was on be by this are from or at an which have not data crawl page " +
  "engine system network server request response latency throughput memory storage queue worker process thread " +
  "cache index document article section table list report result value measure sample method model figure study " +
  "analysis research evidence theory practice design pattern structure function module interface protocol format " +
  "quickly carefully rarely often usually clearly simply directly mostly nearly early later before after during " +
  "between across against within without under over through around about large small new old first last long " +
  "short high low open public private simple complex common special general specific modern classic local remote"
).split(" ")

const pick = <A>(next: () => number, items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)] as A
const words = (next: () => number, count: number) => Array.from({ length: count }, () => pick(next, WORDS)).join(" ")
const sentence = (next: () => number) => {
  const text = words(next, 8 + Math.floor(next() * 14))
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
}

const slug = (page: number) => words(random(page * 7919 + 17), 3).replaceAll(" ", "-")
export const pagePath = (page: number) => (page === 0 ? "/" : `/articles/${page}/${slug(page)}`)
const title = (page: number) => (page === 0 ? "Home" : `Article ${page}: ${slug(page).replaceAll("-", " ")}`)

/** Page i's outgoing links: its two tree children (reachability), then pseudo-random pages up to 10–20 in all. */
const linksOf = (page: number, pages: number, next: () => number): Array<number> => {
  const links = new Set<number>([2 * page + 1, 2 * page + 2].filter((child) => child < pages))
  const count = Math.min(pages - 1, 10 + Math.floor(next() * 11))
  while (links.size < count) {
    const target = Math.floor(next() * pages)
    if (target !== page) links.add(target)
  }
  return [...links]
}

const NAV = [0, 1, 2, 3, 4, 5, 6]
const navigation = (pages: number) =>
  NAV.filter((page) => page < pages)
    .map((page) => `<li><a href="${pagePath(page)}">${page === 0 ? "Home" : `Section ${page}`}</a></li>`)
    .join("")
const boilerplate = (next: () => number, kind: string, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<li class="${kind}-item"><span>${words(next, 4)}</span> <small>${i + 1}</small></li>`,
  ).join("")

export const renderPage = (page: number, pages: number): string => {
  const next = random(page + 1)
  const links = linksOf(page, pages, next)
  const anchor = (target: number, i: number) =>
    // Mix absolute, relative and fragment forms the way real sites do; all name the same canonical pages.
    i % 3 === 0
      ? `<a href="${pagePath(target)}">${title(target)}</a>`
      : i % 3 === 1
        ? `<a href="${pagePath(target)}#comments">${words(next, 3)}</a>`
        : `<a href="../..${pagePath(target)}">${words(next, 2)}</a>`
  const paragraphs = 18 + Math.floor(next() * 22)
  const perParagraph = Math.ceil(links.length / paragraphs)
  const body: Array<string> = []
  for (let p = 0; p < paragraphs; p++) {
    const own = links.slice(p * perParagraph, (p + 1) * perParagraph)
    const text = Array.from({ length: 4 + Math.floor(next() * 4) }, () => sentence(next))
    own.forEach((target, i) => {
      text.splice(1 + i, 0, `See ${anchor(target, p + i)}.`)
    })
    if (p > 0 && p % 6 === 0) body.push(`<h2>${sentence(next)}</h2>`)
    body.push(`<p>${text.join(" ")}</p>`)
    if (p === 3) body.push(`<ul>${Array.from({ length: 6 }, () => `<li>${sentence(next)}</li>`).join("")}</ul>`)
    if (p === 8 && next() < 0.5) {
      const rows = Array.from(
        { length: 8 },
        (_, r) =>
          `<tr><td>${words(next, 2)}</td><td>${Math.floor(next() * 1000)}</td><td>${(next() * 100).toFixed(1)} %</td><td>${r}</td></tr>`,
      ).join("")
      body.push(
        `<table><thead><tr><th>Name</th><th>Count</th><th>Share</th><th>Rank</th></tr></thead><tbody>${rows}</tbody></table>`,
      )
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title(page)}</title>
<meta name="description" content="${sentence(next)}"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"><script>window.analytics = { page: ${page} };</script></head><body>
<header class="site-header"><a class="logo" href="/">Fixture News</a><nav class="main-nav"><ul>${navigation(pages)}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"><button>Go</button></form></header>
<div class="layout"><aside class="sidebar"><h3>Trending</h3><ul>${boilerplate(next, "trending", 12)}</ul>
<h3>Newsletter</h3><p>${sentence(next)}</p></aside>
<main><article><h1>${title(page)}</h1><p class="byline">By ${words(next, 2)} · ${1 + (page % 28)} March 2026</p>
${body.join("\n")}
</article><section class="comments" id="comments"><h3>Comments</h3><ul>${boilerplate(next, "comment", 6)}</ul></section></main></div>
<footer class="site-footer"><ul>${boilerplate(next, "footer", 16)}</ul><p>© 2026 Fixture News. ${sentence(next)}</p></footer>
</body></html>`
}

/** A page of the `small` site: navigation, a short text, related pages, pagination; ~4 KB. */
export const renderSmallPage = (page: number, pages: number): string => {
  const next = random(page + 1)
  const related = linksOf(page, pages, next).slice(0, 5)
  const numbered = [page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 0 && n < pages)
  const pageLink = (target: number, text: string) =>
    target === page ? `<li class="current">${text}</li>` : `<li><a href="${pagePath(target)}">${text}</a></li>`
  const pagination = [
    pageLink(0, "First"),
    ...(page > 0 ? [pageLink(page - 1, "Previous")] : []),
    ...numbered.map((n) => pageLink(n, String(n + 1))),
    ...(page + 1 < pages ? [pageLink(page + 1, "Next")] : []),
    pageLink(pages - 1, "Last"),
  ].join("")
  const paragraphs = Array.from({ length: 3 + Math.floor(next() * 2) }, () =>
    Array.from({ length: 4 }, () => sentence(next)).join(" "),
  )
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title(page)}</title>
<meta name="description" content="${sentence(next)}"><link rel="stylesheet" href="/static/site.css"></head><body>
<header class="site-header"><a class="logo" href="/">Fixture Catalogue</a><nav class="main-nav"><ul>${navigation(pages)}</ul></nav></header>
<main><nav class="breadcrumb"><a href="/">Home</a> › <span>${title(page)}</span></nav>
<article><h1>${title(page)}</h1><p class="byline">Item ${page + 1} of ${pages} · ${1 + (page % 28)} March 2026</p>
${paragraphs.map((text) => `<p>${text}</p>`).join("\n")}
<h2>Related</h2><ul class="related">${related.map((target) => `<li><a href="${pagePath(target)}">${title(target)}</a></li>`).join("")}</ul>
</article><nav class="pagination"><ul>${pagination}</ul></nav></main>
<footer class="site-footer"><ul>${boilerplate(next, "footer", 6)}</ul><p>© 2026 Fixture Catalogue.</p></footer>
</body></html>`
}

const pageOf = (path: string, pages: number): number | undefined => {
  if (path === "/") return 0
  const match = /^\/articles\/(\d+)\/([a-z-]+)$/.exec(path)
  const page = Number(match?.[1])
  return match && page > 0 && page < pages && match[2] === slug(page) ? page : undefined
}

export const startSite = async ({ pages, sitemap = false, kind = "articles" }: SiteOptions): Promise<Site> => {
  const render = kind === "small" ? renderSmallPage : renderPage
  let hits = 0
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://site").pathname
    const origin = `http://${req.headers.host}`
    if (path === "/robots.txt") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end(`User-agent: *\nAllow: /\n${sitemap ? `Sitemap: ${origin}/sitemap.xml\n` : ""}`)
      return
    }
    if (path === "/sitemap.xml" && sitemap) {
      const urls = Array.from({ length: pages }, (_, page) => `<url><loc>${origin}${pagePath(page)}</loc></url>`)
      res.writeHead(200, { "content-type": "application/xml" })
      res.end(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>`)
      return
    }
    const page = pageOf(path, pages)
    if (page === undefined) {
      res.writeHead(404, { "content-type": "text/html" })
      res.end("<html><body><h1>Not found</h1></body></html>")
      return
    }
    hits++
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(render(page, pages))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits: async () => hits,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

type Reply = { readonly url: string } | { readonly hits: number }

/** The same site in a child process (see site-child.ts), talked to over IPC. */
export const spawnSite = async (options: SiteOptions): Promise<Site> => {
  const child = fork(new URL("./site-child.ts", import.meta.url), [JSON.stringify(options)], {
    // Resolved here, so the child finds tsx whatever its working directory.
    execArgv: ["--import", import.meta.resolve("tsx")],
  })
  const replies: Array<(reply: Reply) => void> = []
  child.on("message", (reply: Reply) => replies.shift()?.(reply))
  const ask = () => new Promise<Reply>((resolve) => replies.push(resolve))
  const started = await ask()
  if (!("url" in started)) throw new Error("site child did not start")
  return {
    url: started.url,
    hits: async () => {
      const reply = ask()
      child.send("hits")
      const answer = await reply
      return "hits" in answer ? answer.hits : Number.NaN
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.send("close")
      }),
  }
}
