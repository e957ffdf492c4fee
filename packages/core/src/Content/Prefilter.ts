/**
 * One linear pass over the HTML text, before the tree is built. Parsing is the largest cost of the pipeline and
 * the parser pays for every node (element, attribute, text) it creates, so what never becomes content is cut here,
 * where cutting is a string copy:
 *
 * - scripts, styles, templates, inline SVG drawings, `<noscript>`, comments, and `<link>`s other than icons;
 * - whitespace-only text between block-level tags (a fifth of a typical page's nodes), never inside `<pre>`;
 * - attributes nothing downstream reads (event handlers, `data-*` and `aria-*` except the few that matter), unless
 *   the caller keeps them: caller-given selectors may name any attribute, and the `html` output shows them;
 * - nesting deeper than `MAX_DEPTH`: deeper tags become spaces and their text stays. The parser searches its stack
 *   of open elements on every end tag (quadratic on very deep nesting with stray end tags), and recursive walks (page
 *   statistics, the markdown writer, serialisation) would overflow the call stack.
 *
 * - everything after the `MAX_ELEMENTS`th element: the tree, its statistics and the markdown cost memory and time
 *   per node, and a page of a million table cells would cost a gigabyte and seconds; real pages stay far below.
 *
 * It is a scanner, not a parser: the depth is an estimate (void elements, and elements whose end tag is optional —
 * p, li, td… — do not count, so ordinary tag soup never trips it), and raw-text elements are skipped the way the
 * HTML tokenizer skips them: a script ends at the first `</script`.
 */

export const MAX_DEPTH = 256

/** Elements kept of one page; the rest of the page is cut (the largest real pages have a few tens of thousands). */
export const MAX_ELEMENTS = 150_000

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*)>/g

/** Dropped with their content. */
const DROPPED = new Set(["script", "style", "template", "svg", "noscript", "iframe", "noembed", "noframes"])
/** Raw text: their content is text even where it looks like tags. */
const RAW_TEXT = new Set(["textarea", "title", "xmp"])
/** Whitespace next to these is layout, not text. */
const BLOCK = new Set(
  (
    "html head body meta link base title div p ul ol li dl dt dd table caption thead tbody tfoot tr td th colgroup " +
    "col section article header footer nav aside main h1 h2 h3 h4 h5 h6 hgroup form fieldset legend figure " +
    "figcaption blockquote pre hr br address details summary option optgroup select picture source video audio iframe " +
    "menu center dialog"
  ).split(" "),
)
const NOT_NESTING = new Set(
  (
    "area base br col embed hr img input link meta source track wbr param p li dt dd option optgroup tr td th " +
    "thead tbody tfoot colgroup rb rt rp html head body"
  ).split(" "),
)
/** Attributes worth a look before rewriting a tag (a cheap test; most tags have none). */
const NOISY =
  /\s(?:on[a-z]|data-|aria-|tabindex|target|jsaction|jsname|jscontroller|jsmodel|sizes|loading|decoding|_ng|ng-|v-)/i
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*))?/g
/** `data-*` and `aria-*` attributes that are read downstream: lazy images, code languages, visibility, icon labels. */
const KEPT_DATA = new Set([
  "data-src",
  "data-srcset",
  "data-lazy-src",
  "data-original",
  "data-lang",
  "data-language",
  "aria-hidden",
  "aria-label",
])

const isNoisy = (name: string): boolean => {
  const lower = name.toLowerCase()
  if (KEPT_DATA.has(lower)) return false
  return (
    lower.startsWith("data-") ||
    lower.startsWith("aria-") ||
    (lower.startsWith("on") && lower.length > 2) ||
    lower === "tabindex" ||
    lower === "target" ||
    lower === "sizes" ||
    lower === "loading" ||
    lower === "decoding" ||
    lower.startsWith("js") ||
    lower.startsWith("_ng") ||
    lower.startsWith("ng-") ||
    lower.startsWith("v-")
  )
}

