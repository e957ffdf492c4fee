/**
 * PDFs (made by Chromium's printer, `fixtures/pdf/make.ts`) to markdown: reading order, headings by font size, lists,
 * a table, links, running footers left out, page limits, OCR of a scanned page with nothing downloaded, and the
 * errors of encrypted, damaged and mislabelled files.
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { parsePdf } from "../src/formats/Pdf.js"
import { failureOf, fixture } from "./support/fixtures.js"
import { markdownOf } from "./support/markdownOf.js"

const SCANNED = "The quick brown fox jumps over the lazy dog 1234"

/** Most words of `expected` in `text`: OCR may slip on a letter. */
const mostWordsOf = (text: string, expected: string) => {
  const words = expected.toLowerCase().split(" ")
  return words.filter((word) => text.toLowerCase().includes(word)).length / words.length
}

describe("PDF", () => {
  it("reads a report: title, headings, lists, table and link, without its running footer", async () => {
    const parsed = await parsePdf(fixture("pdf/report.pdf"), { mode: "fast" })
    expect(parsed.numPages).toBe(3)
    expect(parsed.totalPages).toBeUndefined()
    expect(parsed.title).toBe("Tidal Energy Survey")
    expect(parsed.pages).toHaveLength(3)
    const markdown = markdownOf(parsed)
    expect(markdown).toMatch(/^# Tidal Energy Survey$/m)
    expect([...markdown.matchAll(/^## (.+)$/gm)].map((match) => match[1])).toEqual([
      "Methods",
      "Results",
      "Conclusions",
    ])
    expect(markdown).toMatch(/^- Pressure gauges sampled every ten minutes\n- Current meters sampled every minute$/m)
    expect(markdown).toMatch(/^1\. Remove the readings taken during maintenance\n2\. Average the readings per month$/m)
    expect(markdown).toContain("| Station | Range (m) | Current (m/s) |")
    expect(markdown).toContain("| Harbour Mouth | 5.1 | 2.9 |")
    expect(markdown).toContain("[published specification](https://example.com/spec).")
    // Paragraphs wrap across lines in the PDF; in markdown they are one line.
    expect(markdown).toContain("with instruments anchored at four stations.")
    expect(markdown).not.toMatch(/Tidal Energy Survey, page \d/)
  })

  it("reads at most maxPages pages", async () => {
    const parsed = await parsePdf(fixture("pdf/report.pdf"), { mode: "fast", maxPages: 1 })
    expect(parsed.numPages).toBe(1)
    expect(parsed.totalPages).toBe(3)
    const markdown = markdownOf(parsed)
    expect(markdown).toContain("## Methods")
    expect(markdown).not.toContain("Results")
  })

  it("reads a scanned page by OCR in auto and ocr modes, and leaves it empty in fast mode", async () => {
    const auto = await parsePdf(fixture("pdf/scanned.pdf"), { mode: "auto" })
    expect(auto.ocrPages).toEqual([1])
    expect(mostWordsOf(markdownOf(auto), SCANNED)).toBeGreaterThanOrEqual(0.8)
    const fast = await parsePdf(fixture("pdf/scanned.pdf"), { mode: "fast" })
    expect(fast.ocrPages).toBeUndefined()
    expect(markdownOf(fast).trim()).toBe("")
    const ocr = await parsePdf(fixture("pdf/report.pdf"), { mode: "ocr", maxPages: 1 })
    expect(ocr.ocrPages).toEqual([1])
    expect(
      mostWordsOf(markdownOf(ocr), "This survey measures the tides along the northern coast"),
    ).toBeGreaterThanOrEqual(0.8)
  }, 60_000)

  it("downloads nothing to run OCR: a process with every network path refused reads the scan", async () => {
    const support = (name: string) => fileURLToPath(new URL(`./support/${name}`, import.meta.url))
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--import", support("noNetwork.mjs"), support("ocrChild.ts")],
      { cwd: fileURLToPath(new URL("..", import.meta.url)), timeout: 60_000 },
    )
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      guarded: boolean
      ocrPages: Array<number>
      markdown: string
    }
    expect(result.guarded).toBe(true)
    // The one attempt is the probe's own.
    expect(stderr.match(/NETWORK ATTEMPT/g)).toHaveLength(1)
    expect(result.ocrPages).toEqual([1])
    expect(mostWordsOf(result.markdown, SCANNED)).toBeGreaterThanOrEqual(0.8)
  }, 60_000)

  it("answers encrypted, damaged and mislabelled files with ParseFailed", async () => {
    const encrypted = await failureOf(parsePdf(fixture("pdf/encrypted.pdf"), { mode: "fast" }))
    expect(encrypted).toMatchObject({ reason: "ParseFailed", message: expect.stringMatching(/encrypted/) })
    // The first 40% of the report: its cross-reference table and trailer are gone, so pdf.js finds no page.
    expect(await failureOf(parsePdf(fixture("pdf/truncated.pdf"), { mode: "fast" }))).toMatchObject({
      reason: "ParseFailed",
      message: expect.stringMatching(/^The PDF is truncated \(it stops before its end-of-file marker\)/),
    })
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    expect((await failureOf(parsePdf(png, { mode: "fast" }))).reason).toBe("ParseFailed")
    expect((await failureOf(parsePdf(new Uint8Array(0), { mode: "fast" }))).reason).toBe("ParseFailed")
  })
})
