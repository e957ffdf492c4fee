/**
 * Word documents (DOCX, DOCM) with mammoth: its HTML keeps headings (by paragraph style), lists, tables, links and
 * emphasis. Images become their alt text only (no image data in documents).
 */
import type { ParsedFile } from "@webdata/core/engine"
import mammoth from "mammoth"
import { parseFailed } from "../Failures.js"
import { openZip } from "../Zip.js"
import { imagesAsAltText } from "./Images.js"
import { officeProperties } from "./OfficeProperties.js"

export const parseDocx = async (bytes: Uint8Array): Promise<ParsedFile> => {
  // Every part through the zip guard first: mammoth would inflate a bomb whole.
  const zip = await openZip(bytes)
  for (const name of zip.names) await zip.read(name)
  if (!zip.names.includes("word/document.xml")) throw parseFailed("The DOCX file has no document part.")
  // Word never declares entities; mammoth's XML parser would fail on one with an obscure message (or expand it).
  if (Buffer.from((await zip.read("word/document.xml"))!).includes("<!ENTITY"))
    throw parseFailed(
      "The DOCX file's document part declares XML entities (as entity-expansion attacks do); it is not read.",
    )
  const properties = await officeProperties(zip)
  let html: string
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) },
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    )
    html = imagesAsAltText(result.value)
  } catch (error) {
    throw parseFailed(`The DOCX file is damaged: ${(error as Error).message}`)
  }
  return {
    pages: [html],
    ...(properties.title !== undefined ? { title: properties.title } : {}),
    properties: properties.properties,
  }
}
