/**
 * Sitemaps (sitemaps.org): `<urlset>`, `<sitemapindex>`, their gzip form and the plain-text form (one URL per line).
 *
 * The XML is read with htmlparser2's SAX parser in XML mode: one pass, no DOM, lenient with sloppy markup, no DTD or
 * external entity processing (so no entity bombs or XXE), and prefixes or letter case of element names do not
 * matter. A `<loc>` counts only as the direct child of `<url>` or `<sitemap>`, which keeps `<image:loc>` and the like
 * out.
 */
import { gunzipSync } from "node:zlib"
import { Data } from "effect"
import { Parser } from "htmlparser2"

/** Firecrawl stops after 25 sitemaps per crawl (`SITEMAP_LIMIT`). */
export const MAX_SITEMAPS_PER_CRAWL = 25

/** The protocol caps a sitemap at 50 MB uncompressed; a gzip that inflates past this is refused, not buffered. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024

export interface SitemapEntry {
  readonly loc: string
  readonly lastmod?: string
}

export interface ParsedSitemap {
  /** Page URLs, absolute http(s), in file order, without duplicates. */
  readonly urls: ReadonlyArray<SitemapEntry>
  /** Further sitemaps to read: the entries of a `<sitemapindex>`, and `.xml` / `.xml.gz` entries of a `<urlset>`. */
  readonly sitemaps: ReadonlyArray<string>
}

export class SitemapError extends Data.TaggedError("SitemapError")<{
  readonly reason: "TooLarge" | "BadGzip"
  readonly message: string
}> {}

/** Where to look for sitemaps, in order: the robots.txt `Sitemap:` lines, then the two conventional locations. */
export const sitemapCandidates = (origin: URL, robotsSitemaps: ReadonlyArray<string>): string[] => {
  const candidates = new Set<string>()
  for (const candidate of [...robotsSitemaps, "/sitemap.xml", "/sitemap_index.xml"]) {
    const url = webUrl(candidate, origin.origin)
    if (url !== undefined) candidates.add(url.href)
  }
  return [...candidates]
}

const webUrl = (text: string, base?: string): URL | undefined => {
  try {
    const url = new URL(text.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined
  } catch {
    return undefined
  }
}

const isGzip = (bytes: Uint8Array): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b

/** Inflates with a hard output cap: zlib stops at the cap instead of producing the whole bomb. */
const gunzipCapped = (bytes: Uint8Array): Uint8Array => {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES })
  } catch (error) {
    if (error instanceof RangeError)
      throw new SitemapError({ reason: "TooLarge", message: `Sitemap inflates past ${MAX_SITEMAP_BYTES} bytes` })
    throw new SitemapError({ reason: "BadGzip", message: `Sitemap is not valid gzip: ${String(error)}` })
  }
}

/** `<a:Loc>` and `<loc>` are the same element to us. */
const localName = (name: string): string => name.slice(name.indexOf(":") + 1).toLowerCase()

const SUB_SITEMAP = /\.xml(?:\.gz)?$/i

const parseXml = (text: string): ParsedSitemap => {
  const urls = new Map<string, SitemapEntry>()
  const sitemaps = new Set<string>()
  const stack: string[] = []
  let loc: string | undefined
  let lastmod: string | undefined
  let buffer = ""

  const entry = (kind: "url" | "sitemap", url: URL | undefined, modified: string | undefined) => {
    if (url === undefined) return
    // Firecrawl reads `.xml` / `.xml.gz` entries of a urlset as nested sitemaps (`process_sitemap`).
    if (kind === "sitemap" || SUB_SITEMAP.test(url.pathname)) sitemaps.add(url.href)
    else if (!urls.has(url.href))
      urls.set(url.href, modified === undefined ? { loc: url.href } : { loc: url.href, lastmod: modified })
  }

  const parser = new Parser(
    {
      onopentag: (name) => {
        const local = localName(name)
        const parent = stack[stack.length - 1]
        stack.push(local)
        if (local === "url" || local === "sitemap") {
          loc = undefined
          lastmod = undefined
        } else if ((local === "loc" || local === "lastmod") && (parent === "url" || parent === "sitemap")) buffer = ""
      },
      ontext: (text) => {
        buffer += text
      },
      onclosetag: () => {
        const local = stack.pop()
        const parent = stack[stack.length - 1]
        if (local === "loc" && (parent === "url" || parent === "sitemap")) loc = buffer.trim()
        else if (local === "lastmod" && parent === "url") lastmod = buffer.trim() || undefined
        else if ((local === "url" || local === "sitemap") && loc !== undefined) entry(local, webUrl(loc), lastmod)
        buffer = ""
      },
    },
    { xmlMode: true, decodeEntities: true },
  )
  parser.end(text)
  return { urls: [...urls.values()], sitemaps: [...sitemaps] }
}

const parseText = (text: string): ParsedSitemap => {
  const urls = new Map<string, SitemapEntry>()
  for (const line of text.split(/\r\n|\r|\n/)) {
    const url = line.trim() === "" ? undefined : webUrl(line)?.href
    if (url !== undefined && !urls.has(url)) urls.set(url, { loc: url })
  }
  return { urls: [...urls.values()], sitemaps: [] }
}

/**
 * Reads one sitemap body. Gzip is recognised by its magic bytes (whatever the URL or header says, since servers both
 * send `.gz` files pre-inflated and gzip under an XML type); XML by a leading `<` or an XML content type; anything
 * else is the text form. Invalid and non-http(s) URLs are dropped.
 *
 * @throws SitemapError when the body (inflated) exceeds `MAX_SITEMAP_BYTES` or is broken gzip.
 */
export const parseSitemap = (bytes: Uint8Array, contentType?: string): ParsedSitemap => {
  const body = isGzip(bytes) ? gunzipCapped(bytes) : bytes
  if (body.byteLength > MAX_SITEMAP_BYTES)
    throw new SitemapError({ reason: "TooLarge", message: `Sitemap is larger than ${MAX_SITEMAP_BYTES} bytes` })
  // The protocol requires UTF-8; the decoder drops a BOM and replaces bad bytes instead of failing.
  const text = new TextDecoder("utf-8").decode(body)
  const looksXml = text.trimStart().startsWith("<") || /xml/i.test(contentType ?? "")
  return looksXml ? parseXml(text) : parseText(text)
}
