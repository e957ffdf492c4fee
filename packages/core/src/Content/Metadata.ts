/**
 * Page metadata as Firecrawl reports it: named fields (title, description, og*, article*, dc*, …) plus every
 * `<meta name|property|itemprop>` under its raw key (a string, or a list when the key repeats).
 */
import { absolute, type Doc } from "./Dom.js"
import type { PageMetadata } from "./ExtractHtml.js"

/** Raw meta key (lower-cased) → Firecrawl's camelCase field. */
const NAMED: Record<string, string> = {
  description: "description",
  keywords: "keywords",
  robots: "robots",
  "og:title": "ogTitle",
  "og:description": "ogDescription",
  "og:url": "ogUrl",
  "og:image": "ogImage",
  "og:audio": "ogAudio",
  "og:determiner": "ogDeterminer",
  "og:locale": "ogLocale",
  "og:locale:alternate": "ogLocaleAlternate",
  "og:site_name": "ogSiteName",
  "og:video": "ogVideo",
  "article:section": "articleSection",
  "article:tag": "articleTag",
  "article:published_time": "publishedTime",
  "article:modified_time": "modifiedTime",
  "dcterms.keywords": "dcTermsKeywords",
  "dc.description": "dcDescription",
  "dc.subject": "dcSubject",
  "dcterms.subject": "dcTermsSubject",
  "dcterms.audience": "dcTermsAudience",
  "dc.type": "dcType",
  "dcterms.type": "dcTermsType",
  "dc.date": "dcDate",
  "dc.date.created": "dcDateCreated",
  "dcterms.created": "dcTermsCreated",
}
/** Fields that are lists even with one value. */
const LISTS = new Set(["ogLocaleAlternate"])

const add = (metadata: PageMetadata, key: string, value: string) => {
  const existing = metadata[key]
  if (existing === undefined) metadata[key] = LISTS.has(key) ? [value] : value
  else if (Array.isArray(existing)) existing.push(value)
  else metadata[key] = [existing, value]
}

/** The elements metadata is read from, found in one walk of the whole document (see `elementsByTag`). */
export const METADATA_TAGS = ["meta", "title", "link", "base"] as const

export const extractMetadata = (
  document: Doc,
  found: ReadonlyMap<string, ReadonlyArray<Element>>,
  base: string,
): PageMetadata => {
  const metadata: PageMetadata = {}
  const named: PageMetadata = {}
  for (const meta of found.get("meta") ?? []) {
    const key = meta.getAttribute("name") ?? meta.getAttribute("property") ?? meta.getAttribute("itemprop")
    const content = meta.getAttribute("content")
    if (key === null || content === null || key === "") continue
    add(metadata, key, content)
    const field = NAMED[key.toLowerCase()]
    if (field !== undefined) add(named, field, content.trim())
  }
  // Firecrawl joins repeated descriptions into one string.
  if (Array.isArray(named.description)) named.description = named.description.join(", ")
  const title = found.get("title")?.[0]?.textContent?.replace(/\s+/g, " ").trim()
  const fallbackTitle = first(metadata["og:title"]) ?? first(metadata["twitter:title"])
  const language = document.documentElement?.getAttribute("lang")?.trim()
  const icon = (found.get("link") ?? []).find(
    (link) => link.hasAttribute("href") && /(^|\s)icon(\s|$)/i.test(link.getAttribute("rel") ?? ""),
  )
  const favicon = icon ? absolute(icon.getAttribute("href") ?? "", base) : undefined
  return {
    ...metadata,
    ...named,
    ...(title ? { title } : fallbackTitle ? { title: fallbackTitle } : {}),
    ...(language ? { language } : {}),
    ...(favicon ? { favicon } : {}),
  }
}

const first = (value: string | Array<string> | undefined) => (Array.isArray(value) ? value[0] : value)
