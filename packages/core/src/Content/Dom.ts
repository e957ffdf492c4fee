/** Parsing HTML into a linkedom document (after the Prefilter pass) and small DOM helpers. */
import { parseHTML } from "linkedom"
import { type PrefilterOptions, prefilter } from "./Prefilter.js"

export type Doc = Document

export const ELEMENT_NODE = 1
export const TEXT_NODE = 3

const parse = (html: string) => (parseHTML(html) as unknown as { document: Doc }).document

export const parseDocument = (input: string, options?: PrefilterOptions): Doc => {
  const html = prefilter(input, options)
  let document = parse(html)
  // linkedom builds no <html>/<body> for fragments or text; wrap them so every page has a body.
  if (document.documentElement?.tagName !== "HTML" || document.body === null)
    document = parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`)
  return document
}

/**
 * The elements under `root` whose tag is one of `tags`, grouped by tag, in document order: one walk without the
 * selector engine (linkedom compiles a selector on every query and walks every node, attributes included).
 */
export const elementsByTag = (root: Element, tags: ReadonlySet<string>): Map<string, Array<Element>> => {
  const found = new Map<string, Array<Element>>()
  // The walk starts at the root itself and never goes past it (the root's siblings stay out).
  const pending: Array<Node> = []
  let node: Node | null = root
  for (;;) {
    if (node === null) {
      const finished = pending.pop()
      if (finished === undefined || finished === root) break
      node = finished.nextSibling
      continue
    }
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as Element
      const tag = element.localName
      if (tags.has(tag)) {
        const list = found.get(tag)
        if (list === undefined) found.set(tag, [element])
        else list.push(element)
      }
      const first = element.firstChild
      if (first !== null) {
        pending.push(element)
        node = first
        continue
      }
    }
    node = node === root ? null : node.nextSibling
  }
  return found
}

/** The class attribute as written (linkedom's `getAttribute("class")` rebuilds it from the token list). */
export const classOf = (element: Element): string => element.getAttributeNode("class")?.value ?? ""

/** Resolves a reference against a base; undefined for unparsable URLs. */
export const absolute = (reference: string, base: string): string | undefined => {
  try {
    return new URL(reference.trim(), base).href
  } catch {
    return undefined
  }
}

/** The document's base URL: the first `<base href>` resolved against the page URL, else the page URL. */
export const baseUrl = (bases: ReadonlyArray<Element>, pageUrl: string): string => {
  const href = bases.find((base) => base.hasAttribute("href"))?.getAttribute("href")
  return (href !== null && href !== undefined ? absolute(href, pageUrl) : undefined) ?? pageUrl
}

/** The largest candidate of a `srcset` (by width `w`, else density `x`). */
export const largestSrcset = (srcset: string): string | undefined => {
  let best: { url: string; size: number } | undefined
  for (const candidate of srcset.split(/,\s+/)) {
    const [url, descriptor] = candidate.trim().split(/\s+/)
    if (url === undefined || url === "") continue
    const size = descriptor === undefined ? 1 : Number.parseFloat(descriptor) || 1
    if (best === undefined || size > best.size) best = { url, size }
  }
  return best?.url
}
