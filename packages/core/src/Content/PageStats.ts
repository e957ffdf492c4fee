/**
 * One walk over the content root that removes what is never content (embedded objects, invisible elements) and
 * records, for every remaining element, its place in the tree and its text statistics. Main-content extraction
 * decides everything from these numbers, so it never re-reads the DOM's text.
 *
 * Elements are numbered in document order; a parent's number is smaller than its descendants', so one backwards
 * sweep adds every element's totals into its parent.
 */
import { attr, type Element, hasAttr, isTag, isText, remove } from "./Dom.js"

/** Never content, whatever the options: embedded apps and documents, and head-only elements that strayed. */
const JUNK = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "svg",
  "canvas",
  "link",
  "meta",
  "head",
  "base",
  "title",
])
const INVISIBLE_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i

/** Elements whose text flows into the enclosing block (phrasing content). */
export const INLINE = new Set([
  "a",
  "abbr",
  "b",
  "bdi",
  "bdo",
  "br",
  "cite",
  "code",
  "data",
  "del",
  "dfn",
  "em",
  "font",
  "i",
  "img",
  "ins",
  "kbd",
  "label",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
  "wbr",
])

const isInvisible = (element: Element): boolean => {
  if (hasAttr(element, "hidden") || attr(element, "aria-hidden") === "true") return true
  const style = attr(element, "style")
  return style !== undefined && INVISIBLE_STYLE.test(style)
}

/** Statistics of a page's elements; arrays indexed by element number. */
export interface PageStats {
  readonly elements: Array<Element>
  /** Lower-case tag names. */
  readonly tags: Array<string>
  /** Parent's number; -1 for the root. */
  readonly parents: Array<number>
  /** Length of the text in the subtree: characters, whitespace runs counting as one, CJK characters as two. */
  readonly text: Array<number>
  /** Of which inside links. */
  readonly linkText: Array<number>
  /** Text that belongs to the element itself: its text nodes and inline children, not its block children. */
  readonly inlineText: Array<number>
  readonly inlineLinkText: Array<number>
  readonly inlineCommas: Array<number>
  /** Sentence ends (`.`, `!`, `?`, `。`…) in the element's own inline text. */
  readonly inlineStops: Array<number>
  /** Text of the element's own text nodes only, and their commas. */
  readonly ownText: Array<number>
  readonly ownCommas: Array<number>
  /** Children that are not inline: an element with both these and inline text mixes prose with blocks. */
  readonly blockChildren: Array<number>
  /** Number of the element's last descendant (itself when it has none): its subtree is `i..ends[i]`. */
  readonly ends: Array<number>
}

const COMMAS = new Set([0x2c, 0x60c, 0xfe50, 0xfe10, 0xfe11, 0x2e41, 0x2e34, 0x2e32, 0xff0c, 0x3001])
const STOPS = new Set([0x2e, 0x21, 0x3f, 0x3002, 0xff01, 0xff1f, 0x2026])
const isSpace = (code: number) => code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0

/** The walk: removes junk under `root` and numbers the rest (root = 0). */
export const pageStats = (root: Element): PageStats => {
  const stats: PageStats = {
    elements: [],
    tags: [],
    parents: [],
    text: [],
    linkText: [],
    inlineText: [],
    inlineLinkText: [],
    inlineCommas: [],
    inlineStops: [],
    ownText: [],
    ownCommas: [],
    blockChildren: [],
    ends: [],
  }
  const add = (element: Element, parent: number): number => {
    stats.ownText.push(0)
    stats.ownCommas.push(0)
    stats.blockChildren.push(0)
    stats.ends.push(stats.elements.length)
    stats.elements.push(element)
    stats.tags.push(element.name)
    stats.parents.push(parent)
    stats.text.push(0)
    stats.linkText.push(0)
    stats.inlineText.push(0)
    stats.inlineLinkText.push(0)
    stats.inlineCommas.push(0)
    stats.inlineStops.push(0)
    return stats.elements.length - 1
  }
  const addText = (value: string, owner: number) => {
    let length = 0
    let commas = 0
    let stops = 0
    let pendingSpace = false
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i)
      if (isSpace(code)) {
        pendingSpace = length > 0
        continue
      }
      // Ideographic scripts say in one character what others say in a word or two.
      length +=
        (pendingSpace ? 2 : 1) + (code >= 0x2e80 && (code <= 0xd7af || (code >= 0xf900 && code <= 0xfaff)) ? 1 : 0)
      pendingSpace = false
      // ASCII first: most text is, and a Set lookup per character is the walk's main cost.
      if (code < 0x80) {
        if (code === 0x2c) commas++
        else if (code === 0x2e || code === 0x21 || code === 0x3f) stops++
      } else if (COMMAS.has(code)) commas++
      else if (STOPS.has(code)) stops++
    }
    stats.ownText[owner]! += length
    stats.ownCommas[owner]! += commas
    stats.inlineText[owner]! += length
    stats.inlineCommas[owner]! += commas
    stats.inlineStops[owner]! += stops
  }

  // Recursion is bounded: the Prefilter caps nesting.
  const visit = (element: Element, index: number) => {
    const children = element.children
    for (let i = 0; i < children.length; i++) {
      const node = children[i]!
      if (isText(node)) addText(node.data, index)
      else if (!isTag(node)) continue
      else if (JUNK.has(node.name) || isInvisible(node)) {
        remove(node)
        i--
      } else visit(node, add(node, index))
    }
  }
  visit(root, add(root, -1))

  // Totals, children before parents.
  const { tags, parents, text, linkText, inlineText, inlineLinkText, inlineCommas, inlineStops, ends } = stats
  for (let i = tags.length - 1; i >= 0; i--) {
    const tag = tags[i]!
    text[i]! += stats.ownText[i]!
    if (tag === "a") {
      linkText[i] = text[i]!
      inlineLinkText[i] = inlineText[i]!
    }
    const up = parents[i]!
    if (up < 0) continue
    if (ends[i]! > ends[up]!) ends[up] = ends[i]!
    text[up]! += text[i]!
    linkText[up]! += linkText[i]!
    // Inline children's text is also the parent's own text.
    if (INLINE.has(tag)) {
      inlineText[up]! += inlineText[i]!
      inlineLinkText[up]! += inlineLinkText[i]!
      inlineCommas[up]! += inlineCommas[i]!
      inlineStops[up]! += inlineStops[i]!
    } else stats.blockChildren[up]!++
  }
  return stats
}

export const linkDensity = (stats: PageStats, index: number): number => {
  const text = stats.text[index]!
  return text === 0 ? 0 : stats.linkText[index]! / text
}
