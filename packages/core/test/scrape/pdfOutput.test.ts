/** The `parsers` option's part of a scrape's cache key. */
import { describe, expect, it } from "vitest"
import { pdfCacheSuffix } from "../../src/Scrape/PdfOutput.js"

describe("pdfCacheSuffix", () => {
  it("is empty for the default reading however it is asked for, and tells other readings apart", () => {
    expect(pdfCacheSuffix(undefined)).toBe("")
    expect(pdfCacheSuffix([{ type: "pdf" }])).toBe("")
    expect(pdfCacheSuffix([{ type: "pdf", mode: "auto" }])).toBe("")
    const others = [[], [{ type: "pdf", mode: "ocr" }], [{ type: "pdf", mode: "fast" }], [{ type: "pdf", maxPages: 2 }]]
    const suffixes = others.map((parsers) => pdfCacheSuffix(parsers as Parameters<typeof pdfCacheSuffix>[0]))
    expect(new Set(suffixes).size).toBe(others.length)
    expect(suffixes).not.toContain("")
  })
})
