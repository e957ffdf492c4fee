/**
 * EPUB: `META-INF/container.xml` names the package document (OPF), whose spine orders the chapters; each chapter's
 * XHTML body joins the book's HTML in that order. Links between the book's own files have no meaning outside it
 * and become text, as do images (their alt text); the pipeline drops scripts and styles as on any page.
 */
import type { ParsedFile } from "@webdata/core/engine"
import { parseFailed } from "../Failures.js"
import { findAll, findFirst, parseXml, textOf } from "../Xml.js"
import { openZip } from "../Zip.js"
import { imagesAsAltText } from "./Images.js"

const bodyOf = (xhtml: string) => /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(xhtml)?.[1] ?? xhtml

/** `<a href="chapter2.xhtml#x">` (inside the book) → its text; outside links stay. */
const withoutInnerLinks = (html: string) =>
  html.replace(/<a\b([^>]*)>([\s\S]*?)<\/a>/gi, (whole, attributes: string, text: string) =>
    /href\s*=\s*["']\s*(https?:|mailto:)/i.test(attributes) ? whole : text,
  )

export const parseEpub = async (bytes: Uint8Array): Promise<ParsedFile> => {
  const zip = await openZip(bytes)
  const container = await zip.text("META-INF/container.xml")
  const opfPath = container === undefined ? undefined : findFirst(parseXml(container), "rootfile")?.attribs["full-path"]
  const opfXml = opfPath === undefined ? undefined : await zip.text(opfPath)
  if (opfPath === undefined || opfXml === undefined) throw parseFailed("The EPUB file has no package document.")
  const opf = parseXml(opfXml)
  const folder = opfPath.slice(0, opfPath.lastIndexOf("/") + 1)
  const manifest = new Map(
    findAll(opf, "item").map((item) => [
      item.attribs.id ?? "",
      new URL(item.attribs.href ?? "", `file:///${folder}`).pathname.slice(1),
    ]),
  )
  const chapters: Array<string> = []
  for (const reference of findAll(opf, "itemref")) {
    const path = manifest.get(reference.attribs.idref ?? "")
    const xhtml = path === undefined ? undefined : await zip.text(decodeURIComponent(path))
    if (xhtml !== undefined) chapters.push(`<section>${imagesAsAltText(withoutInnerLinks(bodyOf(xhtml)))}</section>`)
  }
  if (chapters.length === 0) throw parseFailed("The EPUB file's spine names no readable chapter.")
  const meta = (name: string) => {
    const element = findFirst(opf, name)
    const text = element === undefined ? "" : textOf(element).trim()
    return text === "" ? undefined : text
  }
  const title = meta("dc:title")
  const properties: Record<string, string> = {}
  for (const [key, name] of [
    ["author", "dc:creator"],
    ["language", "dc:language"],
    ["subject", "dc:subject"],
  ] as const) {
    const value = meta(name)
    if (value !== undefined) properties[key] = value
  }
  return { pages: [chapters.join("\n")], ...(title !== undefined ? { title } : {}), properties }
}
