/**
 * DOM → markdown in one walk over the cleaned content: ATX headings, `-` bullets, fenced code with its language,
 * GFM tables and strikethrough, `*`/`**` emphasis, inline links and images.
 *
 * Purpose-built rather than turndown: turndown first rewrites the DOM to collapse whitespace and then runs a dozen
 * regular expressions per text node, which made it the largest cost on text-heavy pages. Here whitespace is
 * collapsed as text is written: a space is owed, not written, and is dropped at line and block boundaries, and
 * emphasis or link openers are held back until content follows them (so `<em> a </em>` gives ` *a* `, and an
 * empty link gives nothing). Nesting is bounded before parsing (Prefilter), so recursion here stays shallow.
 */
import { findOne } from "domutils"
import { attr, classOf, type Element, isTag, isText, textOf } from "./Dom.js"
import { fence } from "./TextToMarkdown.js"

const LANGUAGE = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)/i

const codeLanguage = (pre: Element): string => {
  const code = findOne((element) => element.name === "code", pre.children)
  for (const element of [code, pre]) {
    if (element === null) continue
    const data = attr(element, "data-lang") ?? attr(element, "data-language")
    if (data) return data.trim()
    const match = LANGUAGE.exec(classOf(element))
    if (match?.[1]) return match[1]
  }
  return ""
}

/** Elements that start and end a block; every other element flows inline. */
const BLOCK = new Set(
  (
    "address article aside audio blockquote body center dd details dialog dir div dl dt fieldset figcaption figure " +
    "footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main menu nav ol output p pre section " +
    "summary table tbody td tfoot th thead tr ul video"
  ).split(" "),
)
const DELIMITERS = new Map(Object.entries({ em: "*", i: "*", strong: "**", b: "**", del: "~~", s: "~~", strike: "~~" }))

