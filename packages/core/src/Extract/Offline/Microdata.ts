/**
 * Microdata: `itemscope` elements with their `itemtype`, and the `itemprop` elements under them. A property's value
 * is read as the HTML standard says (`content` of `<meta>`, `href` of links, `src` of media, `datetime` of `<time>`,
 * `value` of `<data>`, the text otherwise), except that a `content` attribute wins on any element, as search engines
 * read it (`<span itemprop="price" content="19.99">$19.99</span>`).
 */
import type { Budget, Item } from "./Candidates.js"
import { attr, type Element, hasAttr, type Page, resolveUrl, valueText } from "./Html.js"
import { readScopes } from "./Scopes.js"

const SRC = new Set(["audio", "embed", "iframe", "img", "source", "track", "video"])
const HREF = new Set(["a", "area", "link"])

const propertyValue = (element: Element, base: string | undefined): string => {
  const content = attr(element, "content")
  if (content !== undefined) return content.trim()
  const url = (name: string) => {
    const raw = attr(element, name) ?? ""
    return resolveUrl(raw, base) ?? raw.trim()
  }
  if (SRC.has(element.name)) return url("src")
  if (HREF.has(element.name)) return url("href")
  if (element.name === "object") return url("data")
  if (element.name === "data" || element.name === "meter") return (attr(element, "value") ?? "").trim()
  if (element.name === "time" && hasAttr(element, "datetime")) return (attr(element, "datetime") ?? "").trim()
  return valueText(element)
}

export const readMicrodata = (page: Page, budget: Budget): Array<Item> =>
  readScopes(page, budget, {
    source: "microdata",
    scope: "itemscope",
    type: "itemtype",
    property: "itemprop",
    value: propertyValue,
  })
