/**
 * The article's header inside its main content: the `<header>` elements (headline, standfirst, byline, date), as
 * Firecrawl's main-content cleanup removes them, and a leading headline that repeats the page title. Both are the
 * document's metadata (`title`, `description`, `author`, `publishedTime`); an article's text, as Readability and
 * trafilatura extract it, starts after them.
 */
import { type Element, elementsByTag, isTag, remove, textOf } from "./Dom.js"

/** A header with more text than this is not a headline block (some pages put the article's opening in one). */
const MAX_HEADER_CHARS = 1000

const HEADER = new Set(["header"])

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

/**
 * Removes the `<header>` elements inside `content` (short ones: a headline block), then its leading `h1`/`h2` when at
 * least three quarters of its words are the title's.
 */
export const removeArticleHeader = (content: Element, title: string | undefined): void => {
  for (const header of elementsByTag(content, HEADER).get("header") ?? [])
    if (header !== content && textOf(header).trim().length <= MAX_HEADER_CHARS) remove(header)
  if (title === undefined) return
  const heading = leadingHeading(content)
  if (heading === undefined) return
  if (overlap(new Set(words(title)), words(textOf(heading))) >= 0.75) remove(heading)
}
