/**
 * Page-level facts from the head: Open Graph and product/article meta tags, `<meta name=description|author|…>`, the
 * canonical link, the `<title>` and the first `<h1>` of the main content, and the page's language. They describe the
 * page as a whole, so they fill what the structured items leave out, under schema.org's names.
 */
import { addValue, type Item, newItem, typeNames } from "./Candidates.js"
import { attr, collapse, type Page, resolveUrl, textOf } from "./Html.js"

/** Meta key (lower-cased `property` or `name`) → the schema.org-style property it gives, strongest keys first. */
const META: ReadonlyArray<readonly [string, string]> = [
  ["og:title", "name"],
  ["twitter:title", "name"],
  ["og:description", "description"],
  ["description", "description"],
  ["twitter:description", "description"],
  ["og:image", "image"],
  ["og:image:url", "image"],
  ["og:image:secure_url", "image"],
  ["twitter:image", "image"],
  ["product:price:amount", "price"],
  ["og:price:amount", "price"],
  ["product:price:currency", "priceCurrency"],
  ["og:price:currency", "priceCurrency"],
  ["product:brand", "brand"],
  ["og:brand", "brand"],
  ["product:availability", "availability"],
  ["og:availability", "availability"],
  ["product:condition", "itemCondition"],
  ["product:retailer_item_id", "sku"],
  ["article:published_time", "datePublished"],
  ["og:published_time", "datePublished"],
  ["date", "datePublished"],
  ["pubdate", "datePublished"],
  ["publish-date", "datePublished"],
  ["publication_date", "datePublished"],
  ["dc.date", "datePublished"],
  ["dc.date.issued", "datePublished"],
  ["dcterms.created", "datePublished"],
  ["article:modified_time", "dateModified"],
  ["og:updated_time", "dateModified"],
  ["author", "author"],
  ["article:author", "author"],
  ["dc.creator", "author"],
  ["article:section", "articleSection"],
  ["article:tag", "keywords"],
  ["keywords", "keywords"],
  ["og:site_name", "publisher"],
  ["og:url", "url"],
  ["og:locale", "inLanguage"],
]
const META_KEYS = new Map<string, Array<string>>()
for (const [key, property] of META) META_KEYS.set(key, [...(META_KEYS.get(key) ?? []), property])
const ORDER = new Map(META.map(([key], index) => [key, index]))

const URL_VALUED = new Set(["image", "url"])

/** A title without the site's name its page appended ("Steel Kettle | Acme Shop" → "Steel Kettle"). */
const withoutSiteName = (title: string, site: string | undefined): string => {
  if (site === undefined) return title
  const match = /^(.+)\s+[|\-–—·:]\s+(.+?)$/.exec(title)
  return match !== null && collapse(match[2]!).toLowerCase() === site.toLowerCase() ? match[1]! : title
}

/** The page-level item (source "meta"); `og:type` gives its type. */
export const readMeta = (page: Page, order: number): Item => {
  const found: Array<{ readonly rank: number; readonly property: string; readonly value: string }> = []
  let title: string | undefined
  let h1: string | undefined
  let canonical: string | undefined
  let language: string | undefined
  let ogType: string | undefined
  let site: string | undefined
  for (const { element, aside } of page.elements) {
    const name = element.name
    if (name === "meta") {
      const key = (attr(element, "property") ?? attr(element, "name") ?? "").trim().toLowerCase()
      const content = collapse(attr(element, "content") ?? "")
      if (content === "") continue
      if (key === "og:type") ogType = content
      if (key === "og:site_name") site = content
      for (const property of META_KEYS.get(key) ?? []) {
        // An author given as a profile URL (article:author) is not a name.
        if (property === "author" && /^https?:\/\//i.test(content)) continue
        const value = URL_VALUED.has(property) ? (resolveUrl(content, page.base) ?? content) : content
        found.push({ rank: ORDER.get(key) ?? 0, property, value })
      }
    } else if (name === "title" && title === undefined) title = textOf(element)
    else if (name === "h1" && h1 === undefined && !aside) h1 = textOf(element)
    else if (
      name === "link" &&
      canonical === undefined &&
      /(?:^|\s)canonical(?:\s|$)/i.test(attr(element, "rel") ?? "")
    )
      canonical = resolveUrl(attr(element, "href") ?? "", page.base)
    else if (name === "html" && language === undefined) language = attr(element, "lang")?.trim()
  }
  const item = newItem("meta", ogType === undefined ? [] : typeNames([ogType]), order, 0)
  // Stable sort: for each property, the strongest key's values first, each key's in document order.
  for (const { property, value } of found.sort((a, b) => a.rank - b.rank))
    addValue(item, property, property === "name" ? withoutSiteName(value, site) : value)
  for (const [property, value] of [
    ["name", h1],
    ["name", title === undefined ? undefined : withoutSiteName(title, site)],
    ["url", canonical],
    ["url", resolveUrl(page.url, undefined)],
    ["inLanguage", language],
  ] as const)
    if (value !== undefined && value !== "") addValue(item, property, value)
  return item
}