const slimAttributes = (attributes: string): string => {
  if (!NOISY.test(attributes)) return attributes
  let kept = ""
  ATTRIBUTE.lastIndex = 0
  for (let match = ATTRIBUTE.exec(attributes); match !== null; match = ATTRIBUTE.exec(attributes))
    if (!isNoisy(match[1]!)) kept += ` ${match[0]}`
  // A trailing `/` (self-closing) is not an attribute and must stay.
  return /\/\s*$/.test(attributes) ? `${kept} /` : kept
}

const isWhitespace = (html: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) {
    const code = html.charCodeAt(i)
    if (code !== 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d && code !== 0x0c) return false
  }
  return true
}

/** Index just after the end tag `</name…>` searched from `from`, or the end of the text. */
const afterEndTag = (html: string, name: string, from: number): number => {
  const close = new RegExp(`</${name}\\s*>`, "ig")
  close.lastIndex = from
  return close.exec(html) === null ? html.length : close.lastIndex
}

export interface PrefilterOptions {
  /** Nesting kept (default `MAX_DEPTH`). */
  readonly maxDepth?: number
  /** Keep every attribute. */
  readonly keepAttributes?: boolean
  /** Elements kept (default `MAX_ELEMENTS`). */
  readonly maxElements?: number
}

export const prefilter = (html: string, options: PrefilterOptions = {}): string => {
  const limit = options.maxDepth ?? MAX_DEPTH
  const keepAttributes = options.keepAttributes ?? false
  let elementsLeft = options.maxElements ?? MAX_ELEMENTS
  // The output is the input with cuts: only the text between cuts is copied, once.
  const out: Array<string> = []
  let copied = 0
  const cut = (from: number, to: number, replacement?: string) => {
    if (from > copied) out.push(html.slice(copied, from))
    if (replacement !== undefined) out.push(replacement)
    copied = to
  }
  let cursor = 0
  let previousIsBlock = true
  let depth = 0
  let preformatted = 0
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(html); match !== null; match = TOKEN.exec(html)) {
    const start = match.index
    const end = TOKEN.lastIndex
    const rawName = match[2]
    if (rawName === undefined) {
      // A comment: dropped; the text around it stays.
      cut(start, end)
      cursor = end
      continue
    }
    const name = rawName.toLowerCase()
    const closing = match[1] === "/"
    const attributes = match[3] ?? ""
    const selfClosing = attributes.endsWith("/")
    const isBlock = BLOCK.has(name)
    if (start > cursor && preformatted === 0 && (previousIsBlock || isBlock) && isWhitespace(html, cursor, start))
      cut(cursor, start)
    cursor = end
    if (DROPPED.has(name) || (name === "link" && !/icon/i.test(attributes))) {
      if (!closing && !selfClosing && name !== "link") cursor = afterEndTag(html, name, end)
      cut(start, cursor)
      TOKEN.lastIndex = cursor
      previousIsBlock = false
      continue
    }
    previousIsBlock = isBlock
    const inside = depth > limit
    const nests = !NOT_NESTING.has(name) && !selfClosing
    let keep: boolean
    if (!nests) keep = !inside
    else if (closing) {
      keep = depth <= limit
      depth = Math.max(0, depth - 1)
    } else keep = ++depth <= limit
    if (!keep) {
      cut(start, end, " ")
      continue
    }
    if (!closing && --elementsLeft < 0) {
      // Over the budget: the page ends here (the parser closes what is open).
      cut(start, html.length)
      break
    }
    if (name === "pre" || name === "listing") preformatted = Math.max(0, preformatted + (closing ? -1 : 1))
    if (attributes !== "" && !closing && !keepAttributes) {
      const slim = slimAttributes(attributes)
      if (slim !== attributes) cut(start, end, `<${rawName}${slim}>`)
    }
    if (!closing && RAW_TEXT.has(name)) {
      // The content and end tag stay as they are; an unclosed one runs to the end of the text.
      cursor = afterEndTag(html, name, end)
      if (nests) depth = Math.max(0, depth - 1)
      TOKEN.lastIndex = cursor
    }
  }
  cut(html.length, html.length)
  return out.length === 1 ? out[0]! : out.join("")
}
