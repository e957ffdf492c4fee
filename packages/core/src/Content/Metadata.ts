/**
 * Page metadata as Firecrawl reports it: named fields (title, description, og*, article*, dc*, …) plus every
 * `<meta name|property|itemprop>` under its raw key (a string, or a list when the key repeats).
 */
import { absolute, attr, type Element, hasAttr, textOf } from "./Dom.js"
import type { PageMetadata } from "./ExtractHtml.js"

/** Raw meta key (lower-cased) → Firecrawl's camelCase field. */
const NAMED = new Map<string, string>(
  Object.entries({
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
  }),
)
/** Fields that are lists even with one value. */
const LISTS = new Set(["ogLocaleAlternate"])

const add = (metadata: PageMetadata, key: string, value: string) => {
  // Own keys only, and defined rather than assigned: pages name their meta tags `constructor` or `__proto__`.
  const existing = Object.hasOwn(metadata, key) ? metadata[key] : undefined
  if (existing === undefined)
    Object.defineProperty(metadata, key, {
      value: LISTS.has(key) ? [value] : value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  else if (Array.isArray(existing)) existing.push(value)
  else metadata[key] = [existing, value]
}

/** The elements metadata is read from, found in one walk of the whole document (see `elementsByTag`). */
export const METADATA_TAGS = ["meta", "title", "link", "base"] as const

export const extractMetadata = (
  root: Element,
  found: ReadonlyMap<string, ReadonlyArray<Element>>,
  base: string,
): PageMetadata => {
  const metadata: PageMetadata = {}
  const named: PageMetadata = {}
  for (const meta of found.get("meta") ?? []) {
    const key = attr(meta, "name") ?? attr(meta, "property") ?? attr(meta, "itemprop")
    const content = attr(meta, "content")
    if (key === undefined || content === undefined || key === "") continue
    add(metadata, key, content)
    const field = NAMED.get(key.toLowerCase())
    if (field !== undefined) add(named, field, content.trim())
  }
  // Firecrawl joins repeated descriptions into one string.
  if (Array.isArray(named.description)) named.description = named.description.join(", ")
  const titleElement = found.get("title")?.[0]
  const title = titleElement === undefined ? undefined : textOf(titleElement).replace(/\s+/g, " ").trim()
  const fallbackTitle = first(metadata["og:title"]) ?? first(metadata["twitter:title"])
  const language = attr(root, "lang")?.trim()
  const icon = (found.get("link") ?? []).find(
    (link) => hasAttr(link, "href") && /(^|\s)icon(\s|$)/i.test(attr(link, "rel") ?? ""),
  )
  const favicon = icon ? absolute(attr(icon, "href") ?? "", base) : undefined
  return {
    ...metadata,
    ...named,
    ...(title ? { title } : fallbackTitle ? { title: fallbackTitle } : {}),
    ...(language ? { language } : {}),
    ...(favicon ? { favicon } : {}),
  }
}

const first = (value: string | Array<string> | undefined) => (Array.isArray(value) ? value[0] : value)
