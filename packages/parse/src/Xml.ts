/**
 * XML parts of office files as DOM trees (htmlparser2 in XML mode). It never expands entities declared in a DTD,
 * so "billion laughs" payloads stay inert text; only the predefined and numeric references are decoded.
 */
import { type ChildNode, type Document, type Element, isTag, isText } from "domhandler"
import { parseDocument } from "htmlparser2"

export type { Element }

export const parseXml = (xml: string): Document => parseDocument(xml, { xmlMode: true, decodeEntities: true })

/** Descendant elements whose qualified name is `name` (`w:p`), in document order. */
export const findAll = (root: Document | Element, name: string): Array<Element> => {
  const found: Array<Element> = []
  const walk = (nodes: ReadonlyArray<ChildNode>) => {
    for (const node of nodes)
      if (isTag(node)) {
        if (node.name === name) found.push(node)
        walk(node.children)
      }
  }
  walk(root.children)
  return found
}

/** The first descendant named `name`. */
export const findFirst = (root: Document | Element, name: string): Element | undefined => findAll(root, name)[0]

/** Child elements named `name`. */
export const childrenNamed = (element: Element, name: string): Array<Element> =>
  element.children.filter((child): child is Element => isTag(child) && child.name === name)

/** All the text under a node. */
export const textOf = (node: Document | Element): string => {
  let text = ""
  const walk = (nodes: ReadonlyArray<ChildNode>) => {
    for (const child of nodes) {
      if (isText(child)) text += child.data
      else if (isTag(child)) walk(child.children)
    }
  }
  walk(node.children)
  return text
}

/** HTML-escapes text for the HTML a parser writes. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!)
