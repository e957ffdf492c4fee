/**
 * RTF, read by a small tokenizer of our own: no maintained RTF reader exists on npm (the packages there are
 * unmaintained for years or browser renderers). One linear pass over groups and control words: paragraphs
 * (`\par`), headings (`\outlinelevelN`), list items (`\listtext` markers, `\ilvl` levels), tables (`\trowd` … `\cell`
 * … `\row`), bold and italic, hyperlink fields, `\'hh` in the document's code page and `\uN` characters. Destinations
 * that hold no text (font and colour tables, pictures, headers, footers) are skipped; `\info` gives the title.
 */
import type { ParsedFile } from "@webdata/core/engine"
import { parseFailed } from "../Failures.js"
import { escapeHtml } from "../Xml.js"

const MAX_DEPTH = 512

const SKIPPED = new Set([
  "fonttbl",
  "colortbl",
  "pict",
  "header",
  "headerl",
  "headerr",
  "headerf",
  "footer",
  "footerl",
  "footerr",
  "footerf",
  "listtable",
  "listoverridetable",
  "revtbl",
  "rsidtbl",
  "generator",
  "themedata",
  "colorschememapping",
  "latentstyles",
  "datastore",
  "xmlnstbl",
  "object",
  "nonshppict",
  "footnote",
  "pgdsctbl",
  "info",
  "mmathPr",
  "fldinst",
  "listtext",
  "pntext",
  "pntxta",
  "pntxtb",
  "bkmkstart",
  "bkmkend",
])

interface Group {
  skip: boolean
  bold: boolean
  italic: boolean
  uc: number
  /** What this group's text goes to instead of the paragraph (`\title`, `\fldinst`, `\listtext`). */
  capture?: "title" | "author" | "field" | "marker" | "style" | undefined
  /** The hyperlink of a field result. */
  href?: string | undefined
}

interface Paragraph {
  html: string
  level: number | undefined
  marker: string | undefined
  listLevel: number
  inTable: boolean
}

const newParagraph = (): Paragraph => ({ html: "", level: undefined, marker: undefined, listLevel: 0, inTable: false })

