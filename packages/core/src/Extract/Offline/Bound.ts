/**
 * One linear pass over the HTML text that bounds what the parser will be asked to build. htmlparser2 keeps its
 * stack of open elements with `unshift`, so its time is quadratic in the nesting depth (a page of 200,000 nested
 * `<div>`s takes over 20 s), and a tree that deep would also overflow any recursive walk. Tags deeper than
 * `MAX_DEPTH` become spaces (their text stays), elements after the `MAX_ELEMENTS`th are cut, and scripts and styles
 * are dropped except JSON-LD blocks, which are the extractor's best source.
 *
 * The content pipeline's prefilter (`Content/Prefilter.ts`) bounds nesting the same way but drops what this
 * extractor reads (every script, `<link itemprop>`, `<link rel=canonical>`), hence a pass of its own.
 *
 * It is a scanner, not a parser: the depth is an estimate (void elements and elements whose end tag is optional do
 * not count), and raw-text elements are skipped as the HTML tokenizer skips them: a script ends at its first
 * `</script`.
 */

const MAX_DEPTH = 200
const MAX_ELEMENTS = 150_000
/** Text beyond this is not read (a 5 MB page is read whole). */
const MAX_HTML_CHARS = 8_000_000

// A comment, or a tag with its attributes (quoted values may hold `>`), in the unrolled form: no backtracking.
const TOKEN = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*)>/g

/** Their content is raw text, skipped to their end tag. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "template", "iframe"])
/** Raw-text elements dropped with their content (a script survives only as JSON-LD). */
const DROPPED = new Set(["style", "noscript", "template", "iframe"])
const NOT_NESTING = new Set(
  (
    "area base br col embed hr img input link meta source track wbr param p li dt dd option optgroup tr td th " +
    "thead tbody tfoot colgroup html head body"
  ).split(" "),
)

const isJsonLd = (attributes: string): boolean => /\btype\s*=\s*["']?\s*application\/ld\+json/i.test(attributes)

/** Index just after `</name…>` searched from `from`, or the end of the text. */
const afterEndTag = (html: string, name: string, from: number): number => {
  const close = new RegExp(`</${name}[^>]*>`, "ig")
  close.lastIndex = from
  return close.exec(html) === null ? html.length : close.lastIndex
}

const JSON_LD_BLOCK = /<script\b[^>]*\btype\s*=\s*["']?\s*application\/ld\+json[^>]*>[\s\S]*?(?:<\/script[^>]*>|$)/gi

const jsonLdAfter = (html: string, from: number): string =>
  Array.from(html.slice(from).matchAll(JSON_LD_BLOCK), (match) => match[0]).join("")

export const boundHtml = (input: string): string => {
  const html = input.length > MAX_HTML_CHARS ? input.slice(0, MAX_HTML_CHARS) : input
  const out: Array<string> = []
  let copied = 0
  const cut = (from: number, to: number, replacement: string) => {
    if (from > copied) out.push(html.slice(copied, from))
    out.push(replacement)
    copied = to
  }
  let depth = 0
  let elements = 0
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(html); match !== null; match = TOKEN.exec(html)) {
    const start = match.index
    const end = TOKEN.lastIndex
    const rawName = match[2]
    if (rawName === undefined) {
      cut(start, end, "")
      continue
    }
    const name = rawName.toLowerCase()
    const closing = match[1] === "/"
    const attributes = match[3] ?? ""
    if (RAW_TEXT.has(name) && !closing) {
      const after = afterEndTag(html, name, end)
      const dropped = DROPPED.has(name) || (name === "script" && !isJsonLd(attributes))
      if (dropped || depth >= MAX_DEPTH) cut(start, after, " ")
      TOKEN.lastIndex = after
      continue
    }
    const nests = !NOT_NESTING.has(name) && !attributes.endsWith("/")
    let keep: boolean
    if (!nests) keep = depth <= MAX_DEPTH
    else if (closing) {
      keep = depth <= MAX_DEPTH
      depth = Math.max(0, depth - 1)
    } else keep = ++depth <= MAX_DEPTH
    if (!keep) {
      cut(start, end, " ")
      continue
    }
    if (!closing && ++elements > MAX_ELEMENTS) {
      // The rest of the page is cut, but its JSON-LD blocks (often at the very end) are kept.
      cut(start, html.length, jsonLdAfter(html, start))
      break
    }
  }
  if (copied === 0) return html
  if (copied < html.length) out.push(html.slice(copied))
  return out.join("")
}
