import { monitorEventLoopDelay } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import {
  MAX_SITEMAP_BYTES,
  MAX_SITEMAPS_PER_CRAWL,
  MAX_URLS_PER_SITEMAP,
  readSitemap,
  SitemapError,
  sitemapCandidates,
} from "../../src/Crawl/Sitemap.js"

const utf8 = (text: string) => new TextEncoder().encode(text)

const urlset = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${body}</urlset>`

const thrown = (run: () => Promise<unknown>): Promise<unknown> =>
  run().then(
    () => undefined,
    (error: unknown) => error,
  )

describe("parseSitemap: urlset", () => {
  it("reads loc and lastmod, decoding entities and trimming whitespace", async () => {
    const parsed = await readSitemap(
      utf8(
        urlset(`
  <url>
    <loc>
      https://example.com/a?x=1&amp;y=2
    </loc>
    <lastmod> 2024-05-01T10:00:00+00:00 </lastmod>
    <changefreq>daily</changefreq>
  </url>
  <url><loc>https://example.com/caf&#233;</loc></url>
  <url><loc><![CDATA[https://example.com/cdata?a=1&b=2]]></loc></url>`),
      ),
    )
    expect(parsed.urls).toEqual([
      { loc: "https://example.com/a?x=1&y=2", lastmod: "2024-05-01T10:00:00+00:00" },
      { loc: "https://example.com/caf%C3%A9" },
      { loc: "https://example.com/cdata?a=1&b=2" },
    ])
    expect(parsed.sitemaps).toEqual([])
  })

  it("drops invalid, relative and non-web URLs, duplicates, and locs that are not a url's own", async () => {
    const parsed = await readSitemap(
      utf8(
        urlset(`
  <url><loc>not a url</loc></url>
  <url><loc>/relative/page</loc></url>
  <url><loc>ftp://example.com/file</loc></url>
  <url><loc>javascript:alert(1)</loc></url>
  <url><loc></loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc>https://example.com/kept</loc><image:image><image:loc>https://cdn.example.com/i.png</image:loc></image:image></url>
  <url><loc>https://example.com/kept</loc><lastmod>2025-01-01</lastmod></url>`),
      ),
    )
    expect(parsed.urls).toEqual([{ loc: "https://example.com/kept" }])
  })

  it("reads .xml and .xml.gz entries of a urlset as nested sitemaps, as Firecrawl does", async () => {
    const parsed = await readSitemap(
      utf8(
        urlset(
          "<url><loc>https://example.com/more.xml</loc></url><url><loc>https://example.com/more2.XML.gz</loc></url><url><loc>https://example.com/page</loc></url>",
        ),
      ),
    )
    expect(parsed.sitemaps).toEqual(["https://example.com/more.xml", "https://example.com/more2.XML.gz"])
    expect(parsed.urls).toEqual([{ loc: "https://example.com/page" }])
  })

  it("ignores prefixes and letter case of element names", async () => {
    const parsed = await readSitemap(
      utf8(
        '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://example.com/p</sm:loc></sm:url><URL><LOC>https://example.com/q</LOC></URL></sm:urlset>',
      ),
    )
    expect(parsed.urls.map((entry) => entry.loc)).toEqual(["https://example.com/p", "https://example.com/q"])
  })

  it("keeps what it read before broken markup", async () => {
    const parsed = await readSitemap(
      utf8(
        "<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url><url><loc>http",
      ),
    )
    expect(parsed.urls.map((entry) => entry.loc)).toEqual(["https://example.com/1", "https://example.com/2"])
  })

  it("does not expand DTD entities", async () => {
    const laughs = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("")
    const xml = `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY l0 "lol">${laughs}]><urlset><url><loc>https://example.com/&l10;</loc></url><url><loc>https://example.com/ok</loc></url></urlset>`
    const started = performance.now()
    const parsed = await readSitemap(utf8(xml))
    expect(performance.now() - started).toBeLessThan(1000)
    expect(parsed.urls.map((entry) => entry.loc)).toContain("https://example.com/ok")
    expect(parsed.urls.every((entry) => entry.loc.length < 100)).toBe(true)
  })
})

