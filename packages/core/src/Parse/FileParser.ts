/**
 * The file parsers' port: a file's bytes in, its content as HTML out (page by page where the format has pages), for
 * the same content pipeline as web pages. Core names what a parser is; `@webdata/parse` provides the layer (PDF,
 * Office, OpenDocument, EPUB, RTF, CSV), run on threads with a time limit per file.
 */
import { Context, type Effect } from "effect"
import type { ScrapeError } from "../Errors.js"
import type { FileKind } from "./FileKind.js"

export interface PdfSettings {
  /** `fast`: the text layer only; `auto`: OCR for pages without text; `ocr`: OCR on every page. */
  readonly mode: "fast" | "auto" | "ocr"
  /** Pages after this one are not read. */
  readonly maxPages?: number | undefined
}

export interface FileInput {
  readonly bytes: Uint8Array
  /** What `sniffFile` found. */
  readonly kind: FileKind
  /** For messages: the URL or the uploaded file's name. */
  readonly name: string
  readonly pdf: PdfSettings
  /** The most the parse may take; the file fails with `SCRAPE_TIMEOUT` after it. */
  readonly timeoutMs: number
}

export interface ParsedFile {
  /** The file's content as HTML, one entry per page for paged formats (PDF), else one. */
  readonly pages: ReadonlyArray<string>
  readonly title?: string | undefined
  /** Pages read (PDF: at most `maxPages`; slides in a presentation). */
  readonly numPages?: number | undefined
  /** Pages in the file, when more than were read. */
  readonly totalPages?: number | undefined
  /** Other properties read from the file (author, subject, keywords, created, modified, language). */
  readonly properties?: Readonly<Record<string, string>> | undefined
  /** Pages read by OCR (PDF). */
  readonly ocrPages?: ReadonlyArray<number> | undefined
}

export class FileParser extends Context.Tag("@webdata/core/FileParser")<
  FileParser,
  {
    /** Fails with `UnsupportedContent` (a kind it has no parser for), `ParseFailed` (corrupt, encrypted, too large
     * once unpacked) or `Timeout`. */
    readonly parse: (file: FileInput) => Effect.Effect<ParsedFile, ScrapeError>
    /** The kinds it parses. */
    readonly kinds: ReadonlySet<FileKind>
  }
>() {}
