/**
 * The markdown of each page as `/v2/scrape` returns it: the pages are served from a loopback server as a static site
 * would serve saved files (`text/html` without a charset, so the page's own declaration and the bytes decide), and
 * scraped through the engine with its defaults (main content, markdown). What an outside user measures.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Webdata } from "@webdata/core"
import type { Page } from "./corpora.js"

export const scrapeAll = async (pages: ReadonlyArray<Page>): Promise<Map<Page, string>> => {
  const server = createServer((request, response) => {
    const page = pages[Number(request.url?.slice(1))]
    response.writeHead(page === undefined ? 404 : 200, { "content-type": "text/html" })
    response.end(page === undefined ? "" : Buffer.from(page.source, "utf8"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const webdata = new Webdata({ allowPrivateAddresses: true, worker: false })
  const markdown = new Map<Page, string>()
  try {
    for (const [index, page] of pages.entries()) {
      const document = await webdata.scrape(`${origin}/${index}`, { formats: ["markdown"], storeInCache: false })
      markdown.set(page, document.markdown ?? "")
    }
  } finally {
    await webdata.close()
    server.close()
  }
  return markdown
}
