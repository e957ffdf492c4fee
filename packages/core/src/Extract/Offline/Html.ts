/**
 * The page as the readers see it: htmlparser2's tree of the bounded HTML, every element once in document order
 * (with whether it sits in a block that is not the page's subject), and the few helpers the readers share. Walks
 * are iterative: even bounded, a tree 200 deep is no place for recursion on a worker's small stack.
 */
import { type ChildNode, type Element, isTag, isText, type ParentNode } from "domhandler"
import { parseDocument } from "htmlparser2"
import { boundHtml } from "./Bound.js"

export type { Element } from "domhandler"

export interface Visit {
  readonly element: Element
  /** Inside navigation, a footer, a sidebar, comments or a "related products" block. */
  readonly aside: boolean
}

export interface Page {
  /** Every element, in document order. */
  readonly elements: ReadonlyArray<Visit>
  /** The URL relative references resolve against (`<base href>` over the page's URL). */
  readonly base: string | undefined
  readonly url: string
}

const ASIDE_TAGS = new Set(["nav", "footer", "aside"])
/** Class or id words of blocks about other things than the page's subject. */
const ASIDE_WORDS =
  /(?:^|[\s_-])(?:related|recommend(?:ed|ations?)?|similar|upsell|cross-?sell|also|carousel|sidebar|comments?|footer|nav|navbar|menu|breadcrumbs?|newsletter|promo|ads?|advert(?:isement)?|more-from|trending|popular|you-may)(?:$|[\s_-])/i

export const attr = (element: Element, name: string): string | undefined =>
  Object.hasOwn(element.attribs, name) ? element.attribs[name] : undefined

export const hasAttr = (element: Element, name: string): boolean => Object.hasOwn(element.attribs, name)

/** Page-wide containers are never aside, whatever their class says (`<body class="with-sidebar">`). */
const CONTAINERS = new Set(["html", "body", "main", "article"])

const isAsideElement = (element: Element): boolean =>
  ASIDE_TAGS.has(element.name) ||
  attr(element, "role") === "navigation" ||
  attr(element, "role") === "complementary" ||
  (!CONTAINERS.has(element.name) &&
    (ASIDE_WORDS.test(attr(element, "class") ?? "") || ASIDE_WORDS.test(attr(element, "id") ?? "")))

/**
 * Every element under `root`, in document order, with the aside flag inherited from its ancestors. A block holding
 * the page's first `<h1>` is never aside, whatever its class says (`<div class="page has-sidebar">` wraps it all).
 */
const collect = (root: ParentNode): Array<Visit> => {
  const elements: Array<Element> = []
  const stack: Array<ChildNode> = [...root.children].reverse()
  for (let top = stack.pop(); top !== undefined; top = stack.pop())
    if (isTag(top)) {
      elements.push(top)
      for (let i = top.children.length - 1; i >= 0; i--) stack.push(top.children[i]!)
    }
  const mainPath = new Set<ParentNode>()
  let node: ParentNode | null = elements.find((each) => each.name === "h1") ?? null
  while (node !== null) {
    mainPath.add(node)
    node = node.parent
  }
  const asides = new Set<Element>()
  return elements.map((element) => {
    const parent = element.parent
    const aside =
      (parent !== null && isTag(parent) && asides.has(parent)) ||
      (isAsideElement(element) && !(mainPath.has(element) && !ASIDE_TAGS.has(element.name)))
    if (aside) asides.add(element)
    return { element, aside }
  })
}

/** An absolute URL for a reference on the page, or undefined when it is not one. */
export const resolveUrl = (reference: string, base: string | undefined): string | undefined => {
  const trimmed = reference.trim()
  if (trimmed === "" || /\s/.test(trimmed)) return undefined
  try {
    return new URL(trimmed, base).href
  } catch {
    return undefined
  }
}

export const readPage = (html: string, url: string): Page => {
  const document = parseDocument(boundHtml(html), { decodeEntities: true })
  const elements = collect(document)
  const baseElement = elements.find((visit) => visit.element.name === "base" && hasAttr(visit.element, "href"))
  const pageUrl = resolveUrl(url, undefined)
  const base =
    baseElement === undefined ? pageUrl : (resolveUrl(attr(baseElement.element, "href")!, pageUrl) ?? pageUrl)
  return { elements, base, url }
}

const SKIPPED_TEXT = new Set(["script", "style", "template", "noscript"])

/** Elements whose boundaries separate words even when the markup has no space between them. */
export const BLOCKS = new Set(
  (
    "address article aside blockquote br dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 " +
    "header hr li main nav ol p pre section table tbody td tfoot th thead tr ul"
  ).split(" "),
)

/** Whitespace runs as one space, trimmed. */
export const collapse = (text: string): string => text.replace(/[\s\u00a0\u200b]+/g, " ").trim()

/** The collapsed text of a subtree, up to `max` characters (more is cut: nothing reads a whole page as a value). */
export const textOf = (node: ChildNode, max = 20_000): string => {
  const parts: Array<string> = []
  let length = 0
  const stack: Array<ChildNode> = [node]
  for (let top = stack.pop(); top !== undefined && length < max; top = stack.pop()) {
    if (isText(top)) {
      parts.push(top.data)
      length += top.data.length
    } else if (isTag(top) && !SKIPPED_TEXT.has(top.name)) {
      // Block boundaries become spaces: `<td>a</td><td>b</td>` reads "a b", not "ab".
      if (BLOCKS.has(top.name)) parts.push(" ")
      for (let i = top.children.length - 1; i >= 0; i--) stack.push(top.children[i]!)
    }
  }
  return collapse(parts.join("")).slice(0, max)
}

/**
 * An element's text as a property value: a list's items one per line (so that a list asked as an array splits
 * back into its items), any other element's collapsed text.
 */
export const valueText = (element: Element): string => {
  if (element.name === "ul" || element.name === "ol") {
    const items = childElements(element).filter((child) => child.name === "li")
    if (items.length > 0)
      return items
        .map((item) => textOf(item))
        .filter((text) => text !== "")
        .join("\n")
  }
  return textOf(element)
}

/** The child elements of an element or document. */
export const childElements = (parent: ParentNode): Array<Element> => parent.children.filter(isTag)

/** Words of an element's class and id attributes, lower-cased. */
export const classWords = (element: Element): Array<string> =>
  `${attr(element, "class") ?? ""} ${attr(element, "id") ?? ""}`
    .toLowerCase()
    .split(/[\s_-]+/)
    .filter((word) => word !== "")
