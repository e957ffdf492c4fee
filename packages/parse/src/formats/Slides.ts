/**
 * Presentations, one `<section>` per slide: the slide's title as `<h2>`, its other text as paragraphs and (nested)
 * lists, its tables, and its speaker notes under `<h3>Notes</h3>`.
 *
 * PPTX: slides in the order of `p:sldIdLst` in `ppt/presentation.xml` (file names need not follow it), each found
 * through the presentation's relationships, its notes through the slide's. Whether a paragraph is a bullet is mostly
 * inherited (paragraph, then the shape's list style, the layout's placeholder, the master's placeholder and its text
 * styles), so that chain is followed. ODP: `draw:page` in order, notes from `presentation:notes`.
 */
import type { ParsedFile } from "@webdata/core/engine"
import { type ChildNode, type Document, type Element, isTag, isText } from "domhandler"
import { parseFailed } from "../Failures.js"
import { childrenNamed, escapeHtml, findAll, findFirst, parseXml, textOf } from "../Xml.js"
import { openZip, type ZipArchive } from "../Zip.js"
import { officeProperties } from "./OfficeProperties.js"
import { type TableCell, tableHtml } from "./Spreadsheet.js"

interface Slide {
  readonly title: string | undefined
  readonly body: string
  readonly notes: ReadonlyArray<string>
}

/** A paragraph of a shape: plain, or an item of a list at a depth. */
interface Block {
  readonly text: string
  readonly list?: { readonly level: number; readonly ordered: boolean }
}

const inlineHtml = (text: string) => escapeHtml(text).replace(/\n/g, "<br>")

/** A shape's paragraphs as HTML: runs of list items become (nested) lists, the rest paragraphs. */
const blocksHtml = (blocks: ReadonlyArray<Block>): string => {
  let html = ""
  const open: Array<{ level: number; tag: "ul" | "ol" }> = []
  const close = () => {
    html += `</li></${open.pop()!.tag}>`
  }
  for (const { text, list } of blocks) {
    if (list === undefined) {
      while (open.length > 0) close()
      html += `<p>${inlineHtml(text)}</p>`
      continue
    }
    const tag = list.ordered ? "ol" : "ul"
    while (open.length > 0 && open[open.length - 1]!.level > list.level) close()
    const top = open[open.length - 1]
    if (top !== undefined && top.level === list.level && top.tag !== tag) close()
    const same = open[open.length - 1]
    if (same !== undefined && same.level === list.level) html += `</li><li>${inlineHtml(text)}`
    else {
      // Deeper than the open list (or none open): a list inside the current item.
      html += `<${tag}><li>${inlineHtml(text)}`
      open.push({ level: list.level, tag })
    }
  }
  while (open.length > 0) close()
  return html
}

/** A slide's content: shapes' paragraphs, and tables as HTML. */
type Part = ReadonlyArray<Block> | string

/**
 * The slide's title and body. A slide made of text boxes has no title placeholder; a first shape of one short plain
 * line is then its title, as it reads.
 */
const titled = (title: string | undefined, parts: ReadonlyArray<Part>): { title: string | undefined; body: string } => {
  const first = parts[0]
  const line = typeof first === "object" && first.length === 1 ? first[0]! : undefined
  const untitled =
    title === undefined &&
    line !== undefined &&
    line.list === undefined &&
    line.text.length <= 100 &&
    !line.text.includes("\n")
  return {
    title: untitled ? line.text : title,
    body: (untitled ? parts.slice(1) : parts)
      .map((part) => (typeof part === "string" ? part : blocksHtml(part)))
      .join(""),
  }
}

/** Grid rows (`null`: a slot covered by a span) as a table; spans from the header row stay in it. */
const spannedTable = (grid: ReadonlyArray<ReadonlyArray<TableCell | null>>): string => {
  const rows = grid.map((row) => [...row])
  const header = rows[0] ?? []
  header.forEach((cell, column) => {
    if (cell === null || (cell.rowspan ?? 1) <= 1) return
    for (let r = 1; r < Math.min(cell.rowspan ?? 1, rows.length); r++)
      for (let c = column; c < column + (cell.colspan ?? 1); c++) if (rows[r]![c] === null) rows[r]![c] = { text: "" }
    header[column] = { text: cell.text, colspan: cell.colspan ?? 1 }
  })
  return tableHtml(rows.map((row) => row.filter((cell): cell is TableCell => cell !== null)))
}

