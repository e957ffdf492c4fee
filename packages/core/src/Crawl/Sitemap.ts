/**
 * Sitemaps (sitemaps.org): `<urlset>`, `<sitemapindex>`, their gzip form and the plain-text form (one URL per line).
 *
 * The XML is read with htmlparser2's SAX parser in XML mode: one pass, no DOM, lenient with sloppy markup, no DTD or
 * external entity processing (so no entity bombs or XXE), and prefixes or letter case of element names do not
 * matter. A `<loc>` counts only as the direct child of `<url>` or `<sitemap>`, which keeps `<image:loc>` and the like
 * out.
 */
import { setImmediate as nextTurn } from "node:timers/promises"
import { createGunzip } from "node:zlib"
import { Data } from "effect"
import { Parser } from "htmlparser2"

/** Firecrawl stops after 25 sitemaps per crawl (`SITEMAP_LIMIT`). */
export const MAX_SITEMAPS_PER_CRAWL = 25

/**
 * The protocol caps a sitemap at 50 MB uncompressed: reading stops there (a gzip is inflated no further), keeping the
 * entries read before.
 */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024

/** The protocol caps a sitemap at 50 000 URLs (an index at 50 000 sitemaps); reading stops there. */
export const MAX_URLS_PER_SITEMAP = 50_000

export interface SitemapEntry {
  readonly loc: string
  readonly lastmod?: string
}

export interface ParsedSitemap {
  /** Page URLs, absolute http(s), in file order, without duplicates. */
  readonly urls: ReadonlyArray<SitemapEntry>
  /** Further sitemaps to read: the entries of a `<sitemapindex>`, and `.xml` / `.xml.gz` entries of a `<urlset>`. */
  readonly sitemaps: ReadonlyArray<string>
  /** The body went past `MAX_SITEMAP_BYTES`: the entries are those read up to there. */
  readonly truncated: boolean
}

export class SitemapError extends Data.TaggedError("SitemapError")<{
  readonly reason: "BadGzip"
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

/** `<a:Loc>` and `<loc>` are the same element to us. */
const localName = (name: string): string => name.slice(name.indexOf(":") + 1).toLowerCase()

const SUB_SITEMAP = /\.xml(?:\.gz)?$/i

/** Slices of work between which the event loop runs: one sitemap never holds the thread for long. */
const SLICE_BYTES = 64 * 1024

/** A text stream's reader: fed decoded text slice by slice, it hands entries to a collector. */
interface SitemapReader {
  readonly write: (text: string) => void
  readonly end: () => void
}

/** The entries of one sitemap, up to `maxUrls` page URLs and `MAX_URLS_PER_SITEMAP` entries of both kinds. */
const collector = (maxUrls: number) => {
  const urls = new Map<string, SitemapEntry>()
  const sitemaps = new Set<string>()
  const full = () => urls.size >= maxUrls || urls.size + sitemaps.size >= MAX_URLS_PER_SITEMAP
  return {
    urls,
    sitemaps,
    full,
    add: (kind: "url" | "sitemap", url: URL | undefined, modified: string | undefined) => {
      if (url === undefined || full()) return
      // Firecrawl reads `.xml` / `.xml.gz` entries of a urlset as nested sitemaps (`process_sitemap`).
      if (kind === "sitemap" || SUB_SITEMAP.test(url.pathname)) sitemaps.add(url.href)
      else if (!urls.has(url.href))
        urls.set(url.href, modified === undefined ? { loc: url.href } : { loc: url.href, lastmod: modified })
    },
  }
}
type Collector = ReturnType<typeof collector>

const xmlReader = (found: Collector): SitemapReader => {
  const stack: string[] = []
  let loc: string | undefined
  let lastmod: string | undefined
  let buffer = ""
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
        // Only a loc's or lastmod's text is kept; the text between entries would grow without bound otherwise.
        if (buffer.length < 4096) buffer += text
      },
      onclosetag: () => {
        const local = stack.pop()
        const parent = stack[stack.length - 1]
        if (local === "loc" && (parent === "url" || parent === "sitemap")) loc = buffer.trim()
        else if (local === "lastmod" && parent === "url") lastmod = buffer.trim() || undefined
        else if ((local === "url" || local === "sitemap") && loc !== undefined) found.add(local, webUrl(loc), lastmod)
        buffer = ""
      },
    },
    { xmlMode: true, decodeEntities: true },
  )
  return { write: (text) => parser.write(text), end: () => parser.end() }
}

