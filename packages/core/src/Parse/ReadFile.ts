/**
 * A response's or an upload's bytes as page content: HTML and text as they are (decoded), files the parsers read as
 * their HTML pages, a PDF with `parsers: []` as base64, anything else a clear 415. What a file is comes from its
 * bytes first (`sniffFile`), so a mislabelled file is read as what it is.
 */
import { Effect, type Option } from "effect"
import { decodeBody } from "../Content/Charset.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { ScrapeError } from "../Errors.js"
import type { FileContent } from "../Scrape/BuildDocument.js"
import { isTextual } from "../Scrape/ContentTypes.js"
import { parsesPdf, pdfSettingsOf } from "../Scrape/PdfOutput.js"
import { CONTENT_TYPES, type FileKind, hasFileSignature, sniffFile } from "./FileKind.js"
import type { FileParser } from "./FileParser.js"

export interface RawFile {
  readonly bytes: Uint8Array
  readonly contentType: string | undefined
  /** The URL it came from or the uploaded file's name: for messages, and its extension as a last hint. */
  readonly name: string
}

export interface FilePage {
  readonly contentType: string | undefined
  readonly body: string
  readonly file?: FileContent
}

const HTML_TYPE = /\b(text\/html|application\/xhtml\+xml)\b/i

/** Legacy binary Office files no parser reads, and the format that reads them once saved as it. */
const SAVE_AS: Partial<Record<FileKind, string>> = { doc: "DOCX", ppt: "PPTX" }

const describe = (kind: FileKind) =>
  kind === "image" ? "an image" : kind === "binary" || kind === "zip" ? "a binary file" : `a ${kind.toUpperCase()} file`

export const readFile = (
  raw: RawFile,
  options: Pick<ScrapeOptions, "parsers" | "timeout">,
  parser: Option.Option<FileParser["Type"]>,
): Effect.Effect<FilePage, ScrapeError> =>
  Effect.suspend(() => {
    // Web pages, the common case, skip sniffing unless their first bytes are a file format's signature.
    if (raw.contentType !== undefined && HTML_TYPE.test(raw.contentType) && !hasFileSignature(raw.bytes))
      return Effect.succeed({ contentType: raw.contentType, body: decodeBody(raw.bytes, raw.contentType) })
    const kind = sniffFile(raw.bytes, raw.contentType, URL.parse(raw.name)?.pathname ?? raw.name)
    // The file's own content type, unless it is missing, generic, or text for a binary format (a PDF as text/html).
    const contentType = (kind: FileKind) =>
      raw.contentType !== undefined &&
      raw.contentType !== "" &&
      !/octet-stream/i.test(raw.contentType) &&
      (isTextual(CONTENT_TYPES[kind]) || !isTextual(raw.contentType))
        ? raw.contentType
        : CONTENT_TYPES[kind]
    if (kind === "pdf" && !parsesPdf(options.parsers))
      return Effect.succeed({
        contentType: contentType(kind),
        body: Buffer.from(raw.bytes.buffer, raw.bytes.byteOffset, raw.bytes.length).toString("base64"),
        file: { kind, pages: [], base64: true },
      })
    if (parser._tag === "Some" && parser.value.kinds.has(kind))
      return Effect.map(
        parser.value.parse({
          bytes: raw.bytes,
          kind,
          name: raw.name,
          pdf: pdfSettingsOf(options.parsers),
          timeoutMs: options.timeout,
        }),
        (parsed): FilePage => ({
          contentType: contentType(kind),
          body: parsed.pages.join("\n"),
          file: { ...parsed, kind },
        }),
      )
    if (kind === "html" || kind === "text")
      return Effect.succeed({
        contentType:
          raw.contentType !== undefined && isTextual(raw.contentType) ? raw.contentType : CONTENT_TYPES[kind],
        body: decodeBody(raw.bytes, raw.contentType),
      })
    return Effect.fail(
      new ScrapeError({
        reason: "UnsupportedContent",
        url: raw.name,
        message:
          SAVE_AS[kind] !== undefined
            ? `${raw.name} is a legacy binary ${kind.toUpperCase()} file, which is not read: save it as ${SAVE_AS[kind]} and send that.`
            : parser._tag === "None" && kind !== "image" && kind !== "binary" && kind !== "zip"
              ? `${raw.name} is ${describe(kind)}; reading it needs the file parsers (install @webdata/parse).`
              : `${raw.name} is ${describe(kind)}${raw.contentType !== undefined ? ` (${raw.contentType})` : ""}, which cannot be turned into a document.`,
      }),
    )
  })