describe("parseSitemap: sitemapindex", () => {
  it("lists the nested sitemaps", async () => {
    const parsed = await readSitemap(
      utf8(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/sitemap-posts.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap><loc> https://example.com/sitemap-pages.xml.gz </loc></sitemap>
  <sitemap><loc>nonsense</loc></sitemap>
</sitemapindex>`),
    )
    expect(parsed.sitemaps).toEqual([
      "https://example.com/sitemap-posts.xml",
      "https://example.com/sitemap-pages.xml.gz",
    ])
    expect(parsed.urls).toEqual([])
  })
})

describe("parseSitemap: gzip", () => {
  const xml = urlset("<url><loc>https://example.com/zipped</loc></url>")

  it("inflates by magic bytes, whatever the content type says", async () => {
    for (const contentType of [undefined, "application/x-gzip", "text/plain", "application/xml"])
      expect((await readSitemap(gzipSync(utf8(xml)), contentType)).urls).toEqual([
        { loc: "https://example.com/zipped" },
      ])
  })

  it("reads a gzipped plain-text sitemap", async () => {
    expect((await readSitemap(gzipSync(utf8("https://example.com/t\n")))).urls).toEqual([
      { loc: "https://example.com/t" },
    ])
  })

  it("refuses a gzip bomb without inflating it whole", async () => {
    const bomb = gzipSync(new Uint8Array(MAX_SITEMAP_BYTES + 10 * 1024 * 1024), { level: 9 })
    expect(bomb.byteLength).toBeLessThan(200 * 1024)
    const started = performance.now()
    const parsed = await readSitemap(bomb)
    const elapsed = performance.now() - started
    expect(parsed).toEqual({ urls: [], sitemaps: [], truncated: true })
    expect(elapsed).toBeLessThan(5000)
  })

  it("keeps the URLs read before the size cap, not those after", async () => {
    const padding = " ".repeat(MAX_SITEMAP_BYTES)
    const xml = urlset(
      `<url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url>${padding}<url><loc>https://example.com/after</loc></url>`,
    )
    const parsed = await readSitemap(gzipSync(utf8(xml)))
    expect(parsed.truncated).toBe(true)
    expect(parsed.urls.map((entry) => entry.loc)).toEqual(["https://example.com/1", "https://example.com/2"])
  })

  it("reports broken gzip", async () => {
    const broken = gzipSync(utf8(xml)).slice(0, 20)
    const error = await thrown(() => readSitemap(broken))
    expect(error).toBeInstanceOf(SitemapError)
    expect((error as SitemapError).reason).toBe("BadGzip")
  })
})

describe("parseSitemap: plain text", () => {
  it("reads one URL per line, skipping blanks and junk", async () => {
    const parsed = await readSitemap(
      utf8(
        "https://example.com/a\r\n\r\n  https://example.com/b  \nnot a url\nmailto:x@example.com\nhttps://example.com/a\n",
      ),
      "text/plain",
    )
    expect(parsed.urls).toEqual([{ loc: "https://example.com/a" }, { loc: "https://example.com/b" }])
    expect(parsed.sitemaps).toEqual([])
  })

  it("drops a byte-order mark", async () => {
    expect((await readSitemap(utf8("\uFEFFhttps://example.com/a"))).urls).toEqual([{ loc: "https://example.com/a" }])
  })

  it("stops reading a body over the cap at the cap", async () => {
    const parsed = await readSitemap(new Uint8Array(MAX_SITEMAP_BYTES + 1).fill(0x20))
    expect(parsed).toEqual({ urls: [], sitemaps: [], truncated: true })
  })
})

describe("parseSitemap: how far it reads", () => {
  it("stops once it has the URLs asked for, before the rest of the body", async () => {
    // Ten URLs, then more bytes than the cap: stopping at five never reaches the cap.
    const lines = Array.from({ length: 10 }, (_, i) => `https://example.com/${i}\n`).join("")
    const body = new Uint8Array(MAX_SITEMAP_BYTES + 1024).fill(0x20)
    body.set(utf8(lines))
    const parsed = await readSitemap(body, "text/plain", 5)
    expect(parsed.truncated).toBe(false)
    expect(parsed.urls.map((entry) => entry.loc)).toEqual([0, 1, 2, 3, 4].map((i) => `https://example.com/${i}`))
  })

  it("reads at most the protocol's 50 000 URLs of one sitemap", async () => {
    const lines = Array.from({ length: MAX_URLS_PER_SITEMAP + 10 }, (_, i) => `https://example.com/${i}`)
    const parsed = await readSitemap(utf8(lines.join("\n")), "text/plain", 1_000_000)
    expect(parsed.urls).toHaveLength(MAX_URLS_PER_SITEMAP)
    expect(parsed.urls.at(-1)?.loc).toBe(`https://example.com/${MAX_URLS_PER_SITEMAP - 1}`)
  })

  it("and at most 50 000 entries of a sitemap index", async () => {
    const entries = Array.from(
      { length: MAX_URLS_PER_SITEMAP + 10 },
      (_, i) => `<sitemap><loc>https://example.com/s${i}.xml</loc></sitemap>`,
    )
    const parsed = await readSitemap(utf8(`<sitemapindex>${entries.join("")}</sitemapindex>`))
    expect(parsed.sitemaps).toHaveLength(MAX_URLS_PER_SITEMAP)
  })
})

describe("parseSitemap: size", () => {
  it("reads a 50 000-URL sitemap quickly", async () => {
    const entries = Array.from(
      { length: 50_000 },
      (_, i) =>
        `<url><loc>https://www.example.com/products/category-${i % 97}/item-${i}?ref=sitemap&amp;v=${i}</loc><lastmod>2024-06-${String((i % 28) + 1).padStart(2, "0")}</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>`,
    )
    const bytes = utf8(urlset(entries.join("\n")))
    const started = performance.now()
    const parsed = await readSitemap(bytes)
    const elapsed = performance.now() - started
    expect(parsed.urls).toHaveLength(50_000)
    expect(parsed.urls[49_999]).toEqual({
      loc: "https://www.example.com/products/category-44/item-49999?ref=sitemap&v=49999",
      lastmod: "2024-06-20",
    })
    console.info(`50 000-URL sitemap (${(bytes.byteLength / 1e6).toFixed(1)} MB): ${elapsed.toFixed(0)} ms`)
    expect(elapsed).toBeLessThan(3000)

    const zipped = gzipSync(bytes)
    const zippedStarted = performance.now()
    expect((await readSitemap(zipped)).urls).toHaveLength(50_000)
    console.info(
      `same, gzipped (${(zipped.byteLength / 1e6).toFixed(1)} MB): ${(performance.now() - zippedStarted).toFixed(0)} ms`,
    )
  })

  it("lets the event loop run while it reads, plain or gzip", async () => {
    const entries = Array.from({ length: 50_000 }, (_, i) => `<url><loc>https://example.com/item-${i}</loc></url>`)
    const bytes = utf8(urlset(entries.join("")))
    for (const body of [bytes, gzipSync(bytes)]) {
      const delay = monitorEventLoopDelay({ resolution: 10 })
      delay.enable()
      const parsed = await readSitemap(body)
      // The delay of a stall at the end is recorded only when a timer fires after it.
      await sleep(20)
      delay.disable()
      expect(parsed.urls).toHaveLength(50_000)
      console.info(`50 000-URL sitemap: longest event-loop stall ${(delay.max / 1e6).toFixed(0)} ms`)
      // Parsed in one piece it stalls for 120-220 ms on a slow 2-core machine; 64 KiB slices take a few ms each.
      expect(delay.max / 1e6).toBeLessThan(100)
    }
  })
})

describe("sitemapCandidates", () => {
  it("puts robots.txt sitemaps first, then the conventional locations, without duplicates", async () => {
    expect(
      sitemapCandidates(new URL("https://example.com/blog/post?x=1"), [
        "https://example.com/custom-sitemap.xml",
        "https://example.com/sitemap.xml",
        "ftp://example.com/nope.xml",
      ]),
    ).toEqual([
      "https://example.com/custom-sitemap.xml",
      "https://example.com/sitemap.xml",
      "https://example.com/sitemap_index.xml",
    ])
  })

  it("uses the origin's locations when robots.txt names none", async () => {
    expect(sitemapCandidates(new URL("http://127.0.0.1:8080/x"), [])).toEqual([
      "http://127.0.0.1:8080/sitemap.xml",
      "http://127.0.0.1:8080/sitemap_index.xml",
    ])
  })

  it("has Firecrawl's limit of 25 sitemaps per crawl", async () => {
    expect(MAX_SITEMAPS_PER_CRAWL).toBe(25)
  })
})
