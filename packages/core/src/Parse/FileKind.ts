/**
 * What a file is, by its bytes first (magic numbers, and inside a zip the parts it holds), then by its content type,
 * then by its file name's extension — never by the extension alone when the bytes say otherwise. A PNG named
 * `.pdf` is a PNG.
 */

export type FileKind =
  | "pdf"
  | "docx"
  | "xlsx"
  | "pptx"
  | "odt"
  | "ods"
  | "odp"
  | "epub"
  | "rtf"
  | "xls"
  | "doc"
  | "ppt"
  | "csv"
  | "tsv"
  | "html"
  | "text"
  | "image"
  | "zip"
  | "binary"

/** The kinds a parser turns into a document (the textual ones go through the HTML/text pipeline). */
export const PARSED_KINDS: ReadonlySet<FileKind> = new Set([
  "pdf",
  "docx",
  "xlsx",
  "pptx",
  "odt",
  "ods",
  "odp",
  "epub",
  "rtf",
  "xls",
  "csv",
  "tsv",
])

/** The content type a document of each kind reports when the file came without a usable one. */
export const CONTENT_TYPES: Record<FileKind, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  epub: "application/epub+zip",
  rtf: "application/rtf",
  xls: "application/vnd.ms-excel",
  doc: "application/msword",
  ppt: "application/vnd.ms-powerpoint",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  text: "text/plain",
  image: "application/octet-stream",
  zip: "application/zip",
  binary: "application/octet-stream",
}

const startsWith = (bytes: Uint8Array, ...signature: Array<number>) =>
  bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte)

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, Math.min(bytes.length, to) - from)).toString("latin1")

const contains = (bytes: Uint8Array, text: string, encoding: "latin1" | "utf16le" = "latin1") =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes(Buffer.from(text, encoding))

/** The entry names of a zip's central directory; undefined when it has none (a truncated file). */
const zipNames = (bytes: Uint8Array): Set<string> | undefined => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const end = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]), Math.max(0, buffer.length - 22))
  if (end < 0 || end < buffer.length - 22 - 65_535) return undefined
  const names = new Set<string>()
  let offset = buffer.readUInt32LE(end + 16)
  const count = buffer.readUInt16LE(end + 10)
  for (let entry = 0; entry < count && offset + 46 <= end; entry++) {
    if (buffer.readUInt32LE(offset) !== 0x02014b50) return undefined
    const nameLength = buffer.readUInt16LE(offset + 28)
    names.add(buffer.toString("utf8", offset + 46, offset + 46 + nameLength))
    offset += 46 + nameLength + buffer.readUInt16LE(offset + 30) + buffer.readUInt16LE(offset + 32)
  }
  return names
}

/** A zip's kind by its `mimetype` entry (OpenDocument, EPUB: stored first and uncompressed) or the parts it names. */
const zipKind = (bytes: Uint8Array): FileKind => {
  // The first local header's name starts at 30; an uncompressed `mimetype` entry's content follows its name.
  const name = ascii(bytes, 30, 38)
  if (name === "mimetype") {
    const mimetype = ascii(bytes, 38, 38 + 80)
    if (mimetype.startsWith("application/epub+zip")) return "epub"
    if (mimetype.startsWith("application/vnd.oasis.opendocument.text")) return "odt"
    if (mimetype.startsWith("application/vnd.oasis.opendocument.spreadsheet")) return "ods"
    if (mimetype.startsWith("application/vnd.oasis.opendocument.presentation")) return "odp"
  }
  // Office Open XML by its main part: an entry of the directory (a file embedded in another names its own parts
  // inside the embedded bytes, not in the directory), or, for a zip cut short, anywhere in the bytes.
  const names = zipNames(bytes)
  const has = (name: string) => (names !== undefined ? names.has(name) : contains(bytes, name))
  if (has("word/document.xml")) return "docx"
  if (has("ppt/presentation.xml")) return "pptx"
  if (has("xl/workbook.xml") || has("xl/workbook.bin")) return "xlsx"
  if (has("META-INF/container.xml")) return "epub"
  return "zip"
}

