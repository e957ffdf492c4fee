/** A document's title and properties from Office Open XML (`docProps/core.xml`) or OpenDocument (`meta.xml`). */
import { findFirst, parseXml, textOf } from "../Xml.js"
import type { ZipArchive } from "../Zip.js"

export interface OfficeProperties {
  readonly title?: string
  readonly properties: Record<string, string>
}

const FIELDS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["author", ["dc:creator", "meta:initial-creator"]],
  ["subject", ["dc:subject"]],
  ["keywords", ["cp:keywords", "meta:keyword"]],
  ["language", ["dc:language"]],
  ["created", ["dcterms:created", "meta:creation-date"]],
  ["modified", ["dcterms:modified", "dc:date"]],
]

export const officeProperties = async (zip: ZipArchive): Promise<OfficeProperties> => {
  const xml = (await zip.text("docProps/core.xml")) ?? (await zip.text("meta.xml"))
  if (xml === undefined) return { properties: {} }
  const document = parseXml(xml)
  const read = (names: ReadonlyArray<string>) =>
    names
      .map((name) => findFirst(document, name))
      .map((element) => (element === undefined ? "" : textOf(element).trim()))
      .find((value) => value !== "")
  const properties: Record<string, string> = {}
  for (const [key, names] of FIELDS) {
    const value = read(names)
    if (value !== undefined) properties[key] = value
  }
  const title = read(["dc:title"])
  return { ...(title !== undefined ? { title } : {}), properties }
}
