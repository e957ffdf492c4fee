/**
 * Parsing HTML into a linkedom document, bounded: nesting deeper than `MAX_DEPTH` is flattened into text so that
 * later recursive walks (turndown, serialisation) cannot overflow the stack on hostile pages.
 */
import { parseHTML } from "linkedom"

export type Doc = Document
export const MAX_DEPTH = 256

export const ELEMENT_NODE = 1
export const TEXT_NODE = 3

const parse = (html: string) => (parseHTML(html) as unknown as { document: Doc }).document

export const parseDocument = (html: string): Doc => {
  let document = parse(html)
  // linkedom builds no <html>/<body> for fragments or text; wrap them so every page has a body.
  if (document.documentElement?.tagName !== "HTML" || document.body === null)
    document = parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`)
  flattenDeepNesting(document)
  return document
}

/** Replaces every element at `MAX_DEPTH` by a paragraph with its text (iterative walk: no recursion). */
const flattenDeepNesting = (document: Doc): void => {
  const root = document.documentElement
  if (root === null) return
  const stack: Array<[Element, number]> = [[root, 0]]
  const tooDeep: Array<Element> = []
  while (stack.length > 0) {
    const [element, depth] = stack.pop()!
    if (depth >= MAX_DEPTH) {
      tooDeep.push(element)
      continue
    }
    for (let child = element.lastElementChild; child !== null; child = child.previousElementSibling)
      stack.push([child, depth + 1])
  }
  for (const element of tooDeep) {
    const paragraph = document.createElement("p")
    paragraph.textContent = (element.textContent ?? "").replace(/\s+/g, " ").trim()
    element.replaceWith(paragraph)
  }
}

/** Elements of the subtree in document order, without recursion. */
export const descendants = (root: Element): Array<Element> => Array.from(root.querySelectorAll("*"))

/** Resolves a reference against a base; undefined for unparsable URLs. */
export const absolute = (reference: string, base: string): string | undefined => {
  try {
    return new URL(reference.trim(), base).href
  } catch {
    return undefined
  }
}

/** The document's base URL: `<base href>` resolved against the page URL, else the page URL. */
export const baseUrl = (document: Doc, pageUrl: string): string => {
  const href = document.querySelector("base[href]")?.getAttribute("href")
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
