/**
 * DOM → markdown in one walk over the cleaned content: ATX headings, `-` bullets, fenced code with its language,
 * GFM tables (layout tables as blocks) and strikethrough, `*`/`**` emphasis, hard breaks, inline links and images.
 * What it writes renders as the page reads: text that looks like markdown or HTML is escaped (`Syntax.ts`), and
 * emphasis is written only where a CommonMark renderer reads it as emphasis (`Paragraph.ts`).
 *
 * Purpose-built rather than turndown: turndown first rewrites the DOM to collapse whitespace and then runs a dozen
 * regular expressions per text node, which made it the largest cost on text-heavy pages (docs/architecture.md, "Why
 * not linkedom and turndown"). Nesting is bounded before parsing (Prefilter), so recursion here stays shallow.
 */

import { findAll, findOne } from "domutils"
import { BASE64_PLACEHOLDER } from "../Clean.js"
import { attr, classOf, type Element, isTag, isText, textOf } from "../Dom.js"
import { fence } from "../TextToMarkdown.js"
import { destination, escapeHeadingEnd, escapeInline, title } from "./Syntax.js"
import { gfmTable, isLayoutTable, tableRows } from "./Table.js"
import { collapse, Writer } from "./Writer.js"

/** `language-x`, `lang-x`, `highlight-x`; GitHub's `highlight-source-js` and `highlight-text-html-basic` name `js`, `html`. */
const LANGUAGE = /(?:^|\s)(?:(?:highlight-(?:source|text)-([\w+#.]+))|(?:language|lang|highlight)-([\w+#.-]+))/i

/** The language of a code block: on `<code>`, on `<pre>`, or on a wrapper (`div.highlight-source-js > pre`). */
const codeLanguage = (pre: Element): string => {
  const code = pre.children.find((child): child is Element => isTag(child) && child.name === "code")
  const wrappers: Array<Element | undefined> = [code, pre]
  for (let up = pre.parent, depth = 0; up !== null && isTag(up) && depth < 2; up = up.parent, depth++) wrappers.push(up)
  for (const element of wrappers) {
    if (element === undefined) continue
    const data = attr(element, "data-lang") ?? attr(element, "data-language")
    if (data) return data.trim()
    const match = LANGUAGE.exec(classOf(element))
    const language = match?.[1] ?? match?.[2]
    if (language) return language
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
const EMPHASIS = new Map(Object.entries({ em: "*", i: "*", strong: "**", b: "**", del: "~~", s: "~~", strike: "~~" }))

/** The text of a code block: `<br>` and the ends of block elements (one element per line) are newlines. */
const codeText = (node: Element): string => {
  let text = ""
  const visit = (element: Element) => {
    for (const child of element.children) {
      if (isText(child)) text += child.data
      else if (!isTag(child)) continue
      else if (child.name === "br") text += "\n"
      else {
        visit(child)
        if (BLOCK.has(child.name) && !text.endsWith("\n")) text += "\n"
      }
    }
  }
  visit(node)
  return text
}

const render = (element: Element, inItem = false): string => {
  const writer = new Writer(inItem)
  children(element, writer)
  return writer.toString()
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
    case "pre": {
      const code = codeText(node)
      return code.trim() === "" ? undefined : writer.rawBlock(fence(code, codeLanguage(node)))
    }
    case "ul":
    case "ol":
      return writer.rawBlock(...list(node, writer))
    case "table":
      return table(node, writer)
    case "blockquote": {
      const quoted = render(node)
      return writer.rawBlock(quoted.replace(/^/gm, "> ").replace(/^> $/gm, ">"))
    }
    case "img":
      return writer.markup(image(node))
    case "figure":
      return figure(node, writer)
    case "a":
      return link(node, writer)
    case "code":
    case "kbd":
    case "samp":
      return writer.markup(inlineCode(codeText(node)))
    case "sup":
    case "sub":
      return script(node, writer, tag === "sup" ? "^" : "_")
    case "input":
      // A task list's checkbox; other form fields have no text.
      if (writer.inItem && attr(node, "type")?.toLowerCase() === "checkbox") {
        writer.markup(node.attribs.checked !== undefined ? "[x]" : "[ ]")
        writer.space()
      }
      return
  }
  if (tag.length === 2 && tag[0] === "h" && tag[1]! >= "1" && tag[1]! <= "6") {
    if (writer.inline > 0) {
      writer.block()
      children(node, writer)
      return writer.block()
    }
    const text = render(node).replace(/\s*\n\s*/g, " ")
    return text === "" ? undefined : writer.rawBlock(`${"#".repeat(Number(tag[1]))} ${escapeHeadingEnd(text)}`)
  }
  const mark = EMPHASIS.get(tag)
  if (mark !== undefined) {
    const id = writer.openEmphasis(mark)
    children(node, writer)
    return writer.closeEmphasis(id)
  }
  const isBlock = BLOCK.has(tag)
  if (isBlock) writer.block()
  children(node, writer)
  if (isBlock) writer.block()
}

/** `10<sup>6</sup>` as `10^6`, `H<sub>2</sub>O` as `H_2O`; more than one word goes in parentheses. */
const script = (node: Element, writer: Writer, marker: string) => {
  const text = collapse(codeText(node)).trim()
  if (text === "") return
  const word = !/\s/.test(text)
  writer.markup(word ? marker : `${marker}(`)
  children(node, writer)
  if (!word) writer.markup(")")
}

/** An ordered list's numbers: `start`, `reversed`, and each item's `value`. */
const numbering = (node: Element, items: number) => {
  const reversed = node.attribs.reversed !== undefined
  const start = Number.parseInt(attr(node, "start") ?? "", 10)
  let next = Number.isFinite(start) ? start : reversed ? items : 1
  return (item: Element): number => {
    const value = Number.parseInt(attr(item, "value") ?? "", 10)
    const number = Number.isFinite(value) ? value : next
    next = reversed ? number - 1 : number + 1
    return Math.max(0, Math.min(999_999_999, number))
  }
}

/**
 * A list's markdown and gap, and the marker it used. Items get markers; anything else in the list (text used for
 * indentation, stray elements) is a plain line. A list right after another of the same marker would merge with it,
 * and a number out of sequence would be renumbered by a renderer: both switch the marker (`-`/`*`, `.`/`)`), which
 * starts a new list.
 */
const list = (node: Element, writer: Writer): [string, number, string] => {
  const ordered = node.name === "ol"
  const items = node.children.filter((child): child is Element => isTag(child) && child.name === "li")
  const number = numbering(node, items.length)
  let delimiter = writer.listMarker(ordered ? "." : "-", ordered ? ")" : "*")
  let previous: number | undefined
  let first: number | undefined
  const lines: Array<string> = []
  let loose = new Writer()
  const flushLoose = () => {
    const text = loose.toString()
    if (text !== "") lines.push(text)
    loose = new Writer()
  }
  for (const child of node.children) {
    if (isText(child)) loose.text(child.data)
    else if (!isTag(child)) continue
    else if (child.name !== "li") element(child, loose)
    else {
      flushLoose()
      let marker = `${delimiter} `
      if (ordered) {
        const value = number(child)
        if (previous !== undefined && value !== previous + 1) delimiter = delimiter === "." ? ")" : "."
        previous = value
        marker = `${value}${delimiter} `
      }
      const content = render(child, true)
      // An empty item shows nothing, and a bare `-` under text would underline it as a heading.
      if (content === "") continue
      if (lines.length === 0) first = previous
      lines.push(marker + content.replace(/\n(?!\n)/g, `\n${" ".repeat(marker.length)}`))
    }
  }
  flushLoose()
  // In an item, a list follows the item's text on the next line, unless it is ordered from another number than 1:
  // such a list cannot interrupt a paragraph, so it needs a blank line.
  const gap = writer.inItem && (first === undefined || first === 1) ? 1 : 2
  return [lines.join("\n"), gap, delimiter]
}

/** Captions of the images of the figures being written, which become those images' titles. */
const captions = new WeakMap<Element, string>()

/**
 * A figure of one image (without a title) and its caption: the caption is the image's title (`![alt](src
 * "caption")`), so that the text around it reads on as the page's prose. Other figures are blocks like any other.
 */
const figure = (node: Element, writer: Writer) => {
  const images = findAll((element) => element.name === "img", node.children)
  const caption = findOne((element) => element.name === "figcaption", node.children)
  const text = caption === null ? "" : collapse(textOf(caption)).trim()
  writer.block()
  // An image with a title of its own keeps it, and the caption stays text.
  if (images.length !== 1 || caption === null || text === "" || attr(images[0]!, "title")) children(node, writer)
  else {
    captions.set(images[0]!, text)
    for (const child of node.children)
      if (isText(child)) writer.text(child.data)
      else if (isTag(child) && child !== caption) element(child, writer)
    captions.delete(images[0]!)
  }
  writer.block()
}

const image = (node: Element): string => {
  const src = attr(node, "src")
  if (!src) return ""
  const alt = escapeInline(collapse(attr(node, "alt") ?? "").trim())
  // Firecrawl's placeholder for a removed inline image is already a destination in angle brackets.
  const target = src === BASE64_PLACEHOLDER ? src : destination(src)
  return `![${alt}](${target}${title(captions.get(node) ?? collapse(attr(node, "title") ?? "").trim())})`
}

const SKIP_LINK = /^\s*skip to (main )?content\s*$/i

const link = (node: Element, writer: Writer) => {
  const href = attr(node, "href")
  // Links do not nest in markdown: a link inside one is its text.
  if (href === undefined || href === "" || writer.inline > 0) return children(node, writer)
  if (href.startsWith("#") && SKIP_LINK.test(codeText(node))) return
  const linkTitle = collapse(attr(node, "title") ?? "").trim()
  const start = writer.linkStart()
  children(node, writer)
  writer.linkEnd(start, `](${destination(href)}${title(linkTitle)})`, () => {
    // A link with no text (an icon) keeps its target, named by its label when it has one; an empty in-page link goes.
    const label = collapse(attr(node, "aria-label") ?? "").trim() || linkTitle
    if (label !== "") return `[${escapeInline(label)}](${destination(href)})`
    return href.startsWith("#") ? "" : `[](${destination(href)})`
  })
}

/** Inline code in a fence of backticks longer than any run inside it. */
const inlineCode = (raw: string): string => {
  const code = collapse(raw)
  if (code.trim() === "") return ""
  const longest = Math.max(0, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length))
  const ticks = "`".repeat(longest + 1)
  const pad = code.startsWith("`") || code.endsWith("`") ? " " : ""
  return `${ticks}${pad}${code}${pad}${ticks}`
}

const table = (node: Element, writer: Writer): void => {
  const caption = node.children.find((child): child is Element => isTag(child) && child.name === "caption")
  if (caption !== undefined) writer.rawBlock(render(caption))
  const rows = tableRows(node)
  if (rows.length === 0) return
  const markdown = isLayoutTable(rows) ? undefined : gfmTable(rows, (cell) => render(cell))
  if (markdown !== undefined) {
    writer.rawBlock(markdown)
    return
  }
  for (const cells of rows)
    for (const cell of cells) {
      writer.block()
      children(cell, writer)
      writer.block()
    }
}

/** Markdown of `root`. */
export const toMarkdown = (root: Element): string => render(root)
