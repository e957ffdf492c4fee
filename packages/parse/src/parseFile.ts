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

type Parser = (job: ParseJob) => Promise<ParsedFile>

/** The parser of each kind read (core's `PARSED_KINDS`). */
const PARSERS: Partial<Record<FileKind, Parser>> = {
  pdf: (job) => parsePdf(job.bytes, job.pdf),
  docx: (job) => parseDocx(job.bytes),
  xlsx: (job) => parseSpreadsheet(job.bytes),
  xls: (job) => parseSpreadsheet(job.bytes),
  ods: (job) => parseSpreadsheet(job.bytes),
  pptx: (job) => parsePptx(job.bytes),
  odp: (job) => parseOdp(job.bytes),
  odt: (job) => parseOdt(job.bytes),
  epub: (job) => parseEpub(job.bytes),
  rtf: (job) => parseRtf(job.bytes),
  csv: (job) => parseDelimited(job.bytes, "csv"),
  tsv: (job) => parseDelimited(job.bytes, "tsv"),
}

export const parseFile = (job: ParseJob): Promise<ParsedFile> =>
  PARSERS[job.kind]?.(job) ?? Promise.reject(unsupported(`${job.kind} files are not parsed.`))
