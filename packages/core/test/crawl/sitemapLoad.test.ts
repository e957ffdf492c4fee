/**
 * A sitemap of a million URLs (2.5 MB gzip, ~50 MB inflated) must not stall the process: it is inflated off the
 * thread and parsed in slices, and only as far as the map's `limit` needs.
 */
import { createServer } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Webdata } from "../../src/Webdata.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

let site: Listening
let webdata: Webdata
beforeAll(async () => {
  let sitemap = Buffer.alloc(0)
  site = await listenOnLoopback(
    createServer((req, res) => {
      if (req.url === "/sitemap.xml") {
        res.writeHead(200, { "content-type": "application/xml" })
        return void res.end(sitemap)
      }
      res.writeHead(200, { "content-type": "text/html" })
      res.end("<html><body><p>home</p></body></html>")
    }),
  )
  const entries = Array.from({ length: 1_000_000 }, (_, i) => `<url><loc>${site.url}/p/${i}</loc></url>`)
  sitemap = gzipSync(`<?xml version="1.0"?><urlset>${entries.join("")}</urlset>`)
  webdata = new Webdata({ allowPrivateAddresses: true, worker: false })
}, 60_000)
afterAll(async () => {
  await webdata.close()
  await site.close()
})

it("maps a million-URL sitemap without stalling the event loop", async () => {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const started = performance.now()
  const result = await webdata.map(site.url, { limit: 100, sitemap: "only" })
  const elapsed = performance.now() - started
  delay.disable()
  const maxStallMs = delay.max / 1e6
  console.log(`million-URL sitemap: ${elapsed.toFixed(0)} ms, longest event-loop stall ${maxStallMs.toFixed(0)} ms`)
  expect(result.links).toHaveLength(100)
  expect(maxStallMs).toBeLessThan(250)
  expect(elapsed).toBeLessThan(5000)
})

it("does not count sitemaps the URL guard refuses against the 25 it reads", async () => {
  let origin = ""
  const listed = await listenOnLoopback(
    createServer((req, res) => {
      if (req.url === "/robots.txt") {
        // 30 sitemaps on a loopback address this engine may not reach, then one it may.
        const refused = Array.from({ length: 30 }, (_, i) => `Sitemap: http://127.0.0.2:9/refused-${i}.xml`)
        res.writeHead(200, { "content-type": "text/plain" })
        return void res.end(`User-agent: *\nAllow: /\n${refused.join("\n")}\nSitemap: ${origin}/real.xml\n`)
      }
      if (req.url === "/real.xml") {
        res.writeHead(200, { "content-type": "application/xml" })
        return void res.end(`<urlset><url><loc>${origin}/from-sitemap</loc></url></urlset>`)
      }
      res.writeHead(200, { "content-type": "text/html" })
      res.end("<html><body><p>home</p></body></html>")
    }),
  )
  origin = listed.url
  const guarded = new Webdata({ allowedTargets: ["127.0.0.1/32"], worker: false })
  try {
    const result = await guarded.map(listed.url, { sitemap: "only" })
    expect(result.links.map((link) => link.url)).toContain(`${listed.url}/from-sitemap`)
  } finally {
    await guarded.close()
    await listed.close()
  }
})
