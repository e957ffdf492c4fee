/**
 * Office, OpenDocument, EPUB, RTF and CSV fixtures (made by LibreOffice from one source, `fixtures/office/make.ts`;
 * the DOCM and XLSM are the DOCX and XLSX made macro-enabled) to the markdown a user gets: headings, emphasis, nested
 * lists, tables, links, titles and properties; and the files that cannot be read.
 */
import { describe, expect, it } from "vitest"
import { parseDocx } from "../src/formats/Docx.js"
import { parseSpreadsheet } from "../src/formats/Spreadsheet.js"
import { failureOf, fixture, parseFixture } from "./support/fixtures.js"
import { markdownOf } from "./support/markdownOf.js"

const SITES_TABLE = ["| Site | Level (m) | Status |", "| --- | --- | --- |", "| Site 7 | 15.1 | Rising |"]

describe("documents", () => {
  it.each(["report.docx", "report.docm", "report.odt", "report.rtf", "report.epub"])(
    "%s: headings, emphasis, lists, table, link",
    async (name) => {
      const parsed = await parseFixture(`office/${name}`)
      const markdown = markdownOf(parsed)
      expect(parsed.title).toBe("Quarterly Field Report")
      expect(markdown).toMatch(/^# Quarterly Field Report$/m)
      expect(markdown).toMatch(/^## Findings$/m)
      expect(markdown).toMatch(/^## Next steps$/m)
      expect(markdown).toContain("**twelve sites**")
      expect(markdown).toMatch(/[*_]northern wells[*_]/)
      expect(markdown).toMatch(/^- Water levels rose at most sites$/m)
      expect(markdown).toMatch(/^ {2,4}- The largest rise was at Site 7$/m)
      expect(markdown).toMatch(/^1\. Survey the sites\n2\. Sample the water\n3\. Write the report$/m)
      for (const line of SITES_TABLE) expect(markdown).toContain(line)
      expect(markdown).toContain("[survey handbook](https://example.com/report)")
      // Sections keep their order.
      expect(markdown.indexOf("## Findings")).toBeLessThan(markdown.indexOf("## Next steps"))
    },
  )

  it("writes an image as its alt text, not a link to nothing", async () => {
    for (const name of ["report.docx", "report.odt", "report.epub"]) {
      const markdown = markdownOf(await parseFixture(`office/${name}`))
      expect(markdown).toContain("Map of the survey sites")
      expect(markdown).not.toContain("![")
    }
  })

  it("reads a book's chapters in spine order with its metadata; links inside the book become text", async () => {
    const parsed = await parseFixture("office/report.epub")
    expect(parsed.properties).toMatchObject({ author: "Field Team", language: "en" })
    const markdown = markdownOf(parsed)
    expect(markdown).toMatch(/See the start\.$/m)
    expect(markdown).not.toContain("a.xhtml")
  })
})

describe("spreadsheets", () => {
  it.each(["sales.xlsx", "sales.xlsm", "sales.xls", "sales.ods"])(
    "%s: a section per sheet, dates and formula results as shown",
    async (name) => {
      const markdown = markdownOf(await parseFixture(`office/${name}`))
      expect(markdown).toMatch(/^## Sales$/m)
      expect(markdown).toMatch(/^## Notes$/m)
      expect(markdown).toContain("| Region | Date | Units | Price | Total |")
      expect(markdown).toContain("| South | 2024-02-20 | 8 | 4.25 | 34 |")
      expect(markdown).toContain("| West | 2024-03-28 | 5 | 10 | 50 |")
      expect(markdown).toContain("Figures are provisional.")
    },
  )

  it("never walks a declared range: A1:XFD1048576 with three cells is read at once", async () => {
    const started = Date.now()
    const markdown = markdownOf(await parseFixture("office/huge-range.xlsx"))
    expect(Date.now() - started).toBeLessThan(1000)
    expect(markdown).toContain("| Name | Count |")
    expect(markdown).toContain("| Foxes |")
  })

  it("sniffs delimiters, keeps quoted delimiters and newlines in their cell, drops the BOM", async () => {
    const csv = markdownOf(await parseFixture("office/data.csv"))
    expect(csv).toMatch(/^\| name \| note \| count \|$/m)
    expect(csv).toContain("| foxes | quick, brown | 3 |")
    expect(csv).toMatch(/\| owls \| night\s+birds \| 5 \|/)
    expect(markdownOf(await parseFixture("office/data.tsv"))).toContain("| owls | 5 |")
  })
})

describe("macro-enabled files", () => {
  it.each(["report.docm", "sales.xlsm"])(
    "%s: the VBA project's macro text never reaches the document",
    async (name) => {
      // The fixture holds a `vbaProject.bin` whose macro source is plain text inside the compound file.
      expect(Buffer.from(fixture(`office/${name}`)).includes("vbaProject.bin")).toBe(true)
      const markdown = markdownOf(await parseFixture(`office/${name}`))
      expect(markdown).not.toMatch(/AutoOpen|macro ran/)
    },
  )
})

describe("presentations", () => {
  it.each(["deck.pptx", "deck.odp"])(
    "%s: a section per slide with its title, bullets, table and notes",
    async (name) => {
      const parsed = await parseFixture(`office/${name}`)
      const markdown = markdownOf(parsed)
      expect(parsed.numPages).toBe(3)
      const titles = [...markdown.matchAll(/^## (.+)$/gm)].map((match) => match[1])
      expect(titles).toEqual(["Harbour Survey 2024", "Key findings", "Budget"])
      expect(markdown).toContain("- Silt builds up near the quay")
      expect(markdown).toMatch(/### Notes\n\nRemember the Q3 numbers/)
      expect(markdown).toContain("| Dredging | 12000 |")
    },
  )
})

describe("files that cannot be read", () => {
  it("refuses zip bombs before inflating them, whether their headers tell the truth or not", async () => {
    for (const name of ["bomb.docx", "bomb-lying.docx"]) {
      const started = Date.now()
      const failure = await failureOf(parseDocx(fixture(`office/${name}`)))
      expect(failure.reason).toBe("ParseFailed")
      expect(failure.message).toMatch(/unpacks to more than|zip bomb/)
      expect(Date.now() - started).toBeLessThan(2000)
    }
  })

  it.each(["laughs.odt", "laughs.xlsx"])("never expands XML entities (billion laughs): %s", async (name) => {
    const started = Date.now()
    const markdown = markdownOf(await parseFixture(`office/${name}`))
    expect(Date.now() - started).toBeLessThan(1000)
    expect(markdown.length).toBeLessThan(200)
    expect(markdown).toContain("Laughs:")
  })

  it("refuses a DOCX whose document part declares entities (billion laughs) before mammoth reads it", async () => {
    const started = Date.now()
    const failure = await failureOf(parseFixture("office/laughs.docx"))
    expect(Date.now() - started).toBeLessThan(1000)
    expect(failure).toMatchObject({ reason: "ParseFailed", message: expect.stringMatching(/declares XML entities/) })
  })

  it("leaves a legacy Word 97 file to the engine's 415: no parser reads it", async () => {
    expect((await failureOf(parseFixture("office/report.doc"))).reason).toBe("UnsupportedContent")
  })

  it("answers a truncated, empty or random file with ParseFailed", async () => {
    expect((await failureOf(parseFixture("office/truncated.docx"))).reason).toBe("ParseFailed")
    expect((await failureOf(parseDocx(new Uint8Array(0)))).reason).toBe("ParseFailed")
    const random = new Uint8Array(4096).map((_, index) => (index * 7919) % 251)
    expect((await failureOf(parseSpreadsheet(random))).reason).toBe("ParseFailed")
  })
})
