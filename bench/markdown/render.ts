/**
 * Markdown as a reader sees it: rendered to HTML by markdown-it (CommonMark plus GFM tables and strikethrough; raw
 * HTML off, so any HTML left in the markdown shows as literal text, as it does in most renderers that sanitise).
 *
 * - `renderedText`: the text content of the rendering (image alt text and link targets are attributes, not text).
 * - `normalizedRendering`: a canonical, one-block-per-line form of the rendering, to compare two markdown texts by
 *   what they show rather than by their spelling (`*a*` and `_a_`, inline and reference links, `***` and `---`).
 *   Every rule below only removes a difference that a browser does not show; text, nesting, links, images, code
 *   blocks, tables and literal markdown characters all survive it.
 */
import type { ChildNode, Element } from "domhandler"
import { textContent } from "domutils"
import { parseDocument } from "htmlparser2"
import MarkdownIt from "markdown-it"

const markdownIt = new MarkdownIt({ html: false, linkify: false })

export const renderMarkdown = (markdown: string): string => markdownIt.render(markdown)

/** The words a reader sees: the text content of the rendered HTML (markdown-it puts a newline between blocks). */
export const renderedText = (markdown: string): string => textContent(parseDocument(renderMarkdown(markdown)))

/**
 * The text of HTML with each image's title in its place: what a reader sees, hovering included (webdata writes a
 * figure's caption as its image's title).
 */
export const textWithTitles = (html: string): string => {
  let text = ""
  const visit = (nodes: ReadonlyArray<ChildNode>) => {
    for (const node of nodes) {
      if (node.type === "text") text += node.data
      else if ("children" in node) {
        if ((node as Element).name === "img") text += ` ${(node as Element).attribs.title ?? ""} `
        visit(node.children as Array<ChildNode>)
      }
    }
  }
  visit(parseDocument(html).children)
  return text
}

/** Elements that browsers show alike (`<i>` and `<em>`, `<b>` and `<strong>`, the strikethroughs). markdown-it emits
 * only `em`, `strong` and `s` while raw HTML is off; the rule keeps the comparison right if it is ever turned on. */
const ALIASES: Record<string, string> = { i: "em", b: "strong", del: "s", strike: "s" }

const VOID = new Set(["br", "hr", "img"])
const INLINE = new Set(["a", "em", "strong", "s", "code", "img", "br"])
/** Attributes holding a URL: resolved against the page's URL, since webdata writes absolute links and turndown's
 * tests keep relative ones (`/foo` and `https://example.com/foo` lead to the same place). */
const URL_ATTRIBUTES = new Set(["href", "src"])

/** Text escaped as HTML; a no-break space is written `&nbsp;` so that the reader of a report can tell it apart. */
const escapeText = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\u00a0/g, "&nbsp;")
const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;")

const resolve = (value: string, base: string) => {
  try {
    return new URL(value, base).href
  } catch {
    return value
  }
}

const openTag = (element: Element, base: string) => {
  const name = ALIASES[element.name] ?? element.name
  // All attributes are kept (markdown-it emits few: href, src, alt, title, start, the code block's language class,
  // a table cell's alignment), sorted so that their order does not matter.
  const attributes = Object.entries(element.attribs)
    .map(([key, value]) => [key, URL_ATTRIBUTES.has(key) ? resolve(value, base) : value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`)
    .join("")
  return { name, open: `<${name}${attributes}>` }
}

/** Inline content, or a code block's content, as HTML; whitespace as it is (see `layOut`). */
const serialize = (nodes: ReadonlyArray<ChildNode>, base: string): string =>
  nodes
    .map((node) => {
      if (node.type === "text") return escapeText(node.data)
      if (node.type !== "tag") return ""
      const { name, open } = openTag(node, base)
      return VOID.has(name) ? open : `${open}${serialize(node.children, base)}</${name}>`
    })
    .join("")

/** Opening and closing tags of the inline elements that show nothing themselves (not `<img>` and `<br>`). */
const TAGS = "(?:</?(?:a|em|strong|s|code)\\b[^>]*>)*"
/**
 * Whitespace in a run of inline content, as a browser lays it out: any run of spaces, tabs and newlines (a soft line
 * break included) shows as one space; a space right after another one, even across tag boundaries
 * (`a <em> b</em>`), and spaces at the start or end of a block or around a `<br>` show as nothing. One `<br>` at the
 * end of a block shows as nothing too (a second one would show an empty line and is kept).
 */
const layOut = (run: string): string =>
  run
    .replace(/[ \t\n\r\f]+/g, " ")
    .replace(new RegExp(` (${TAGS}) `, "g"), " $1")
    .replace(new RegExp(`^(${TAGS}) `), "$1")
    .replace(new RegExp(` (${TAGS})$`), "$1")
    .replace(/ ?<br> ?/g, "<br>")
    .replace(/<br>((?:<\/[^>]*>)*)$/, "$1")

/**
 * The children of a block element: each run of inline content laid out, whitespace-only runs between blocks
 * dropped (they are not shown), one child block a line. In a list item an inline run is wrapped in `<p>`: a tight
 * list (`<li>a</li>`) and a loose one (`<li><p>a</p></li>`) differ only in the spacing between items, and turndown
 * and webdata choose differently for the same HTML. Two paragraphs in one item still differ from one.
 */
const blockChildren = (nodes: ReadonlyArray<ChildNode>, base: string, listItem: boolean): Array<string> => {
  const out: Array<string> = []
  let run: Array<ChildNode> = []
  const flush = () => {
    const text = layOut(serialize(run, base))
    run = []
    if (text === "" || text === " ") return
    out.push(listItem ? `<p>${text}</p>` : text)
  }
  for (const node of nodes) {
    if (node.type === "text" || (node.type === "tag" && INLINE.has(ALIASES[node.name] ?? node.name))) run.push(node)
    else if (node.type === "tag") {
      flush()
      out.push(block(node, base))
    }
  }
  flush()
  return out
}

const block = (element: Element, base: string): string => {
  const { name, open } = openTag(element, base)
  if (VOID.has(name)) return open
  // Whitespace in a code block is shown as it is: kept exactly.
  if (name === "pre") return `${open}${serialize(element.children, base)}</${name}>`
  const children = blockChildren(element.children, base, name === "li")
  const nested = name === "li" || element.children.some((child) => child.type === "tag" && !INLINE.has(child.name))
  return nested ? `${open}\n${children.join("\n")}\n</${name}>` : `${open}${children.join("")}</${name}>`
}

/** The canonical form of `markdown`'s rendering, with links and images resolved against `base`. */
export const normalizedRendering = (markdown: string, base: string): string =>
  blockChildren(parseDocument(renderMarkdown(markdown)).children, base, false).join("\n")
