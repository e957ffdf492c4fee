/**
 * The 25 sitemaps a map or crawl reads are spent on sitemaps fetched: a robots.txt or an index that lists URLs the
 * URL guard refuses, or index entries on another site, cannot use them up and hide the site's real sitemap.
 */
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, expect, it } from "vitest"
import { MAX_SITEMAPS_PER_CRAWL } from "../../src/Crawl/Sitemap.js"
import { Webdata } from "../../src/Webdata.js"

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** A server on an ephemeral port of a loopback address; `requests` lists the paths it was asked for. */
const serve = async (host: string, handler: (path: string) => { type: string; body: string } | undefined) => {
  const requests: string[] = []
  const listener: RequestListener = (req, res) => {
    const path = req.url ?? "/"
    requests.push(path)
    const answer = handler(path)
    res.writeHead(answer === undefined ? 404 : 200, { "content-type": answer?.type ?? "text/html" })
    res.end(answer?.body ?? "<p>not found</p>")
  }
  const server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, requests }
}

const engine = (options: ConstructorParameters<typeof Webdata>[0]) => {
  const webdata = new Webdata({ ...options, worker: false })
  closers.push(() => webdata.close())
  return webdata
}

const xml = (body: string) => ({ type: "application/xml", body })
const home = { type: "text/html", body: "<html><body><p>home</p></body></html>" }
const mapped = async (webdata: Webdata, url: string) =>
  (await webdata.map(url, { sitemap: "only" })).links.map((link) => link.url)

it("does not count robots.txt sitemaps the URL guard refuses against the 25 it reads", async () => {
  let origin = ""
  const site = await serve("127.0.0.1", (path) => {
    if (path === "/robots.txt") {
      // 30 sitemaps on a loopback address and port this engine may not reach, then one it may.
      const refused = Array.from({ length: 30 }, (_, i) => `Sitemap: http://127.0.0.2:9/refused-${i}.xml`)
      return {
        type: "text/plain",
        body: `User-agent: *\nAllow: /\n${refused.join("\n")}\nSitemap: ${origin}/real.xml\n`,
      }
    }
    if (path === "/real.xml") return xml(`<urlset><url><loc>${origin}/from-sitemap</loc></url></urlset>`)
    return path === "/" ? home : undefined
  })
  origin = site.url
  // Only the site's own address is let through: 127.0.0.2 is refused like any other private address.
  const guarded = engine({ allowedTargets: ["127.0.0.1/32"] })
  expect(await mapped(guarded, site.url)).toContain(`${site.url}/from-sitemap`)
})

it("does not fetch or count index entries on another site", async () => {
  const elsewhere = await serve("127.0.0.2", () => xml("<urlset></urlset>"))
  let origin = ""
  const site = await serve("127.0.0.1", (path) => {
    if (path === "/sitemap.xml") {
      const offSite = Array.from({ length: 30 }, (_, i) => `<sitemap><loc>${elsewhere.url}/s${i}.xml</loc></sitemap>`)
      return xml(`<sitemapindex>${offSite.join("")}<sitemap><loc>${origin}/real.xml</loc></sitemap></sitemapindex>`)
    }
    if (path === "/real.xml") return xml(`<urlset><url><loc>${origin}/from-sitemap</loc></url></urlset>`)
    return path === "/" ? home : undefined
  })
  origin = site.url
  expect(await mapped(engine({ allowPrivateAddresses: true }), site.url)).toContain(`${site.url}/from-sitemap`)
  expect(elsewhere.requests).toEqual([])
})

it("reads at most 25 sitemaps that it fetched", async () => {
  let origin = ""
  const site = await serve("127.0.0.1", (path) => {
    if (path === "/sitemap.xml") {
      const entries = Array.from({ length: 40 }, (_, i) => `<sitemap><loc>${origin}/s${i}.xml</loc></sitemap>`)
      return xml(`<sitemapindex>${entries.join("")}</sitemapindex>`)
    }
    const sub = /^\/s(\d+)\.xml$/.exec(path)
    if (sub !== null) return xml(`<urlset><url><loc>${origin}/page-${sub[1]}</loc></url></urlset>`)
    return path === "/" ? home : undefined
  })
  origin = site.url
  const found = await mapped(engine({ allowPrivateAddresses: true }), site.url)
  // The index, /sitemap_index.xml (a 404 is a read too) and 23 of the 40 it lists.
  const sitemapsFetched = site.requests.filter((path) => path.endsWith(".xml"))
  expect(sitemapsFetched).toHaveLength(MAX_SITEMAPS_PER_CRAWL)
  expect(found).toContain(`${site.url}/page-22`)
  expect(found).not.toContain(`${site.url}/page-23`)
})
