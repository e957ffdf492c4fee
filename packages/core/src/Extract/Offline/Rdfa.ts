/**
 * RDFa Lite: `typeof` elements (under a `vocab`, usually schema.org) and the `property` elements under them. A
 * property's value is, as RDFa 1.1 reads it: `content`, else the IRI of `href`/`src`/`resource`, else `datetime`,
 * else the text. Prefixed names (`schema:name`) match by their local part. Open Graph `property` meta tags outside
 * any `typeof` are the meta reader's.
 */
import type { Budget, Item } from "./Candidates.js"
import { attr, type Element, type Page, resolveUrl, valueText } from "./Html.js"
import { readScopes } from "./Scopes.js"

const propertyValue = (element: Element, base: string | undefined): string => {
  const content = attr(element, "content")
  if (content !== undefined) return content.trim()
  for (const name of ["href", "src", "resource"]) {
    const raw = attr(element, name)
    if (raw !== undefined) return resolveUrl(raw, base) ?? raw.trim()
  }
  return attr(element, "datetime")?.trim() ?? valueText(element)
}

export const readRdfa = (page: Page, budget: Budget): Array<Item> =>
  readScopes(page, budget, {
    source: "rdfa",
    scope: "typeof",
    type: "typeof",
    property: "property",
    value: propertyValue,
  })
