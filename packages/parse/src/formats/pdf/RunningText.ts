/**
 * Running headers and footers: a line at the same height on most pages with the same text once numbers are set
 * aside ("Report, page 3"), and bare page numbers at the top or bottom. They repeat on every page of the markdown
 * otherwise.
 */
import type { Line } from "./Lines.js"

const shape = (text: string) => text.replace(/\d+/g, "#").replace(/\s+/g, " ").trim().toLowerCase()

const PAGE_NUMBER = /^(page\s*)?#(\s*(of|\/)\s*#)?$|^[-–]\s*#\s*[-–]$/

/** The pages' lines without their running headers and footers (only for 3 pages or more). */
export const withoutRunningText = (
  pages: ReadonlyArray<ReadonlyArray<Line>>,
  pageHeight: number,
): Array<Array<Line>> => {
  if (pages.length < 3) return pages.map((lines) => [...lines])
  const key = (line: Line) => `${Math.round(line.y / 4)}|${shape(line.text)}`
  const seen = new Map<string, number>()
  for (const lines of pages) for (const each of new Set(lines.map(key))) seen.set(each, (seen.get(each) ?? 0) + 1)
  const margin = pageHeight * 0.12
  const running = (line: Line) => {
    const nearEdge = line.y < margin || line.y > pageHeight - margin
    if (!nearEdge) return false
    return PAGE_NUMBER.test(shape(line.text)) || (seen.get(key(line)) ?? 0) >= Math.max(3, pages.length * 0.6)
  }
  return pages.map((lines) => lines.filter((line) => !running(line)))
}