export const parseRtf = async (bytes: Uint8Array): Promise<ParsedFile> => {
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1")
  if (!source.startsWith("{\\rtf")) throw parseFailed("Not an RTF file: it does not start with {\\rtf.")
  let decoder = new TextDecoder("windows-1252")
  const stack: Array<Group> = []
  let group: Group = { skip: false, bold: false, italic: false, uc: 1 }
  const captured = { title: "", author: "", field: "", marker: "", style: "" }
  /** Heading levels of paragraph styles (`\sN`), from the stylesheet's outline levels and "Heading N" names. */
  const headingStyles = new Map<number, number>()
  let style: { number: number; level: number | undefined } | undefined
  const out: Array<string> = []
  let paragraph = newParagraph()
  let pendingBytes: Array<number> = []
  let skipChars = 0
  let row: Array<string> = []
  let rows: Array<Array<string>> = []
  let cell = ""
  const list: Array<{ tag: "ul" | "ol"; items: Array<string> }> = []
  let open = { bold: false, italic: false, href: undefined as string | undefined }

  const closeInline = () => {
    let html = ""
    if (open.italic) html += "</em>"
    if (open.bold) html += "</strong>"
    if (open.href !== undefined) html += "</a>"
    open = { bold: false, italic: false, href: undefined }
    return html
  }
  const emit = (text: string) => {
    if (group.skip) return
    if (group.capture !== undefined) {
      captured[group.capture] += text
      return
    }
    let html = ""
    if (open.href !== group.href || open.bold !== group.bold || open.italic !== group.italic) {
      html += closeInline()
      if (group.href !== undefined) html += `<a href="${escapeHtml(group.href)}">`
      if (group.bold) html += "<strong>"
      if (group.italic) html += "<em>"
      open = { bold: group.bold, italic: group.italic, href: group.href }
    }
    paragraph.html += html + escapeHtml(text)
  }
  const flushBytes = () => {
    if (pendingBytes.length > 0) emit(decoder.decode(new Uint8Array(pendingBytes)))
    pendingBytes = []
  }
  const flushList = () => {
    // Levels deeper than the first close into the item before them.
    while (list.length > 0) {
      const level = list.pop()!
      const html = `<${level.tag}>${level.items.join("")}</${level.tag}>`
      const parent = list[list.length - 1]
      if (parent === undefined) out.push(html)
      else if (parent.items.length > 0)
        parent.items[parent.items.length - 1] = parent.items[parent.items.length - 1]!.replace(
          /<\/li>$/,
          `${html}</li>`,
        )
      else parent.items.push(`<li>${html}</li>`)
    }
  }
  const flushTable = () => {
    if (rows.length === 0) return
    // A first row set in bold is the table's header.
    const bold = (text: string) => /^<strong>[\s\S]*<\/strong>$/.test(text) && !text.slice(8).includes("<strong>")
    const [first, ...rest] = rows
    const header = first!.every(bold)
      ? `<thead><tr>${first!.map((text) => `<th>${text.slice(8, -9)}</th>`).join("")}</tr></thead>`
      : `<tr>${first!.map((text) => `<td>${text}</td>`).join("")}</tr>`
    out.push(
      `<table>${header}${rest.map((cells) => `<tr>${cells.map((text) => `<td>${text}</td>`).join("")}</tr>`).join("")}</table>`,
    )
    rows = []
  }
  const endParagraph = () => {
    flushBytes()
    const html = (paragraph.html + closeInline()).trim()
    const current = paragraph
    paragraph = newParagraph()
    paragraph.inTable = current.inTable
    if (current.inTable) {
      flushList()
      cell += cell === "" ? html : ` ${html}`
      return
    }
    flushTable()
    if (current.marker !== undefined && html !== "") {
      const tag = /\d|^[a-z][.)]/i.test(current.marker) ? "ol" : "ul"
      while (list.length > current.listLevel + 1) flushLevel()
      // Another kind of list at the same level is another list.
      if (list.length === current.listLevel + 1 && list[list.length - 1]!.tag !== tag) {
        if (list.length === 1) flushList()
        else flushLevel()
      }
      while (list.length < current.listLevel + 1) list.push({ tag, items: [] })
      list[list.length - 1]!.items.push(`<li>${html}</li>`)
      return
    }
    flushList()
    if (html === "") return
    // Headings carry their style's bold; the heading says it already.
    if (current.level !== undefined)
      out.push(`<h${current.level + 1}>${html.replace(/<\/?strong>/g, "")}</h${current.level + 1}>`)
    else out.push(`<p>${html}</p>`)
  }
  const flushLevel = () => {
    const level = list.pop()!
    const html = `<${level.tag}>${level.items.join("")}</${level.tag}>`
    const parent = list[list.length - 1]!
    parent.items[parent.items.length - 1] = (parent.items[parent.items.length - 1] ?? "<li></li>").replace(
      /<\/li>$/,
      `${html}</li>`,
    )
  }

  let index = 0
  while (index < source.length) {
    const char = source[index]!
    if (char === "{") {
      flushBytes()
      if (stack.length >= MAX_DEPTH) throw parseFailed(`The RTF file nests groups deeper than ${MAX_DEPTH}.`)
      stack.push(group)
      group = { ...group, capture: group.capture }
      if (group.capture === "style" && style === undefined) {
        style = { number: 0, level: undefined }
        captured.style = ""
      }
      index++
    } else if (char === "}") {
      flushBytes()
      const ended = group
      group = stack.pop() ?? group
      if (ended.capture === "field" && group.capture !== "field") {
        const url = /HYPERLINK\s+"([^"]+)"/.exec(captured.field)?.[1]
        if (url !== undefined) group.href = url
        captured.field = ""
      }
      if (ended.capture === "style" && group.capture === "style" && style !== undefined) {
        const named = /heading\s*(\d)/i.exec(captured.style)?.[1]
        const level = style.level ?? (named !== undefined ? Number(named) - 1 : undefined)
        if (level !== undefined) headingStyles.set(style.number, level)
        style = undefined
      }
      if (ended.capture === "marker" && group.capture !== "marker") {
        paragraph.marker = captured.marker.trim()
        captured.marker = ""
      }
      index++
    } else if (char === "\\") {
      const next = source[index + 1] ?? ""
      if (next === "'") {
        const byte = Number.parseInt(source.slice(index + 2, index + 4), 16)
        index += 4
        if (skipChars > 0) skipChars--
        else if (!Number.isNaN(byte)) pendingBytes.push(byte)
        continue
      }
      flushBytes()
      if (!/[a-z]/i.test(next)) {
        // Control symbols: escaped characters, and a few with meanings.
        index += 2
        if (next === "*") group.skip = true
        else if (next === "~") emit("\u00a0")
        else if (next === "-" || next === "_") emit(next === "_" ? "-" : "")
        else if (next === "\n" || next === "\r") endParagraph()
        else if (skipChars > 0) skipChars--
        else emit(next)
        continue
      }
      const match = /^([a-z]{1,32})(-?\d{1,10})? ?/i.exec(source.slice(index + 1, index + 48))!
      index += 1 + match[0].length
      const word = match[1]!
      const parameter = match[2] === undefined ? undefined : Number(match[2])
      if (group.skip && !(word === "fldinst" || word === "title" || word === "author" || word === "listtext")) continue
      if (group.capture === "style") {
        if (style !== undefined && word === "s") style.number = parameter ?? 0
        if (style !== undefined && word === "outlinelevel") style.level = parameter
        // Character styles (`\*\csN`) are not paragraph styles.
        if (word === "cs" && style !== undefined) style.number = -1
        continue
      }
      // A list marker's own paragraph settings are not the paragraph's.
      if (group.capture === "marker" && word !== "u" && word !== "tab") continue
      switch (word) {
        case "ansicpg":
          try {
            decoder = new TextDecoder(`windows-${parameter}`)
          } catch {
            // An unknown code page: keep Windows-1252.
          }
          break
        case "par":
        case "sect":
        case "page":
          endParagraph()
          break
        case "line":
          emit("\n")
          paragraph.html += "<br>"
          break
        case "tab":
          emit(paragraph.marker === undefined && group.capture !== "marker" ? " " : "")
          break
        case "pard":
          paragraph.level = undefined
          paragraph.marker = undefined
          paragraph.listLevel = 0
          paragraph.inTable = false
          break
        case "intbl":
          paragraph.inTable = true
          break
        case "stylesheet":
          group.capture = "style"
          break
        case "s":
          paragraph.level = headingStyles.get(parameter ?? 0) ?? paragraph.level
          break
        case "outlinelevel":
          if (parameter !== undefined && parameter < 9) paragraph.level = Math.min(parameter, 5)
          break
        case "ilvl":
          paragraph.listLevel = Math.min(parameter ?? 0, 8)
          break
        case "b":
          group.bold = parameter !== 0
          break
        case "i":
          group.italic = parameter !== 0
          break
        case "plain":
          group.bold = false
          group.italic = false
          break
        case "uc":
          group.uc = parameter ?? 1
          break
        case "u": {
          const code = parameter ?? 0
          emit(String.fromCharCode(code < 0 ? code + 65536 : code))
          skipChars = group.uc
          break
        }
        case "emdash":
          emit("—")
          break
        case "endash":
          emit("–")
          break
        case "bullet":
          emit("•")
          break
        case "lquote":
        case "rquote":
          emit(word === "lquote" ? "‘" : "’")
          break
        case "ldblquote":
        case "rdblquote":
          emit(word === "ldblquote" ? "“" : "”")
          break
        case "cell":
          endParagraph()
          row.push(cell)
          cell = ""
          break
        case "row":
          if (cell !== "") row.push(cell)
          if (row.length > 0) rows.push(row)
          row = []
          cell = ""
          paragraph.inTable = false
          break
        case "title":
        case "author":
          group.skip = false
          group.capture = word
          break
        case "fldinst":
          group.skip = false
          group.capture = "field"
          break
        case "listtext":
        case "pntext":
          group.skip = false
          group.capture = "marker"
          break
        default:
          if (SKIPPED.has(word)) group.skip = true
      }
    } else if (char === "\r" || char === "\n") index++
    else {
      // Plain text up to the next special character.
      let end = index
      while (end < source.length && !"{}\\\r\n".includes(source[end]!)) end++
      let text = source.slice(index, end)
      if (skipChars > 0) {
        const skipped = Math.min(skipChars, text.length)
        text = text.slice(skipped)
        skipChars -= skipped
      }
      // Bytes above 127 in plain text are in the code page too.
      if (text !== "") emit(decoder.decode(Buffer.from(text, "latin1")))
      index = end
    }
  }
  endParagraph()
  flushTable()
  flushList()
  const title = captured.title.trim()
  const author = captured.author.trim()
  return {
    pages: [out.join("\n")],
    ...(title !== "" ? { title } : {}),
    properties: author !== "" ? { author } : {},
  }
}
