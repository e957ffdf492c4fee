/** Parsing HTML into a linkedom document (after the Prefilter pass) and small DOM helpers. */
import { parseHTML } from "linkedom"
import { prefilter } from "./Prefilter.js"

export type Doc = Document

export const ELEMENT_NODE = 1
export const TEXT_NODE = 3

const parse = (html: string) => (parseHTML(html) as unknown as { document: Doc }).document

export const parseDocument = (input: string): Doc => {
  const html = prefilter(input)
  let document = parse(html)
  // linkedom builds no <html>/<body> for fragments or text; wrap them so every page has a body.
  if (document.documentElement?.tagName !== "HTML" || document.body === null)
    document = parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`)
  return document
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