const section = (slide: Slide, index: number) =>
  `<section><h2>${escapeHtml(slide.title ?? `Slide ${index + 1}`)}</h2>${slide.body}${
    slide.notes.length > 0
      ? `<h3>Notes</h3>${slide.notes.map((note) => `<p>${escapeHtml(note).replace(/\n/g, "<br>")}</p>`).join("")}`
      : ""
  }</section>`

const presentation = async (zip: ZipArchive, slides: ReadonlyArray<Slide>): Promise<ParsedFile> => {
  const { title, properties } = await officeProperties(zip)
  const deckTitle = title ?? slides[0]?.title
  return {
    pages: [slides.map(section).join("\n")],
    numPages: slides.length,
    ...(deckTitle !== undefined ? { title: deckTitle } : {}),
    properties,
  }
}

// PPTX

interface Relationship {
  readonly target: string
  readonly type: string
}

/** A part's relationships (id → target part), targets resolved against the part's folder. */
const relationships = async (zip: ZipArchive, part: string): Promise<Map<string, Relationship>> => {
  const folder = part.slice(0, part.lastIndexOf("/") + 1)
  const xml = await zip.text(`${folder}_rels/${part.slice(folder.length)}.rels`)
  const found = new Map<string, Relationship>()
  if (xml === undefined) return found
  for (const relation of findAll(parseXml(xml), "Relationship")) {
    const { Id: id, Target: target, Type: type, TargetMode: mode } = relation.attribs
    if (id === undefined || target === undefined || mode === "External") continue
    try {
      const path = decodeURIComponent(new URL(target, `file:///${folder}`).pathname.slice(1))
      found.set(id, { target: path, type: type ?? "" })
    } catch {
      // A target that is not a URI names no part.
    }
  }
  return found
}

const byType = (rels: Map<string, Relationship>, type: string) =>
  [...rels.values()].find((relation) => relation.type.endsWith(`/${type}`))?.target

/** Text of a DrawingML paragraph: runs, fields (dates, slide numbers), line breaks. */
const paragraphText = (paragraph: Element): string => {
  let text = ""
  for (const child of paragraph.children) {
    if (!isTag(child)) continue
    if (child.name === "a:r" || child.name === "a:fld") text += findAll(child, "a:t").map(textOf).join("")
    else if (child.name === "a:br") text += "\n"
  }
  return text.trim()
}

const isName =
  (name: string) =>
  (node: ChildNode): node is Element =>
    isTag(node) && node.name === name

const placeholderOf = (shape: Element) => findFirst(shape, "p:nvPr")?.children.find(isName("p:ph"))

/** Explicit bullet settings of a paragraph-properties element: true, false (`a:buNone`), or undefined (inherit). */
const bulletSetting = (properties: Element | undefined): boolean | undefined => {
  if (properties === undefined) return undefined
  for (const child of properties.children) {
    if (!isTag(child)) continue
    if (child.name === "a:buNone") return false
    if (child.name === "a:buChar" || child.name === "a:buAutoNum" || child.name === "a:buBlip") return true
  }
  return undefined
}

const numbered = (properties: Element | undefined) => properties?.children.some(isName("a:buAutoNum")) === true

/** The level's properties in a list style (`a:lstStyle`, `p:bodyStyle`, ...): `a:lvl1pPr` for level 0. */
const levelProperties = (style: Element | undefined, level: number) =>
  style?.children.find(isName(`a:lvl${level + 1}pPr`))

interface Template {
  /** Placeholder shapes by `idx` and by `type`. */
  readonly byIndex: Map<string, Element>
  readonly byType: Map<string, Element>
  readonly root: Document
}