/** No URL is longer; a longer line is skipped as it streams by instead of growing without bound. */
const MAX_LINE = 8192

const textReader = (found: Collector): SitemapReader => {
  let carry = ""
  let skipping = false
  const line = (text: string) => {
    if (text.trim() !== "") found.add("url", webUrl(text), undefined)
  }
  return {
    write: (text) => {
      const lines = (carry + text).split(/\r\n|\r|\n/)
      carry = lines.pop() ?? ""
      if (skipping && lines.length > 0) {
        lines.shift()
        skipping = false
      }
      for (const each of lines) line(each)
      if (carry.length > MAX_LINE) {
        carry = ""
        skipping = true
      }
    },
    end: () => {
      if (!skipping) line(carry)
    },
  }
}

/** The body in slices: inflated by zlib's stream (on libuv's threadpool) when it is gzip, else cut into slices. */
async function* slices(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (!isGzip(bytes)) {
    for (let offset = 0; offset < bytes.byteLength; offset += SLICE_BYTES)
      yield bytes.subarray(offset, offset + SLICE_BYTES)
    return
  }
  // Inflated only as fast as it is read: leaving the loop early leaves the rest compressed.
  const inflater = createGunzip({ chunkSize: SLICE_BYTES })
  inflater.end(bytes)
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) yield chunk
  } catch (error) {
    throw new SitemapError({ reason: "BadGzip", message: `Sitemap is not valid gzip: ${String(error)}` })
  } finally {
    inflater.destroy()
  }
}

/**
 * Reads one sitemap body, streaming: gzip is recognised by its magic bytes (whatever the URL or header says, since
 * servers both send `.gz` files pre-inflated and gzip under an XML type) and inflated as it is read; XML by a leading
 * `<` or an XML content type; anything else is the text form. Invalid and non-http(s) URLs are dropped. The event
 * loop runs between slices of `SLICE_BYTES`. Reading stops once `maxUrls` page URLs are known, after
 * `MAX_URLS_PER_SITEMAP` entries, or at `MAX_SITEMAP_BYTES` (then `truncated`), so a huge sitemap costs only what is
 * used and never more than the protocol's limits.
 *
 * @throws SitemapError when the body is broken gzip.
 */
export const readSitemap = async (
  bytes: Uint8Array,
  contentType?: string,
  maxUrls: number = MAX_URLS_PER_SITEMAP,
): Promise<ParsedSitemap> => {
  const found = collector(Math.min(maxUrls, MAX_URLS_PER_SITEMAP))
  // The protocol requires UTF-8; the decoder drops a BOM and replaces bad bytes instead of failing.
  const decoder = new TextDecoder("utf-8")
  let reader: SitemapReader | undefined
  let size = 0
  let truncated = false
  for await (const slice of slices(bytes)) {
    size += slice.byteLength
    if (size > MAX_SITEMAP_BYTES) {
      truncated = true
      break
    }
    const text = decoder.decode(slice, { stream: true })
    if (reader === undefined && text.trim() !== "") {
      const looksXml = text.trimStart().startsWith("<") || /xml/i.test(contentType ?? "")
      reader = looksXml ? xmlReader(found) : textReader(found)
    }
    reader?.write(text)
    if (found.full()) break
    await nextTurn()
  }
  if (!found.full() && !truncated) {
    const rest = decoder.decode()
    if (reader === undefined && rest.trim() !== "") reader = textReader(found)
    reader?.write(rest)
    reader?.end()
  }
  return { urls: [...found.urls.values()], sitemaps: [...found.sitemaps], truncated }
}
