/** includeTags / excludeTags: CSS selectors a caller gives (css-select); one it cannot parse is a caller error. */
import { compile, selectAll } from "css-select"
import { type AnyNode, cloneNode } from "domhandler"
import { append, type Document, type Element, isTag, newElement, remove } from "./Dom.js"

export class InvalidSelectorError extends Error {
  constructor(
    readonly option: "includeTags" | "excludeTags",
    readonly selector: string,
  ) {
    super(`Invalid CSS selector in ${option}: "${selector}"`)
  }
}

const select = (root: AnyNode, selector: string, option: InvalidSelectorError["option"]): Array<Element> => {
  try {
    return selectAll<AnyNode, Element>(selector, root)
  } catch {
    throw new InvalidSelectorError(option, selector)
  }
}

/** Removes every element under `root` matching one of the selectors. */
export const removeMatching = (root: Element, selectors: ReadonlyArray<string>): void => {
  for (const selector of selectors) for (const element of select(root, selector, "excludeTags")) remove(element)
}

/** A new body holding copies of the elements matching the selectors, in document order, outermost only. */
export const keepMatching = (document: Document, selectors: ReadonlyArray<string>): Element => {
  const matched = new Set<Element>()
  for (const selector of selectors)
    for (const element of select(document, selector, "includeTags")) matched.add(element)
  const body = newElement("body")
  const visit = (element: Element) => {
    if (matched.has(element)) append(body, cloneNode(element, true))
    else for (const child of element.children) if (isTag(child)) visit(child)
  }
  for (const child of document.children) if (isTag(child)) visit(child)
  return body
}

/** The first selector that cannot be parsed, checked before any fetch so a typo costs no request. */
export const findInvalidSelector = (
  option: InvalidSelectorError["option"],
  selectors: ReadonlyArray<string>,
): InvalidSelectorError | undefined => {
  for (const selector of selectors) {
    try {
      compile(selector)
    } catch {
      return new InvalidSelectorError(option, selector)
    }
  }
  return undefined
}
