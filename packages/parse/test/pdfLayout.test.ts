/** The PDF layout's reading order on positioned text items, as pdf.js gives them. */
import { describe, expect, it } from "vitest"
import { readingOrder, type TextItem } from "../src/formats/pdf/Lines.js"

const item = (text: string, x: number, y: number, width = text.length * 5): TextItem => ({
  text,
  x,
  y,
  width,
  size: 10,
  font: "f",
})

describe("PDF reading order", () => {
  it("reads a right-to-left line from its right end, whatever order the stream draws its words in", () => {
    // Three Arabic words drawn left to right on the page: the first word read is the rightmost.
    const words = [item("ثالث", 100, 700, 40), item("ثان", 150, 700, 40), item("أول", 200, 700, 40)]
    const [line] = readingOrder(words, [], 612)
    expect(line!.text).toBe("أول ثان ثالث")
    expect([line!.x, line!.right]).toEqual([100, 240])
  })

  it("keeps a left-to-right line with a few right-to-left words in page order", () => {
    const words = [item("The word", 100, 700, 45), item("كتاب", 150, 700, 30), item("means book", 185, 700, 55)]
    expect(readingOrder(words, [], 612)[0]!.text).toBe("The word كتاب means book")
  })

  it("reads two justified columns one after the other when the stream jumps between them", () => {
    // Justified lines of the left column end close to the gutter; the stream draws the columns three lines at a time.
    const left = Array.from({ length: 12 }, (_, index) => item(`left ${index}`, 60, 700 - index * 14, 246))
    const right = Array.from({ length: 12 }, (_, index) => item(`right ${index}`, 310, 693 - index * 14, 234))
    const stream = [0, 3, 6, 9].flatMap((start) => [...right.slice(start, start + 3), ...left.slice(start, start + 3)])
    const texts = readingOrder(stream, [], 612).map((line) => line.text)
    expect(texts).toEqual([...left, ...right].map((line) => line.text))
  })
})
