/**
 * The article's headline inside its main content, when it repeats the page title: the title is the document's
 * `metadata.title`, and an article body (as Readability and trafilatura extract it) starts after it.
 */
import { type Element, isTag, remove, textOf } from "./Dom.js"

const words = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** How much of `heading` the title holds: the share of the heading's words found in it (Readability's measure). */
const overlap = (title: ReadonlySet<string>, heading: ReadonlyArray<string>): number =>
  heading.length === 0 ? 0 : heading.filter((word) => title.has(word)).length / heading.length

/** The first `h1`/`h2` before any text, looked for among the first elements only. */
const leadingHeading = (root: Element): Element | undefined => {
  let budget = 50
  let found: Element | undefined
  const visit = (element: Element): boolean => {
    for (const child of element.children) {
      if (--budget < 0) return true
      if (isTag(child)) {
        if (child.name === "h1" || child.name === "h2") {
          found = child
          return true
        }
        if (visit(child)) return true
      } else if (textOf(child).trim() !== "") return true
    }
    return false
  }
  visit(root)
  return found
}

/** Removes the content's leading `h1`/`h2` when at least three quarters of its words are the title's. */
export const removeTitleHeading = (content: Element, title: string | undefined): void => {
  if (title === undefined) return
  const heading = leadingHeading(content)
  if (heading === undefined) return
  if (overlap(new Set(words(title)), words(textOf(heading))) >= 0.75) remove(heading)
}
