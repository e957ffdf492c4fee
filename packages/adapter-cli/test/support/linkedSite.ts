/** A small linked website on 127.0.0.1 for crawl, batch and map tests: five pages that link to each other. */
import { createServer } from "node:http"
import { type Listening, listenOnLoopback } from "../../../core/test/support/loopback.js"

const page = (title: string, links: ReadonlyArray<string>) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>` +
  `<h1>${title}</h1><p>This is the ${title} page of the fixture site, with enough words to count as content.</p>` +
  `<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join("")}</ul></main></body></html>`

/** Path (with query) → title; every page links to the others it names. */
export const pages: Record<string, { readonly title: string; readonly links: ReadonlyArray<string> }> = {
  "/": { title: "Home", links: ["/docs/intro", "/docs/setup.html", "/about?lang=en"] },
  "/docs/intro": { title: "Intro", links: ["/", "/docs/intro.html"] },
  "/docs/intro.html": { title: "Intro Again", links: ["/docs/intro"] },
  "/docs/setup.html": { title: "Setup", links: ["/docs/intro"] },
  "/about?lang=en": { title: "About", links: ["/"] },
}

export type LinkedSite = Listening

export const startLinkedSite = async (): Promise<LinkedSite> => {
  const server = createServer((req, res) => {
    const found = pages[req.url ?? "/"]
    if (found === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(page(found.title, found.links))
  })
  return listenOnLoopback(server)
}