const template = (xml: string): Template => {
  const root = parseXml(xml)
  const byIndex = new Map<string, Element>()
  const byKind = new Map<string, Element>()
  for (const shape of findAll(root, "p:sp")) {
    const placeholder = placeholderOf(shape)
    if (placeholder === undefined) continue
    if (placeholder.attribs.idx !== undefined) byIndex.set(placeholder.attribs.idx, shape)
    byKind.set(placeholder.attribs.type ?? "obj", shape)
  }
  return { byIndex, byType: byKind, root }
}

/** Where a slide's paragraphs inherit from: its layout and the layout's master. */
interface Inheritance {
  readonly layout: Template | undefined
  readonly master: Template | undefined
}

const TITLES = new Set(["title", "ctrTitle"])
/** Placeholders the master's `p:bodyStyle` formats (bulleted in the default master); others use `p:otherStyle`. */
const BODIES = new Set(["body", "obj", "subTitle"])

/** Whether a paragraph of `shape` at `level` is a bullet, after the inheritance chain. */
const isBullet = (shape: Element, paragraph: Element, level: number, inheritance: Inheritance): boolean => {
  const placeholder = placeholderOf(shape)
  const fromParagraph = bulletSetting(findFirst(paragraph, "a:pPr"))
  if (fromParagraph !== undefined) return fromParagraph
  const ownStyle = findFirst(shape, "a:lstStyle")
  const fromShape = bulletSetting(levelProperties(ownStyle, level))
  if (fromShape !== undefined) return fromShape
  // A plain text box formats its text by `p:otherStyle`, which has no bullets in the masters applications write.
  if (placeholder === undefined) return level > 0
  const type = placeholder.attribs.type ?? "obj"
  const index = placeholder.attribs.idx
  const kind = type === "obj" ? "body" : type
  for (const source of [inheritance.layout, inheritance.master]) {
    if (source === undefined) continue
    const match =
      (index !== undefined && source === inheritance.layout ? source.byIndex.get(index) : undefined) ??
      source.byType.get(type) ??
      source.byType.get(kind)
    const inherited = bulletSetting(levelProperties(match && findFirst(match, "a:lstStyle"), level))
    if (inherited !== undefined) return inherited
  }
  if (TITLES.has(type)) return false
  const styles = inheritance.master && findFirst(inheritance.master.root, "p:txStyles")
  const fromMaster = bulletSetting(
    levelProperties(styles && findFirst(styles, BODIES.has(kind) ? "p:bodyStyle" : "p:otherStyle"), level),
  )
  // Without a master to ask, content placeholders are bulleted as in PowerPoint's default master; subtitles are not.
  return fromMaster ?? (type === "obj" || type === "body")
}

const textBody = (shape: Element, inheritance: Inheritance): Array<Block> => {
  const body = shape.children.find(isName("p:txBody"))
  if (body === undefined) return []
  const blocks: Array<Block> = []
  for (const paragraph of childrenNamed(body, "a:p")) {
    const text = paragraphText(paragraph)
    if (text === "") continue
    const properties = findFirst(paragraph, "a:pPr")
    const level = Math.min(8, Math.max(0, Number.parseInt(properties?.attribs.lvl ?? "0", 10) || 0))
    blocks.push(
      isBullet(shape, paragraph, level, inheritance)
        ? { text, list: { level, ordered: numbered(properties) } }
        : { text },
    )
  }
  return blocks
}

/** A DrawingML table: `gridSpan`/`rowSpan` start a span, `hMerge`/`vMerge` mark the slots it covers. */
const drawingTable = (table: Element): string =>
  spannedTable(
    childrenNamed(table, "a:tr").map((row) =>
      childrenNamed(row, "a:tc").map((cell) => {
        if (cell.attribs.hMerge === "1" || cell.attribs.vMerge === "1") return null
        const body = cell.children.find(isName("a:txBody"))
        const text = body === undefined ? "" : childrenNamed(body, "a:p").map(paragraphText).join("\n").trim()
        return {
          text,
          colspan: Math.max(1, Number.parseInt(cell.attribs.gridSpan ?? "1", 10) || 1),
          rowspan: Math.max(1, Number.parseInt(cell.attribs.rowSpan ?? "1", 10) || 1),
        }
      }),
    ),
  )

