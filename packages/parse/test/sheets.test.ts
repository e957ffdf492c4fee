/**
 * Workbooks (XLSX, XLS, ODS made by LibreOffice from one workbook, `fixtures/sheets/make.ts`) and CSV/TSV to the
 * markdown a user gets: a section per visible sheet, values as the application shows them, and files that cannot be
 * read failing as such.
 */
import { type CellObject, utils, write } from "@e965/xlsx"
import { describe, expect, it } from "vitest"
import { FileFailure } from "../src/Failures.js"
import { parseDelimited } from "../src/formats/Delimited.js"
import { MAX_CELLS, parseSpreadsheet } from "../src/formats/Spreadsheet.js"
import { failureOf, fixture } from "./support/fixtures.js"
import { markdownOf } from "./support/markdownOf.js"

const sheets = (name: string) => fixture(`sheets/${name}`)

/** An XLSX made in memory from sheets of rows. */
const workbook = (
  ...sheetsOf: ReadonlyArray<{ name: string; rows: Array<Array<unknown>>; merges?: Array<string> }>
): Uint8Array => {
  const book = utils.book_new()
  for (const { name, rows, merges } of sheetsOf) {
    const sheet = utils.aoa_to_sheet(rows, { cellDates: true })
    if (merges !== undefined) sheet["!merges"] = merges.map((range) => utils.decode_range(range))
    utils.book_append_sheet(book, sheet, name)
  }
  return new Uint8Array(write(book, { type: "array", bookType: "xlsx" }) as ArrayBuffer)
}

