/**
 * PDF with unpdf (pdf.js): each page's text items laid out as lines (`pdf/Lines.ts`), running headers and footers
 * removed, then headings, lists, tables and paragraphs (`pdf/Blocks.ts`). Pages without a text layer (`auto`), or
 * every page (`ocr`), are read by OCR (`Ocr.ts`). `maxPages` bounds the pages read.
 */
import type { ParsedFile, PdfSettings } from "@webdata/core/engine"
import { getDocumentProxy } from "unpdf"
import { parseFailed } from "../Failures.js"
import { ocrPage } from "./Ocr.js"
import { blocksHtml } from "./pdf/Blocks.js"
import { type Line, type LinkArea, readingOrder, type TextItem } from "./pdf/Lines.js"
import { withoutRunningText } from "./pdf/RunningText.js"
import { typographyOf } from "./pdf/Typography.js"

type Document = Awaited<ReturnType<typeof getDocumentProxy>>

/** Fewer characters than this on a page means it has no real text layer (a scan with a page number, say). */
const MIN_TEXT_CHARS = 20

/** Producers' placeholder titles. */
const PLACEHOLDER_TITLE = /^(about:blank|untitled|microsoft word - .*|document\d*)$/i

/** A whole PDF ends with `%%EOF` (give or take a line end or trailing junk); a download cut short does not. */
const isTruncated = (bytes: Uint8Array) => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  return buffer.subarray(0, 1024).includes("%PDF-") && !buffer.subarray(-1024).includes("%%EOF")
}

/** Why a PDF cannot be read, saying so when it is cut short: the commonest damage, from an interrupted download. */
const damaged = (bytes: Uint8Array, error: unknown) =>
  parseFailed(
    isTruncated(bytes)
      ? `The PDF is truncated (it stops before its end-of-file marker) and no page of it could be read: ${(error as Error).message}`
      : `The PDF is damaged or not a PDF: ${(error as Error).message}`,
  )

const open = async (bytes: Uint8Array): Promise<Document> => {
  try {
    // pdf.js takes the buffer it is given (it is detached): a copy leaves the caller its bytes.
    return await getDocumentProxy(bytes.slice(), { isEvalSupported: false, useSystemFonts: false, verbosity: 0 })
  } catch (error) {
    const name = (error as { name?: string }).name
    if (name === "PasswordException") throw parseFailed("The PDF is encrypted with a password; it cannot be read.")
    throw damaged(bytes, error)
  }
}

/** pdf.js dates look like `D:20240105120000+01'00'`. */
const isoDate = (value: unknown): string | undefined => {
  const match = typeof value === "string" ? /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(value) : null
  if (match === null) return undefined
  const [, year, month = "01", day = "01", hour = "00", minute = "00", second = "00"] = match
  return `${year}-${month}-${day}T${hour}:${minute}:${second}Z`
}

const propertiesOf = (info: Record<string, unknown>) => {
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)
  const entries: Array<[string, string | undefined]> = [
    ["author", text(info.Author)],
    ["subject", text(info.Subject)],
    ["keywords", text(info.Keywords)],
    ["producer", text(info.Producer)],
    ["created", isoDate(info.CreationDate)],
    ["modified", isoDate(info.ModDate)],
  ]
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined))
}

interface PageText {
  readonly items: Array<TextItem>
  readonly links: Array<LinkArea>
  readonly width: number
  readonly height: number
}

const readPage = async (document: Document, pageNumber: number): Promise<PageText> => {
  const page = await document.getPage(pageNumber)
  try {
    const [content, annotations] = await Promise.all([page.getTextContent(), page.getAnnotations()])
    const items: Array<TextItem> = []
    for (const item of content.items)
      if ("str" in item && item.str !== "") {
        const [a, b, , d, x, y] = item.transform as Array<number>
        items.push({
          text: item.str,
          x: x!,
          y: y!,
          width: item.width,
          size: Math.abs(d!) || Math.hypot(a!, b!),
          font: item.fontName,
        })
      }
    const links: Array<LinkArea> = []
    for (const annotation of annotations as Array<{ subtype?: string; url?: string; rect?: Array<number> }>)
      if (annotation.subtype === "Link" && typeof annotation.url === "string" && annotation.rect?.length === 4)
        links.push({ url: annotation.url, rect: annotation.rect as unknown as LinkArea["rect"] })
    const [, , width, height] = page.view
    return { items, links, width: width ?? 612, height: height ?? 792 }
  } finally {
    page.cleanup()
  }
}

export const parsePdf = async (bytes: Uint8Array, settings: PdfSettings): Promise<ParsedFile> => {
  const document = await open(bytes)
  try {
    const totalPages = document.numPages
    const count = Math.min(totalPages, settings.maxPages ?? totalPages)
    const texts: Array<PageText> = []
    for (let pageNumber = 1; pageNumber <= count; pageNumber++) {
      try {
        texts.push(await readPage(document, pageNumber))
      } catch (error) {
        // A damaged page ends the reading; the pages before it are kept.
        if (texts.length === 0) throw damaged(bytes, error)
        break
      }
    }
    const lines = texts.map((text) => readingOrder(text.items, text.links, text.width))
    const cleaned = withoutRunningText(lines, texts[0]?.height ?? 792)
    const typography = typographyOf(cleaned)
    const ocrPages: Array<number> = []
    const pages: Array<string> = []
    for (const [index, pageLines] of cleaned.entries()) {
      const chars = pageLines.reduce((sum, line) => sum + line.text.trim().length, 0)
      if (settings.mode === "ocr" || (settings.mode === "auto" && chars < MIN_TEXT_CHARS)) {
        const recognized = await ocrPage(document, index + 1)
        if (recognized.trim() !== "" || settings.mode === "ocr") {
          ocrPages.push(index + 1)
          pages.push(recognized)
          continue
        }
      }
      pages.push(blocksHtml(pageLines as Array<Line>, typography))
    }
    const info = ((await document.getMetadata().catch(() => undefined))?.info ?? {}) as Record<string, unknown>
    const declared = typeof info.Title === "string" ? info.Title.trim() : ""
    const firstHeading = /<h1>(.*?)<\/h1>/.exec(pages.join("\n"))?.[1]?.replace(/<[^>]+>/g, "")
    const title = declared !== "" && !PLACEHOLDER_TITLE.test(declared) ? declared : firstHeading
    return {
      pages,
      numPages: pages.length,
      ...(pages.length < totalPages ? { totalPages } : {}),
      ...(title !== undefined ? { title } : {}),
      properties: propertiesOf(info),
      ...(ocrPages.length > 0 ? { ocrPages } : {}),
    }
  } finally {
    await document.destroy()
  }
}