/** An OLE2 compound file (legacy Office) by the stream names in its directory (UTF-16). */
const compoundKind = (bytes: Uint8Array): FileKind => {
  if (contains(bytes, "WordDocument", "utf16le")) return "doc"
  if (contains(bytes, "Workbook", "utf16le") || contains(bytes, "Book", "utf16le")) return "xls"
  if (contains(bytes, "PowerPoint Document", "utf16le")) return "ppt"
  return "binary"
}

/**
 * Whether the first kilobyte holds a PDF header: `%PDF-` at the start of a line, after nothing but junk without markup
 * (a producer's leading bytes), not in text or HTML that writes about PDFs.
 */
const hasPdfHeader = (head: string): boolean => {
  const at = head.indexOf("%PDF-")
  const before = head.slice(0, at)
  return at >= 0 && (at === 0 || /[\r\n]$/.test(before)) && !before.includes("<")
}

/**
 * Whether the bytes open with a document format's signature (PDF, zip, OLE2 compound file, RTF), which outweighs a
 * text content type: a PDF served as `text/html` is a PDF. Only the first kilobyte is looked at, so an HTML page
 * costs nothing more.
 */
export const hasFileSignature = (bytes: Uint8Array): boolean =>
  hasPdfHeader(ascii(bytes, 0, 1024)) ||
  startsWith(bytes, 0x50, 0x4b, 0x03, 0x04) ||
  startsWith(bytes, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1) ||
  ascii(bytes, 0, 5) === "{\\rtf"

/** The kind the bytes prove, or undefined when they look like text (any text format). */
const sniffBytes = (bytes: Uint8Array): FileKind | undefined => {
  if (hasPdfHeader(ascii(bytes, 0, 1024))) return "pdf"
  if (startsWith(bytes, 0x50, 0x4b, 0x03, 0x04)) return zipKind(bytes)
  if (startsWith(bytes, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return compoundKind(bytes)
  if (ascii(bytes, 0, 5) === "{\\rtf") return "rtf"
  if (
    startsWith(bytes, 0x89, 0x50, 0x4e, 0x47) ||
    startsWith(bytes, 0xff, 0xd8, 0xff) ||
    ascii(bytes, 0, 4) === "GIF8" ||
    (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP")
  )
    return "image"
  // Text has no NUL bytes in its first kilobytes (UTF-16 text is not expected here).
  const head = bytes.subarray(0, 4096)
  return head.includes(0) ? "binary" : undefined
}

const TYPE_KINDS: ReadonlyArray<readonly [RegExp, FileKind]> = [
  [/text\/csv|application\/csv/i, "csv"],
  [/text\/tab-separated-values/i, "tsv"],
  [/text\/html|application\/xhtml\+xml/i, "html"],
]

const EXTENSION_KINDS: Record<string, FileKind> = {
  csv: "csv",
  tsv: "tsv",
  tab: "tsv",
  html: "html",
  htm: "html",
  xhtml: "html",
}

const extensionOf = (name: string | undefined) => /\.([a-z0-9]+)$/i.exec(name ?? "")?.[1]?.toLowerCase()

/** What a file is. `name` is its file name or URL path (only consulted for text). */
export const sniffFile = (bytes: Uint8Array, contentType?: string, name?: string): FileKind => {
  const proven = sniffBytes(bytes)
  if (proven !== undefined) return proven
  const byType = TYPE_KINDS.find(([pattern]) => pattern.test(contentType ?? ""))?.[1]
  if (byType !== undefined) return byType
  const byExtension = EXTENSION_KINDS[extensionOf(name) ?? ""]
  if (byExtension !== undefined) return byExtension
  return /^\s*</.test(ascii(bytes, 0, 512)) && /<html|<!doctype html/i.test(ascii(bytes, 0, 2048)) ? "html" : "text"
}