/** A slide's title, and its other shapes in document order (the order they were placed, back to front). */
const pptxSlide = (xml: string, inheritance: Inheritance): { title: string | undefined; body: string } => {
  let title: string | undefined
  const parts: Array<Part> = []
  const walk = (nodes: ReadonlyArray<ChildNode>) => {
    for (const node of nodes) {
      if (!isTag(node)) continue
      if (node.name === "p:sp") {
        const type = placeholderOf(node)?.attribs.type
        if (title === undefined && type !== undefined && TITLES.has(type)) {
          const body = node.children.find(isName("p:txBody"))
          title = body && (childrenNamed(body, "a:p").map(paragraphText).join(" ").trim() || undefined)
          if (title !== undefined) continue
        }
        // Each shape is a part of its own: one shape's bullets do not continue another's list.
        const blocks = textBody(node, inheritance)
        if (blocks.length > 0) parts.push(blocks)
      } else if (node.name === "p:graphicFrame") {
        const table = findFirst(node, "a:tbl")
        if (table !== undefined) parts.push(drawingTable(table))
      } else if (node.name === "p:grpSp") walk(node.children)
      else if (node.name === "mc:AlternateContent") {
        // Markup for newer applications with a fallback for older ones: read one of them, never both.
        const choice = node.children.find(isName("mc:Choice"))
        const before = parts.length
        if (choice !== undefined) walk(choice.children)
        const fallback = node.children.find(isName("mc:Fallback"))
        if (parts.length === before && fallback !== undefined) walk(fallback.children)
      }
    }
  }
  walk(findFirst(parseXml(xml), "p:spTree")?.children ?? [])
  return titled(title, parts)
}

/** Notes pages repeat the slide's image, number, header, footer and date; the rest of their text is the notes. */
const NOT_NOTES = new Set(["sldImg", "sldNum", "hdr", "ftr", "dt"])

const pptxNotes = (xml: string): Array<string> =>
  findAll(parseXml(xml), "p:sp")
    .filter((shape) => !NOT_NOTES.has(placeholderOf(shape)?.attribs.type ?? ""))
    .flatMap((shape) => {
      const body = shape.children.find(isName("p:txBody"))
      return body === undefined ? [] : childrenNamed(body, "a:p").map(paragraphText)
    })
    .filter((text) => text !== "")

export const parsePptx = async (bytes: Uint8Array): Promise<ParsedFile> => {
  const zip = await openZip(bytes)
  const main = "ppt/presentation.xml"
  const xml = await zip.text(main)
  if (xml === undefined) throw parseFailed("The presentation is damaged: it has no ppt/presentation.xml.")
  const rels = await relationships(zip, main)
  const templates = new Map<string, Template | undefined>()
  const templateOf = async (part: string | undefined) => {
    if (part === undefined) return undefined
    if (!templates.has(part)) {
      const text = await zip.text(part)
      templates.set(part, text === undefined ? undefined : template(text))
    }
    return templates.get(part)
  }
  const slides: Array<Slide> = []
  for (const id of findAll(parseXml(xml), "p:sldId")) {
    const part = rels.get(id.attribs["r:id"] ?? "")?.target
    const slideXml = part === undefined ? undefined : await zip.text(part)
    if (part === undefined || slideXml === undefined) continue
    const slideRels = await relationships(zip, part)
    const layoutPart = byType(slideRels, "slideLayout")
    const masterPart =
      layoutPart === undefined ? undefined : byType(await relationships(zip, layoutPart), "slideMaster")
    const inheritance = { layout: await templateOf(layoutPart), master: await templateOf(masterPart) }
    const notesPart = byType(slideRels, "notesSlide")
    const notesXml = notesPart === undefined ? undefined : await zip.text(notesPart)
    slides.push({ ...pptxSlide(slideXml, inheritance), notes: notesXml === undefined ? [] : pptxNotes(notesXml) })
  }
  return presentation(zip, slides)
}

// ODP