const WHITESPACE = /[ \t\n\r\f]+/g
/** Runs of collapsible whitespace as one space; most text nodes have none to collapse, and are returned as they are. */
const collapse = (text: string): string => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (
      code === 0x20 ? text.charCodeAt(i + 1) === 0x20 : code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c
    )
      return text.replace(WHITESPACE, " ")
  }
  return text
}
/** Characters markdown would read as syntax anywhere in a line. */
const SYNTAX = /[\\`*_[\]]/
const escapeInline = (text: string) => (SYNTAX.test(text) ? text.replace(/[\\`*_[\]]/g, "\\$&") : text)
/** Characters markdown would read as syntax at the start of a line: headings, list markers, quotes, rules. */
const LINE_START_SYNTAX = /^[#\-+>=~0-9]/
const escapeLineStart = (text: string) =>
  LINE_START_SYNTAX.test(text)
    ? text.replace(/^(?:#{1,6}(?= )|[-+](?= )|>|=+|~~~)/, "\\$&").replace(/^(\d+)\.(?= )/, "$1\\.")
    : text

/** A growing markdown text that owes spaces, line breaks and openers until content arrives. */
class Writer {
  private out = ""
  /** The last character written ("" before any). */
  private last = ""
  /** Newlines owed before the next content (at most 2: one blank line). */
  private breaks = 0
  private space = false
  private readonly openers: Array<{ readonly mark: string }> = []
  /** Inside a link: blocks (a card's heading and teaser) run on as one line of link text. */
  inline = 0

  constructor(
    /** Inside a list item: a nested list follows its item's text on the next line. */
    readonly inItem = false,
  ) {}

  private append(text: string): void {
    this.out += text
    this.last = text[text.length - 1] ?? this.last
  }

  private atLineStart(): boolean {
    return this.last === "" || this.last === "\n" || this.breaks > 0
  }

  /** Writes owed breaks, the owed space and (unless the content is only blank) held-back openers. */
  private flush(openers = true): void {
    if (this.last !== "" && this.breaks > 0) this.append("\n".repeat(this.breaks))
    else if (this.space && this.last !== "" && this.last !== "\n" && this.last !== " ") this.append(" ")
    this.breaks = 0
    this.space = false
    if (!openers) return
    for (const opener of this.openers) this.append(opener.mark)
    this.openers.length = 0
  }

  /** Text of a text node. */
  text(raw: string): void {
    const text = collapse(raw)
    if (text === "") return
    const leading = text.charCodeAt(0) === 0x20
    const trailing = text.length > 1 && text.charCodeAt(text.length - 1) === 0x20
    // Only collapsible spaces are trimmed: a no-break space is content.
    const core = leading || trailing ? text.slice(leading ? 1 : 0, trailing ? -1 : text.length) : text
    if (leading) this.space = true
    if (core === "") return
    const first = core.charCodeAt(0)
    if ((first < 0x21 || first > 0x7e) && core.trim() === "") {
      // No-break spaces: kept, but they open no emphasis or link (`<b>&nbsp;</b>` is not `** **`).
      this.flush(false)
      this.append(core)
      this.space = trailing
      return
    }
    const escaped = escapeInline(core)
    const lineStart = this.atLineStart() && this.openers.length === 0
    this.flush()
    this.append(lineStart ? escapeLineStart(escaped) : escaped)
    this.space = trailing
  }

  /** Content written as is (markup, code). */
  raw(markup: string): void {
    if (markup === "") return
    this.flush()
    this.append(markup)
  }

  /** Holds back an opening delimiter until content follows; returns the token `close` takes. */
  open(mark: string): object {
    const opener = { mark }
    this.openers.push(opener)
    return opener
  }

  /** Closes what `open` opened; nothing at all when no content came in between. */
  close(token: object, mark: string): void {
    const held = this.openers.indexOf(token as { mark: string })
    if (held >= 0) this.openers.splice(held)
    else this.append(mark)
  }

  lineBreak(): void {
    if (this.inline > 0) this.space = true
    else {
      if (this.last !== "") this.breaks = Math.min(2, this.breaks + 1)
      this.space = false
    }
  }

  block(gap = 2): void {
    if (this.inline > 0) this.space = true
    else {
      if (this.last !== "" && this.last !== "\n") this.breaks = Math.max(this.breaks, gap)
      this.space = false
    }
  }

  /** A block of finished markdown (a list, a table, a fenced block), set off by blank lines. */
  rawBlock(markdown: string, gap = 2): void {
    if (markdown === "") return
    if (this.inline > 0) {
      this.block()
      this.raw(markdown.replace(/\s*\n\s*/g, " "))
      this.block()
      return
    }
    this.block(gap)
    this.raw(markdown)
    this.block(gap)
  }

  toString(): string {
    return this.out
  }
}

const render = (element: Element, inItem = false): string => {
  const writer = new Writer(inItem)
  children(element, writer)
  return writer.toString().trim()
}

const children = (parent: Element, writer: Writer): void => {
  for (const node of parent.children) {
    if (isText(node)) writer.text(node.data)
    else if (isTag(node)) element(node, writer)
  }
}

const element = (node: Element, writer: Writer) => {
  const tag = node.name
  switch (tag) {
    case "br":
      return writer.lineBreak()
    case "hr":
      return writer.rawBlock("---")
    case "pre":
      return writer.rawBlock(fence(textOf(node), codeLanguage(node)))
    case "ul":
    case "ol":
      return writer.rawBlock(list(node), writer.inItem ? 1 : 2)
    case "table":
      return table(node, writer)
    case "blockquote": {
      const quoted = render(node)
      return writer.rawBlock(quoted.replace(/^/gm, "> ").replace(/^> $/gm, ">"))
    }
    case "img":
      return writer.raw(image(node))
    case "a":
      return link(node, writer)
    case "code":
      return writer.raw(inlineCode(textOf(node)))
  }
  if (tag.length === 2 && tag[0] === "h" && tag[1]! >= "1" && tag[1]! <= "6") {
    if (writer.inline > 0) {
      writer.block()
      children(node, writer)
      return writer.block()
    }
    const text = render(node).replace(/\s*\n\s*/g, " ")
    return text === "" ? undefined : writer.rawBlock(`${"#".repeat(Number(tag[1]))} ${text}`)
  }
  const delimiter = DELIMITERS.get(tag)
  if (delimiter !== undefined) {
    const token = writer.open(delimiter)
    children(node, writer)
    return writer.close(token, delimiter)
  }
  const isBlock = BLOCK.has(tag)
  if (isBlock) writer.block()
  children(node, writer)
  if (isBlock) writer.block()
}

/** Items get markers; anything else in the list (text used for indentation, stray elements) is a plain line. */
const list = (node: Element): string => {
  const start = Number.parseInt(attr(node, "start") ?? "1", 10)
  let number = Number.isFinite(start) ? start : 1
  const lines: Array<string> = []
  let loose = new Writer()
  const flushLoose = () => {
    const text = loose.toString().trim()
    if (text !== "") lines.push(text)
    loose = new Writer()
  }
  for (const child of node.children) {
    if (isText(child)) loose.text(child.data)
    else if (!isTag(child)) continue
    else if (child.name !== "li") element(child, loose)
    else {
      flushLoose()
      const marker = node.name === "ol" ? `${number++}. ` : "- "
      lines.push(marker + render(child, true).replace(/\n(?!\n)/g, `\n${" ".repeat(marker.length)}`))
    }
  }
  flushLoose()
  return lines.join("\n")
}

const image = (node: Element): string => {
  const src = attr(node, "src")
  if (!src) return ""
  const alt = escapeInline(collapse(attr(node, "alt") ?? "").trim())
  const title = collapse(attr(node, "title") ?? "").trim()
  return `![${alt}](${src.replace(/[()]/g, "\\$&")}${title ? ` "${title.replace(/"/g, '\\"')}"` : ""})`
}

const SKIP_LINK = /^\s*skip to (main )?content\s*$/i

const link = (node: Element, writer: Writer) => {
  const href = attr(node, "href")
  if (href === undefined || href === "") return children(node, writer)
  if (href.startsWith("#") && SKIP_LINK.test(textOf(node))) return
  const title = collapse(attr(node, "title") ?? "").trim()
  const token = writer.open("[")
  writer.inline++
  children(node, writer)
  writer.inline--
  writer.close(token, `](${href.replace(/[()]/g, "\\$&")}${title ? ` "${title.replace(/"/g, '\\"')}"` : ""})`)
}

