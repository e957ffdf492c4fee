/**
 * OpenDocument text (ODT): `content.xml` walked into HTML — `text:h` by outline level, paragraphs, lists (numbered
 * or bulleted by their list style, nested), tables, links, and bold or italic spans by their automatic styles.
 */
import type { ParsedFile } from "@webdata/core/engine"
import { type ChildNode, isTag, isText } from "domhandler"
import { parseFailed } from "../Failures.js"
import { escapeHtml, findAll, findFirst, parseXml } from "../Xml.js"
import { openZip } from "../Zip.js"
import { officeProperties } from "./OfficeProperties.js"

interface Styles {
  readonly bold: ReadonlySet<string>
  readonly italic: ReadonlySet<string>
  readonly numbered: ReadonlySet<string>
  /** Paragraph styles whose parent is a heading style. */
  readonly headings: ReadonlyMap<string, number>
}

const stylesOf = (documents: ReadonlyArray<ReturnType<typeof parseXml>>): Styles => {
  const bold = new Set<string>()
  const italic = new Set<string>()
  const numbered = new Set<string>()
  const headings = new Map<string, number>()
  for (const document of documents) {
    for (const style of findAll(document, "style:style")) {
      const name = style.attribs["style:name"] ?? ""
      const text = findFirst(style, "style:text-properties")
      if (text?.attribs["fo:font-weight"] === "bold") bold.add(name)
      if (text?.attribs["fo:font-style"] === "italic") italic.add(name)
      const level = /^Heading_20_(\d)$/.exec(style.attribs["style:parent-style-name"] ?? name)?.[1]
      if (level !== undefined) headings.set(name, Number(level))
    }
    for (const list of findAll(document, "text:list-style"))
      if (findFirst(list, "text:list-level-style-number") !== undefined) numbered.add(list.attribs["style:name"] ?? "")
  }
  return { bold, italic, numbered, headings }
}

const inline = (nodes: ReadonlyArray<ChildNode>, styles: Styles): string =>
  nodes
    .map((node) => {
      if (isText(node)) return escapeHtml(node.data)
      if (!isTag(node)) return ""
      switch (node.name) {
        case "text:s":
          return " ".repeat(Math.min(Number(node.attribs["text:c"] ?? "1"), 100))
        case "text:tab":
          return " "
        case "text:line-break":
          return "<br>"
        case "text:a":
          return `<a href="${escapeHtml(node.attribs["xlink:href"] ?? "")}">${inline(node.children, styles)}</a>`
        case "text:span": {
          const style = node.attribs["text:style-name"] ?? ""
          let html = inline(node.children, styles)
          if (styles.bold.has(style)) html = `<strong>${html}</strong>`
          if (styles.italic.has(style)) html = `<em>${html}</em>`
          return html
        }
        case "draw:frame": {
          const title = findFirst(node, "svg:title") ?? findFirst(node, "svg:desc")
          return title === undefined
            ? ""
            : escapeHtml(
                title.children
                  .filter(isText)
                  .map((text) => text.data)
                  .join(""),
              )
        }
        case "text:note":
        case "office:annotation":
          return ""
        default:
          return inline(node.children, styles)
      }
    })
    .join("")

const blocks = (nodes: ReadonlyArray<ChildNode>, styles: Styles, listStyle?: string): string =>
  nodes
    .filter(isTag)
    .map((node): string => {
      switch (node.name) {
        case "text:h": {
          const level = Math.min(Math.max(Number(node.attribs["text:outline-level"] ?? "1"), 1), 6)
          return `<h${level}>${inline(node.children, styles)}</h${level}>`
        }
        case "text:p": {
          const level = styles.headings.get(node.attribs["text:style-name"] ?? "")
          const html = inline(node.children, styles)
          if (level !== undefined) return `<h${level}>${html}</h${level}>`
          return html.trim() === "" ? "" : `<p>${html}</p>`
        }
        case "text:list": {
          const style = node.attribs["text:style-name"] ?? listStyle
          const tag = style !== undefined && styles.numbered.has(style) ? "ol" : "ul"
          const items = node.children
            .filter(isTag)
            .filter((item) => item.name === "text:list-item")
            .map((item) => `<li>${blocks(item.children, styles, style)}</li>`)
          return `<${tag}>${items.join("")}</${tag}>`
        }
        case "table:table": {
          const rows = findAll(node, "table:table-row").map(
            (row) =>
              `<tr>${row.children
                .filter(isTag)
                .filter((cell) => cell.name === "table:table-cell")
                .map((cell) => `<td>${blocks(cell.children, styles)}</td>`)
                .join("")}</tr>`,
          )
          return `<table>${rows.join("")}</table>`
        }
        case "text:table-of-content":
        case "text:tracked-changes":
          return ""
        default:
          return blocks(node.children, styles, listStyle)
      }
    })
    .join("\n")

export const parseOdt = async (bytes: Uint8Array): Promise<ParsedFile> => {
  const zip = await openZip(bytes)
  const content = await zip.text("content.xml")
  if (content === undefined) throw parseFailed("The ODT file has no content part.")
  const document = parseXml(content)
  const stylesXml = await zip.text("styles.xml")
  const styles = stylesOf(stylesXml === undefined ? [document] : [document, parseXml(stylesXml)])
  const body = findFirst(document, "office:text")
  const properties = await officeProperties(zip)
  return {
    pages: [body === undefined ? "" : blocks(body.children, styles)],
    ...(properties.title !== undefined ? { title: properties.title } : {}),
    properties: properties.properties,
  }
}
