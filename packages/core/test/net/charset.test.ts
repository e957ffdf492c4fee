import { describe, expect, it } from "vitest"
import { decodeBody } from "../../src/Content/Charset.js"

const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number> | Buffer>) =>
  new Uint8Array(
    Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part)))),
  )

// "日本語" in Shift_JIS, EUC-KR "한국어", GBK "中文".
const SHIFT_JIS = Buffer.from("93fa967b8cea", "hex")
const EUC_KR = Buffer.from("c7d1b1b9beee", "hex")
const GBK = Buffer.from("d6d0cec4", "hex")

describe("decodeBody", () => {
  it("decodes UTF-8 by default", () => {
    expect(decodeBody(new TextEncoder().encode("<p>Grüße ✓</p>"), undefined)).toBe("<p>Grüße ✓</p>")
  })

  it("turns invalid UTF-8 into U+FFFD instead of failing", () => {
    expect(decodeBody(bytes("<p>", [0xc3, 0x28, 0xff], "</p>"), "text/html; charset=utf-8")).toBe(
      "<p>\uFFFD(\uFFFD</p>",
    )
  })

  it("lets a BOM win over the header and the meta", () => {
    const utf16le = bytes([0xff, 0xfe], Buffer.from("<p>Grüße</p>", "utf16le"))
    expect(decodeBody(utf16le, "text/html; charset=iso-8859-1")).toBe("<p>Grüße</p>")
    const utf16be = bytes([0xfe, 0xff], Buffer.from("<p>ok</p>", "utf16le").swap16())
    expect(decodeBody(utf16be, undefined)).toBe("<p>ok</p>")
    const utf8 = bytes([0xef, 0xbb, 0xbf], Buffer.from('<meta charset="shift_jis"><p>é</p>'))
    expect(decodeBody(utf8, "text/html; charset=windows-1252")).toBe('<meta charset="shift_jis"><p>é</p>')
  })

  it("uses the Content-Type charset, quoted or not, before the meta", () => {
    expect(decodeBody(bytes("<p>Caf", [0xe9], "</p>"), "text/html; charset=windows-1252")).toBe("<p>Café</p>")
    expect(decodeBody(bytes("<p>", [0x80], "</p>"), 'text/html; Charset="Windows-1252"')).toBe("<p>€</p>")
    expect(decodeBody(bytes('<meta charset="utf-8">', EUC_KR), "text/html;charset=euc-kr")).toBe(
      '<meta charset="utf-8">한국어',
    )
    expect(decodeBody(bytes([0xc0, 0xc1]), "text/plain; charset=windows-1251")).toBe("АБ")
  })

  it("maps windows-1252 bytes 0x80-0x9F as the Encoding Standard does, also for the latin1 labels", () => {
    const c1 = [0x80, 0x81, 0x92, 0x93, 0x94, 0x96, 0x9f]
    expect(decodeBody(bytes(c1), "text/html; charset=windows-1252")).toBe("\u20ac\u0081\u2019\u201c\u201d\u2013\u0178")
    expect(decodeBody(bytes(c1), "text/html; charset=iso-8859-1")).toBe("\u20ac\u0081\u2019\u201c\u201d\u2013\u0178")
  })

  it("sniffs <meta charset> and <meta http-equiv> in the first 4 KiB", () => {
    expect(decodeBody(bytes('<html><head><meta charset="Shift_JIS"></head><p>', SHIFT_JIS), "text/html")).toContain(
      "<p>日本語",
    )
    expect(
      decodeBody(bytes('<meta http-equiv="Content-Type" content="text/html; charset=gbk"><p>', GBK), "text/html"),
    ).toContain("<p>中文")
    expect(decodeBody(bytes("<meta charset=iso-8859-2><p>", [0xb1]), undefined)).toContain("<p>ą")
  })

  it("ignores a meta after the first 4 KiB and one inside a comment", () => {
    const late = bytes("<p>", "x".repeat(5000), '<meta charset="windows-1252">', [0xe9])
    expect(decodeBody(late, "text/html").endsWith("\uFFFD")).toBe(true)
    const commented = bytes('<!-- <meta charset="windows-1252"> --><p>', [0xe9])
    expect(decodeBody(commented, "text/html")).toContain("<p>\uFFFD")
  })

  it("reads an XML encoding declaration", () => {
    expect(
      decodeBody(bytes('<?xml version="1.0" encoding="ISO-8859-1"?><a>', [0xe9], "</a>"), "application/xml"),
    ).toContain("<a>é</a>")
  })

  it("treats a meta that claims UTF-16 as UTF-8, as browsers do", () => {
    expect(decodeBody(bytes('<meta charset="utf-16"><p>', Buffer.from("é")), undefined)).toContain("<p>é")
  })

  it("falls back to UTF-8 for labels it does not know", () => {
    expect(decodeBody(new TextEncoder().encode("<p>é</p>"), "text/html; charset=klingon")).toBe("<p>é</p>")
    expect(decodeBody(new TextEncoder().encode('<meta charset="bogus"><p>é</p>'), undefined)).toContain("<p>é</p>")
  })
})