/** Inline code in a fence of backticks longer than any run inside it. */
const inlineCode = (raw: string): string => {
  const code = collapse(raw)
  if (code.trim() === "") return ""
  const longest = Math.max(0, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length))
  const fence = "`".repeat(longest + 1)
  const pad = code.startsWith("`") || code.endsWith("`") ? " " : ""
  return `${fence}${pad}${code}${pad}${fence}`
}

/** The rows of a table, not of the tables nested in it. */
const rowsOf = (table: Element): Array<Element> => {
  const rows: Array<Element> = []
  const visit = (parent: Element) => {
    for (const child of parent.children) {
      if (!isTag(child)) continue
      if (child.name === "tr") rows.push(child)
      else if (child.name !== "table") visit(child)
    }
  }
  visit(table)
  return rows
}

const cellsOf = (row: Element) =>
  row.children.filter((cell): cell is Element => isTag(cell) && (cell.name === "th" || cell.name === "td"))
const span = (cell: Element) => Math.max(1, Math.min(100, Number.parseInt(attr(cell, "colspan") ?? "1", 10) || 1))

/** GFM needs a header row: the first row with cells is one, followed by the separator. */
const table = (node: Element, writer: Writer): void => {
  const caption = node.children.find((child): child is Element => isTag(child) && child.name === "caption")
  if (caption !== undefined) writer.rawBlock(render(caption))
  const rows = rowsOf(node)
    .map(cellsOf)
    .filter((cells) => cells.length > 0)
  if (rows.length === 0) return
  const widths = rows.map((cells) => cells.reduce((total, cell) => total + span(cell), 0))
  const columns = Math.max(...widths, 1)
  const lines = rows.map((cells, index) => {
    const line = cells
      .map((cell) => {
        const text = render(cell).replace(/\s+/g, " ").replace(/\|/g, "\\|")
        return `${text === "" ? "" : ` ${text}`} |${" |".repeat(span(cell) - 1)}`
      })
      .join("")
    return index === 0 ? `|${line}${" |".repeat(columns - widths[0]!)}\n|${" --- |".repeat(columns)}` : `|${line}`
  })
  writer.rawBlock(lines.join("\n"))
}

/** Markdown of `root`. */
export const toMarkdown = (root: Element): string => render(root)