/** Text of an ODF paragraph: spans, `text:s` (runs of spaces), tabs and line breaks. */
const odfText = (element: Element): string => {
  let text = ""
  const walk = (nodes: ReadonlyArray<ChildNode>) => {
    for (const node of nodes) {
      if (isText(node)) text += node.data
      else if (!isTag(node)) continue
      else if (node.name === "text:s") text += " ".repeat(Math.min(100, Number(node.attribs["text:c"] ?? "1") || 1))
      else if (node.name === "text:tab") text += "\t"
      else if (node.name === "text:line-break") text += "\n"
      // Annotations (comments) are not the slide's text.
      else if (node.name !== "office:annotation") walk(node.children)
    }
  }
  walk(element.children)
  return text.trim()
}

/** Paragraphs and lists of an ODF text container (text box, shape, notes), lists nested by depth. */
const odfBlocks = (container: Element, level = -1): Array<Block> =>
  container.children.filter(isTag).flatMap((child): Array<Block> => {
    if (child.name === "text:p" || child.name === "text:h") {
      const text = odfText(child)
      if (text === "") return []
      return [level >= 0 ? { text, list: { level, ordered: false } } : { text }]
    }
    if (child.name === "text:list") return odfBlocks(child, level + 1)
    if (child.name === "text:list-item" || child.name === "text:list-header") return odfBlocks(child, level)
    return []
  })

const span = (value: string | undefined) => Math.max(1, Number.parseInt(value ?? "1", 10) || 1)

const odfTable = (table: Element): string =>
  spannedTable(
    findAll(table, "table:table-row").map((row) =>
      row.children.filter(isTag).flatMap((cell): Array<TableCell | null> => {
        if (cell.name === "table:covered-table-cell") return [null]
        if (cell.name !== "table:table-cell") return []
        return [
          {
            text: childrenNamed(cell, "text:p").map(odfText).join("\n").trim(),
            colspan: span(cell.attribs["table:number-columns-spanned"]),
            rowspan: span(cell.attribs["table:number-rows-spanned"]),
          },
        ]
      }),
    ),
  )

/** Shapes that hold text directly (`text:p` inside them), besides frames. */
const TEXT_SHAPES = new Set([
  "draw:custom-shape",
  "draw:rect",
  "draw:ellipse",
  "draw:circle",
  "draw:polygon",
  "draw:path",
  "draw:caption",
])

const odpSlide = (page: Element): Slide => {
  let title: string | undefined
  const parts: Array<Part> = []
  const text = (blocks: ReadonlyArray<Block>) => {
    if (blocks.length > 0) parts.push(blocks)
  }
  const walk = (nodes: ReadonlyArray<ChildNode>) => {
    for (const node of nodes) {
      if (!isTag(node)) continue
      if (node.name === "draw:frame") {
        const box = node.children.find(isName("draw:text-box"))
        const table = node.children.find(isName("table:table"))
        if (box !== undefined && node.attribs["presentation:class"] === "title" && title === undefined) {
          title = odfText(box).replace(/\s+/g, " ") || undefined
          if (title !== undefined) continue
        }
        if (box !== undefined) text(odfBlocks(box))
        else if (table !== undefined) parts.push(odfTable(table))
      } else if (node.name === "draw:g") walk(node.children)
      else if (TEXT_SHAPES.has(node.name)) text(odfBlocks(node))
    }
  }
  walk(page.children)
  const notes = page.children.find(isName("presentation:notes"))
  // Notes pages also hold the slide's thumbnail; their text boxes are the notes.
  const notesText =
    notes === undefined
      ? []
      : findAll(notes, "draw:text-box")
          .flatMap((box) => [...findAll(box, "text:p"), ...findAll(box, "text:h")])
          .map(odfText)
          .filter((text) => text !== "")
  return { ...titled(title, parts), notes: notesText }
}

export const parseOdp = async (bytes: Uint8Array): Promise<ParsedFile> => {
  const zip = await openZip(bytes)
  const content = await zip.text("content.xml")
  if (content === undefined) throw parseFailed("The presentation is damaged: it has no content.xml.")
  const slides = findAll(parseXml(content), "draw:page").map(odpSlide)
  return presentation(zip, slides)
}
