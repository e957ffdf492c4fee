/**
 * The page's tree: htmlparser2's parser and domhandler's nodes (plain objects: children arrays, an attribute record),
 * after the Prefilter pass, plus the few DOM operations the pipeline needs. A full DOM (linkedom) cost over half of
 * the pipeline's time building nodes nobody asked it to make observable (bench/README.md, server overhead).
 */
import render from "dom-serializer"
import { type ChildNode, type Document, Element, isTag, isText, type ParentNode } from "domhandler"
import { appendChild, removeElement, textContent } from "domutils"
import { parseDocument as parseTree } from "htmlparser2"
import { type PrefilterOptions, prefilter } from "./Prefilter.js"

export type { ChildNode, Document } from "domhandler"
export { Element, isTag, isText }

/** A parsed page: the document, its `<html>` element and the `<body>` in it. */
export interface Page {
  readonly document: Document
  readonly root: Element
  readonly body: Element
}

const isContent = (node: ChildNode): boolean => isTag(node) || (isText(node) && node.data.trim() !== "")

/**
 * Every page gets an `<html>` root with a `<body>`. The parser builds only what the markup says: fragments have
 * neither, and content after `</html>` or beside `<body>` stays outside them. Such content moves into the root (so
 * that `contentRoot` sees it), and a root without a body gets one holding everything but the head.
 */
export const parsePage = (input: string, options?: PrefilterOptions): Page => {
  const document = parseTree(prefilter(input, options))
  let root = document.children.find((node): node is Element => isTag(node) && node.name === "html")
  const stray = document.children.filter((node) => node !== root && isContent(node))
  if (root === undefined) {
    root = newElement("html")
    append(document, root)
  }
  appendAll(root, stray)
  let body = root.children.find((node): node is Element => isTag(node) && node.name === "body")
  if (body === undefined) {
    body = newElement("body")
    appendAll(
      body,
      root.children.filter((child) => !(isTag(child) && child.name === "head")),
    )
    append(root, body)
  }
  return { document, root, body }
}

/** An attribute's value; own properties only (a page may name an attribute `constructor`). */
export const attr = (element: Element, name: string): string | undefined =>
  Object.hasOwn(element.attribs, name) ? element.attribs[name] : undefined

export const hasAttr = (element: Element, name: string): boolean => Object.hasOwn(element.attribs, name)

/** The class attribute as written. */
export const classOf = (element: Element): string => attr(element, "class") ?? ""

export const newElement = (name: string): Element => new Element(name, {})

export const remove = (node: ChildNode): void => removeElement(node)

/** Moves `child` (from wherever it is) to the end of `parent`. */
export const append = (parent: ParentNode, child: ChildNode): void => appendChild(parent, child)

/**
 * Moves `nodes` (from wherever they are) to the end of `parent`, in order, relinking each parent once: moving a
 * fragment's thousands of top-level nodes one by one was quadratic (each move searches and splices the old parent's
 * children; 80 KB of `a<br>` took 17 s).
 */
export const appendAll = (parent: ParentNode, nodes: ReadonlyArray<ChildNode>): void => {
  const moving = new Set(nodes)
  const sources = new Set<ParentNode>()
  for (const node of nodes) if (node.parent !== null) sources.add(node.parent)
  for (const source of sources)
    relink(
      source,
      source.children.filter((child) => !moving.has(child)),
    )
  relink(parent, parent.children.concat(nodes))
}

/** Makes `children` the children of `parent`, with their parent and sibling links. */
const relink = (parent: ParentNode, children: Array<ChildNode>): void => {
  parent.children = children
  children.forEach((child, index) => {
    child.parent = parent
    child.prev = children[index - 1] ?? null
    child.next = children[index + 1] ?? null
  })
}

/** The text of a subtree, as the DOM's `textContent`. */
export const textOf = (node: ChildNode): string => textContent(node)

/** The markup of the children (the DOM's `innerHTML`), with only `&`, `<`, `>` and quotes escaped. */
export const innerHtml = (element: Element): string => render(element.children, { encodeEntities: "utf8" })

/**
 * The elements under `root` (itself included) whose tag is one of `tags`, grouped by tag, in document order: one
 * walk instead of a selector query per tag.
 */
export const elementsByTag = (root: Element, tags: ReadonlySet<string>): Map<string, Array<Element>> => {
  const found = new Map<string, Array<Element>>()
  const visit = (element: Element) => {
    if (tags.has(element.name)) {
      const list = found.get(element.name)
      if (list === undefined) found.set(element.name, [element])
      else list.push(element)
    }
    for (const child of element.children) if (isTag(child)) visit(child)
  }
  visit(root)
  return found
}

/**
 * Path-absolute references that resolve to the base's origin followed by the reference as written: no dot segments
 * (`%2e` included) and only characters the URL parser keeps as they are. A page holds hundreds of such links, and
 * the URL parser costs about a microsecond each.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-_~!$&()*+,;=:@/?#%.]*$/
const DOT_SEGMENT = /\/\.|%2e/i

/** The last base seen and its `scheme://userinfo@host:port` (undefined when not http(s)): pages resolve against one. */
let lastBase: { readonly base: string; readonly origin: string | undefined } | undefined

const originOf = (base: string): string | undefined => {
  if (lastBase?.base !== base) {
    const parsed = URL.parse(base)
    const special = parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:")
    lastBase = { base, origin: special ? new URL("/", parsed).href.slice(0, -1) : undefined }
  }
  return lastBase.origin
}

/** Resolves a reference against a base; undefined for unparsable URLs. */
export const absolute = (reference: string, base: string): string | undefined => {
  const trimmed = reference.trim()
  if (PLAIN_PATH.test(trimmed) && !DOT_SEGMENT.test(trimmed)) {
    const origin = originOf(base)
    if (origin !== undefined) return origin + trimmed
  }
  return URL.parse(trimmed, base)?.href
}

/** The document's base URL: the first `<base href>` resolved against the page URL, else the page URL. */
export const baseUrl = (bases: ReadonlyArray<Element>, pageUrl: string): string => {
  const href = bases.map((base) => attr(base, "href")).find((value) => value !== undefined)
  return (href !== undefined ? absolute(href, pageUrl) : undefined) ?? pageUrl
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
