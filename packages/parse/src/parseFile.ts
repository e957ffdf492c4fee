/** One file to its parsed content, by the kind `sniffFile` found. Runs on a parse thread (`ParseWorker.ts`). */
import type { FileKind, ParsedFile, PdfSettings } from "@webdata/core/engine"
import { unsupported } from "./Failures.js"
import { parseDelimited } from "./formats/Delimited.js"
import { parseDocx } from "./formats/Docx.js"
import { parseEpub } from "./formats/Epub.js"
import { parseOdt } from "./formats/OpenDocumentText.js"
import { parsePdf } from "./formats/Pdf.js"
import { parseRtf } from "./formats/Rtf.js"
import { parseOdp, parsePptx } from "./formats/Slides.js"
import { parseSpreadsheet } from "./formats/Spreadsheet.js"

export interface ParseJob {
  readonly bytes: Uint8Array
  readonly kind: FileKind
  readonly pdf: PdfSettings
}

export const parseFile = (job: ParseJob): Promise<ParsedFile> => {
  switch (job.kind) {
    case "pdf":
      return parsePdf(job.bytes, job.pdf)
    case "docx":
      return parseDocx(job.bytes)
    case "xlsx":
    case "xls":
    case "ods":
      return parseSpreadsheet(job.bytes)
    case "pptx":
      return parsePptx(job.bytes)
    case "odp":
      return parseOdp(job.bytes)
    case "odt":
      return parseOdt(job.bytes)
    case "epub":
      return parseEpub(job.bytes)
    case "rtf":
      return parseRtf(job.bytes)
    case "csv":
    case "tsv":
      return parseDelimited(job.bytes, job.kind)
    default:
      return Promise.reject(unsupported(`${job.kind} files are not parsed.`))
  }
}
