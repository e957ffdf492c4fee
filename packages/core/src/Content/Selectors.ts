/** includeTags / excludeTags: CSS selectors a caller gives; a selector linkedom cannot parse is a caller error. */
import { parseHTML } from "linkedom"
import type { Doc } from "./Dom.js"

export class InvalidSelectorError extends Error {
  constructor(
    readonly option: "includeTags" | "excludeTags",
    readonly selector: string,
  ) {
    super(`Invalid CSS selector in ${option}: "${selector}"`)
  }
}

const select = (root: ParentNode, selector: string, option: InvalidSelectorError["option"]): Array<Element> => {
  try {
    return Array.from(root.querySelectorAll(selector))
  } catch {
    throw new InvalidSelectorError(option, selector)
  }
}

/** Removes every element matching one of the selectors. */
export const removeMatching = (root: ParentNode, selectors: ReadonlyArray<string>): void => {
  for (const selector of selectors) for (const element of select(root, selector, "excludeTags")) element.remove()
}

/** A new body holding the elements matching the selectors, in document order, outermost only. */
export const keepMatching = (document: Doc, selectors: ReadonlyArray<string>): HTMLElement => {
  const matched = new Set<Element>()
  for (const selector of selectors)
    for (const element of select(document, selector, "includeTags")) matched.add(element)
  const body = document.createElement("body")
  for (const element of Array.from(document.querySelectorAll("*"))) {
    if (!matched.has(element)) continue
    let ancestor = element.parentElement
    while (ancestor !== null && !matched.has(ancestor)) ancestor = ancestor.parentElement
    if (ancestor === null) body.appendChild(element.cloneNode(true))
  }
  return body
}

let probe: Doc | undefined

/** The first selector that cannot be parsed, checked before any fetch so a typo costs no request. */
export const findInvalidSelector = (
  option: InvalidSelectorError["option"],
  selectors: ReadonlyArray<string>,
): InvalidSelectorError | undefined => {
  probe ??= parseHTML("<html><body></body></html>").document as unknown as Doc
  for (const selector of selectors) {
    try {
      probe.querySelector(selector)
    } catch {
      return new InvalidSelectorError(option, selector)
    }
  }
  return undefined
}
