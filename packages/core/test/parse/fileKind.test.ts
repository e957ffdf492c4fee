/** What a file is: its bytes decide, then its content type, then its name; never the name alone. */
import { deflateRawSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { hasFileSignature, sniffFile } from "../../src/Parse/FileKind.js"

/** A zip whose first entry is `first` (stored) and which names `others` in its directory. */
const zip = (first: { readonly name: string; readonly content: string }, others: ReadonlyArray<string> = []) => {
  const local = (name: string, content: Buffer, method: number) => {
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(method, 8)
    header.writeUInt32LE(content.length, 18)
    header.writeUInt16LE(name.length, 26)
    return Buffer.concat([header, Buffer.from(name), content])
  }
  return Buffer.concat([
    local(first.name, Buffer.from(first.content), 0),
    ...others.map((name) => local(name, deflateRawSync(Buffer.from("<x/>")), 8)),
  ])
}

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])

describe("sniffFile", () => {
  it("knows PDFs by their header, even after leading junk and whatever their name or type says", () => {
    expect(sniffFile(Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj"), "application/octet-stream", "x.bin")).toBe("pdf")
    expect(sniffFile(Buffer.from("\r\n\r\n%PDF-1.4\n"), "text/html", "page.html")).toBe("pdf")
  })

  it("tells OpenDocument and EPUB files by their mimetype entry, Office Open XML by the parts they hold", () => {
    const mimetype = (type: string) => zip({ name: "mimetype", content: type })
    expect(sniffFile(mimetype("application/vnd.oasis.opendocument.text"))).toBe("odt")
    expect(sniffFile(mimetype("application/vnd.oasis.opendocument.spreadsheet"))).toBe("ods")
    expect(sniffFile(mimetype("application/vnd.oasis.opendocument.presentation"))).toBe("odp")
    expect(sniffFile(mimetype("application/epub+zip"))).toBe("epub")
    const ooxml = (part: string) => zip({ name: "[Content_Types].xml", content: "<Types/>" }, [part])
    expect(sniffFile(ooxml("word/document.xml"), undefined, "report.xlsx")).toBe("docx")
    expect(sniffFile(ooxml("xl/workbook.xml"))).toBe("xlsx")
    expect(sniffFile(ooxml("ppt/presentation.xml"))).toBe("pptx")
    expect(sniffFile(zip({ name: "readme.txt", content: "hello" }), "application/pdf", "a.pdf")).toBe("zip")
  })

  it("tells legacy Office files by the streams their compound file names", () => {
    const compound = (stream: string) => Buffer.concat([OLE2, Buffer.alloc(504), Buffer.from(stream, "utf16le")])
    expect(sniffFile(compound("WordDocument"))).toBe("doc")
    expect(sniffFile(compound("Workbook"))).toBe("xls")
    expect(sniffFile(compound("PowerPoint Document"))).toBe("ppt")
  })

  it("reads a PNG named .pdf as an image, RTF by its header, binary junk as binary", () => {
    expect(sniffFile(PNG, "application/pdf", "scan.pdf")).toBe("image")
    expect(sniffFile(Buffer.from("{\\rtf1\\ansi Hello}"), "text/plain", "a.txt")).toBe("rtf")
    expect(sniffFile(Buffer.from([1, 2, 0, 3, 4]), undefined, "data.csv")).toBe("binary")
  })

  it("tells text formats by content type, then extension, then the markup itself", () => {
    const text = Buffer.from("name,count\nfoxes,3\n")
    expect(sniffFile(text, "text/csv; charset=utf-8")).toBe("csv")
    expect(sniffFile(text, "application/octet-stream", "counts.csv")).toBe("csv")
    expect(sniffFile(Buffer.from("a\tb\n"), undefined, "/data/export.tsv")).toBe("tsv")
    expect(sniffFile(text, undefined, "/data/export")).toBe("text")
    expect(sniffFile(Buffer.from("<!doctype html><html><p>hi</p></html>"))).toBe("html")
    expect(sniffFile(Buffer.from('{"a": 1}'), "application/json")).toBe("text")
    expect(sniffFile(new Uint8Array(0))).toBe("text")
  })
})

describe("hasFileSignature", () => {
  it("finds a PDF, zip, compound file or RTF at the start, which outweighs an HTML content type", () => {
    expect(hasFileSignature(Buffer.from("\r\n%PDF-1.4\n"))).toBe(true)
    expect(hasFileSignature(zip({ name: "mimetype", content: "application/epub+zip" }))).toBe(true)
    expect(hasFileSignature(Buffer.concat([OLE2, Buffer.alloc(504)]))).toBe(true)
    expect(hasFileSignature(Buffer.from("{\\rtf1\\ansi Hello}"))).toBe(true)
  })

  it("finds none in HTML, even one that writes about PDFs near its start, nor in an image", () => {
    expect(hasFileSignature(Buffer.from("<!doctype html><title>x</title><p>Files start with %PDF-1.7</p>"))).toBe(false)
    // Nor text that mentions the header: it is read as the text it is.
    expect(sniffFile(Buffer.from("PDF files start with %PDF-1.7 and end with %%EOF."), "text/plain", "notes.txt")).toBe(
      "text",
    )
    expect(hasFileSignature(Buffer.from("<html><body>PK and {\\rtf are just text here</body></html>"))).toBe(false)
    expect(hasFileSignature(new Uint8Array(0))).toBe(false)
    expect(hasFileSignature(PNG)).toBe(false)
  })
})