describe("workbooks", () => {
  it.each(["sales.xlsx", "sales.xls", "sales.ods"])(
    "%s: a section per visible sheet; dates and formula results as shown",
    async (name) => {
      const parsed = await parseSpreadsheet(sheets(name))
      const markdown = markdownOf(parsed)
      expect(markdown).toMatch(/^## Sales$/m)
      expect(markdown).toMatch(/^## Notes$/m)
      expect(markdown.indexOf("## Sales")).toBeLessThan(markdown.indexOf("## Notes"))
      expect(markdown).toContain("| Region | Date | Units | Price | Total |\n| --- | --- | --- | --- | --- |")
      // Total is a formula: its result as LibreOffice computed and cached it.
      expect(markdown).toContain("| North | 2024-01-15 | 12 | 3.5 | 42 |")
      expect(markdown).toContain("| South | 2024-02-20 | 8 | 4.25 | 34 |")
      expect(markdown).toContain("| West | 2024-03-28 | 5 | 10 | 50 |")
      // A1:B1 is merged: one header cell over two columns.
      expect(markdown).toContain(
        "| Prices are in euros. | |\n| --- | --- |\n| Figures are provisional. | Finance desk |",
      )
      // The hidden sheet is left out.
      expect(markdown).not.toContain("Lookup")
      expect(markdown).not.toContain("Internal rates")
      expect(parsed.title).toBe("Regional Sales")
      expect(parsed.properties).toMatchObject({ author: "Sales Desk" })
    },
  )

  it("never walks a declared range: A1:XFD1048576 with three cells is read at once", async () => {
    const started = performance.now()
    const markdown = markdownOf(await parseSpreadsheet(sheets("huge-range.xlsx")))
    expect(performance.now() - started).toBeLessThan(1000)
    expect(markdown).toMatch(/^## Counts$/m)
    // The corner cell's row and column are kept; the million empty ones between are not.
    expect(markdown).toContain("| Animal | Count | |\n| --- | --- | --- |\n| | | Corner |")
    expect(markdown.length).toBeLessThan(200)
  })

  it("writes dates without a format as ISO dates, trims empty rows and columns, and spans merged cells", async () => {
    const date = (iso: string): CellObject => ({ t: "d", v: new Date(`${iso}T00:00:00Z`) })
    const bytes = workbook({
      name: "Log",
      rows: [
        [null, null, null, null],
        [null, "Day", "Team", "Hours", null, ""],
        [null, date("2024-05-06"), "Docks", 7],
        [null, date("2024-05-07"), null, 6],
        [],
        [null, "", "", ""],
      ],
      merges: ["C3:C4"],
    })
    const markdown = markdownOf(await parseSpreadsheet(bytes))
    expect(markdown).toContain(
      ["| Day | Team | Hours |", "| --- | --- | --- |", "| 2024-05-06 | Docks | 7 |", "| 2024-05-07 | | 6 |"].join(
        "\n",
      ),
    )
    // Empty sheets add nothing.
    const empty = workbook({ name: "Blank", rows: [] }, { name: "Data", rows: [["x"], ["1"]] })
    expect(markdownOf(await parseSpreadsheet(empty))).not.toContain("Blank")
  })

  it("writes a title above the table (one cell in its row, merged or not) as a paragraph, not as the header", async () => {
    const bytes = workbook({
      name: "Ducks",
      rows: [
        ["Duck counts", null, null],
        ["per lake and year"],
        [null, "Lake", "Ducks"],
        [null, "Ness", 12],
        [null, "Garda", 30],
      ],
      merges: ["A1:C1"],
    })
    const markdown = markdownOf(await parseSpreadsheet(bytes))
    // The titles' column holds nothing else: it leaves the table with them.
    expect(markdown).toContain(
      ["Duck counts", "", "per lake and year", "", "| Lake | Ducks |", "| --- | --- |", "| Ness | 12 |"].join("\n"),
    )
    // A table of two rows keeps its first row, one cell or not.
    const small = workbook({ name: "Small", rows: [["Only"], ["a", "b"]] })
    expect(markdownOf(await parseSpreadsheet(small))).toContain("| Only | |\n| --- | --- |\n| a | b |")
  })

  it(`gives at most ${MAX_CELLS} cells of a workbook and says the rest was left out`, async () => {
    const rows = Array.from({ length: 40_000 }, (_, index) => [`row ${index}`, index, index * 2])
    const bytes = workbook({ name: "Big", rows: [["Name", "A", "B"], ...rows] }, { name: "After", rows: [["Later"]] })
    const parsed = await parseSpreadsheet(bytes)
    const html = parsed.pages[0]!
    expect(html.match(/<td>/g)?.length ?? 0).toBeLessThan(MAX_CELLS)
    expect(html).toContain("row 20000")
    expect(html).not.toContain("row 39999")
    expect(html).not.toContain("Later")
    // The note survives the content pipeline: the table stays below the elements a page may have.
    expect(markdownOf(parsed).slice(-300)).toMatch(/the rest of this sheet and the sheets after it are left out\.$/)
  })

  it("refuses an ODS whose repeated cells would expand to billions, before building them", async () => {
    const started = performance.now()
    const failure = await failureOf(parseSpreadsheet(sheets("repeats.ods")))
    expect(failure.reason).toBe("ParseFailed")
    expect(failure.message).toMatch(/repeated cells expand to more than/)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it("fails a damaged, truncated or foreign file with ParseFailed", async () => {
    const whole = sheets("sales.xlsx")
    const truncated = whole.subarray(0, Math.floor(whole.length / 2))
    // The archive's directory is intact but an entry's compressed data is not.
    const damaged = whole.slice()
    for (let index = 200; index < 1200; index++) damaged[index] = (damaged[index]! * 31 + 7) & 0xff
    const random = new Uint8Array(4096).map((_, index) => (index * 7919) % 251)
    const legacy = sheets("sales.xls")
    for (const bytes of [truncated, damaged, random, legacy.subarray(0, 2048), new Uint8Array(0)]) {
      const failure = await failureOf(parseSpreadsheet(bytes))
      expect(failure.reason).toBe("ParseFailed")
    }
    await expect(parseSpreadsheet(truncated)).rejects.toBeInstanceOf(FileFailure)
    // A zip that is not a workbook (a presentation).
    expect((await failureOf(parseSpreadsheet(fixture("slides/deck.pptx")))).reason).toBe("ParseFailed")
  })
})

describe("delimited text", () => {
  it("finds the semicolon, keeps quoted delimiters and line breaks in their cell, drops the BOM", async () => {
    const markdown = markdownOf(await parseDelimited(sheets("data.csv"), "csv"))
    expect(markdown).toMatch(/^\| name \| note \| count \|$/m)
    expect(markdown).not.toContain("\ufeff")
    expect(markdown).toContain("| foxes | quick, brown | 3 |")
    expect(markdown).toMatch(/^\| owls \| night\s+birds \| 5 \|$/m)
    expect(markdown).toContain("| crows | plain | 7 |")
  })

  it("reads TSV by tabs even when its cells hold commas", async () => {
    const markdown = markdownOf(await parseDelimited(sheets("data.tsv"), "tsv"))
    expect(markdown).toContain("| name | note | count |")
    expect(markdown).toContain("| foxes | quick, brown | 3 |")
    expect(markdown).toContain("| owls | night birds | 5 |")
  })

  it("finds pipes and tabs in CSV, pads short rows, and falls back to Windows-1252", async () => {
    const encode = (text: string) => new TextEncoder().encode(text)
    expect(markdownOf(await parseDelimited(encode("a|b|c\n1|2|3\n4|5|6\n"), "csv"))).toContain("| 4 | 5 | 6 |")
    expect(markdownOf(await parseDelimited(encode("a\tb\n1\t2\n"), "csv"))).toContain("| 1 | 2 |")
    const ragged = markdownOf(await parseDelimited(encode("a,b,c\n1,2\n3,4,5,6\n"), "csv"))
    expect(ragged).toContain("| a | b | c | |")
    expect(ragged).toContain("| 1 | 2 | | |")
    expect(ragged).toContain("| 3 | 4 | 5 | 6 |")
    // "José,Orléans" as Windows-1252: é is 0xE9, which is not valid UTF-8 on its own.
    const latin = Uint8Array.from([...encode("name,city\nJos"), 0xe9, ...encode(",Orl"), 0xe9, ...encode("ans\n")])
    expect(markdownOf(await parseDelimited(latin, "csv"))).toContain("| José | Orléans |")
    expect((await parseDelimited(new Uint8Array(0), "csv")).pages).toEqual([""])
  })

  it(`gives at most ${MAX_CELLS} cells and says how many rows were left out`, async () => {
    const text = `id,name\n${Array.from({ length: 60_000 }, (_, index) => `${index},item ${index}`).join("\n")}\n`
    const parsed = await parseDelimited(new TextEncoder().encode(text), "csv")
    const markdown = markdownOf(parsed)
    expect(markdown.startsWith("| id | name |\n| --- | --- |\n| 0 | item 0 |")).toBe(true)
    expect(markdown.includes("item 59999")).toBe(false)
    expect(markdown.slice(-300)).toMatch(/The first 33333 of 60001 rows are shown; the other 26668 are left out\.$/)
  })
})
