/**
 * A bound on element nesting, applied to the HTML text before the DOM is built: linkedom's parser (and
 * htmlparser2's) slow down quadratically on very deep nesting, and recursive walks (turndown, serialisation)
 * overflow the stack. A linear scan of the tags estimates the depth; only a page deeper than the limit is rewritten,
 * with everything below the limit kept as text. The scan is an estimate, not an HTML parser: void elements, raw-text
 * elements and elements whose end tag is optional (p, li, td, …) do not count, so ordinary tag soup never trips it.
 */

export const MAX_DEPTH = 256

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*>/g
const NOT_NESTING = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
  "param",
  "p",
  "li",
  "dt",
  "dd",
  "option",
  "optgroup",
  "tr",
  "td",
  "th",
  "thead",
  "tbody",
  "tfoot",
  "colgroup",
  "rb",
  "rt",
  "rp",
  "html",
  "head",
  "body",
])
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "plaintext", "noscript"])

interface Tag {
  readonly start: number
  readonly end: number
  readonly closing: boolean
  readonly name: string
  /** `<x … />`: foreign (SVG, MathML) elements close themselves this way. */
  readonly selfClosing: boolean
}

/** Tags in order, skipping comments and the content of raw-text elements. */
function* tags(html: string): Generator<Tag> {
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(html); match !== null; match = TOKEN.exec(html)) {
    if (match[2] === undefined) continue
    const name = match[2].toLowerCase()
    const tag = {
      start: match.index,
      end: TOKEN.lastIndex,
      closing: match[1] === "/",
      name,
      selfClosing: match[0].endsWith("/>"),
    }
    yield tag
    if (!tag.closing && RAW_TEXT.has(name)) {
      const close = new RegExp(`</${name}`, "ig")
      close.lastIndex = tag.end
      TOKEN.lastIndex = close.exec(html)?.index ?? html.length
    }
  }
}

const nests = (tag: Tag) => !NOT_NESTING.has(tag.name) && !tag.selfClosing

const deepestNesting = (html: string): number => {
  let depth = 0
  let deepest = 0
  for (const tag of tags(html)) {
    if (!nests(tag)) continue
    depth = tag.closing ? Math.max(0, depth - 1) : depth + 1
    if (depth > deepest) deepest = depth
  }
  return deepest
}

/** The HTML as is when it nests at most `limit` deep; otherwise rewritten with deeper elements flattened to text. */
export const limitNesting = (html: string, limit: number = MAX_DEPTH): string => {
  if (deepestNesting(html) <= limit) return html
  const out: Array<string> = []
  let depth = 0
  let cursor = 0
  for (const tag of tags(html)) {
    const inside = depth > limit
    // Text between tags is kept everywhere; markup only above the limit.
    out.push(html.slice(cursor, tag.start))
    cursor = tag.end
    if (!nests(tag)) {
      if (!inside) out.push(html.slice(tag.start, tag.end))
      else out.push(" ")
      continue
    }
    if (tag.closing) {
      if (depth <= limit) out.push(html.slice(tag.start, tag.end))
      else out.push(" ")
      depth = Math.max(0, depth - 1)
    } else {
      depth++
      out.push(depth <= limit ? html.slice(tag.start, tag.end) : " ")
    }
  }
  out.push(html.slice(cursor))
  return out.join("")
}
