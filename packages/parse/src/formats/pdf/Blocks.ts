/**
 * A page's lines as HTML blocks: headings by font size (sizes clearly above the body text's, largest first), lists by
 * their markers (or, where the markers are drawn rather than written, by a run of indented short lines), tables where
 * consecutive lines split into the same columns, and paragraphs by vertical gaps.
 */
import { escapeHtml } from "../../Xml.js"
import type { Line, Run } from "./Lines.js"

export interface Typography {
  /** The body text's size (the most common one, by characters). */
  readonly bodySize: number
  /** Heading sizes, largest first: index 0 is h1. */
  readonly headingSizes: ReadonlyArray<number>
  /** The left edge of body text. */
  readonly bodyLeft: number
}

const BULLET = /^\s*([•◦▪‣∙·●○■□–—*-])\s+/
const NUMBERED = /^\s*(\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/i

const runsHtml = (runs: ReadonlyArray<Run>): string =>
  runs
    .map((run) =>
      run.href !== undefined ? `<a href="${escapeHtml(run.href)}">${escapeHtml(run.text)}</a>` : escapeHtml(run.text),
    )
    .join("")

const lineRuns = (line: Line): Array<Run> =>
  line.cells.flatMap((cell, index) => (index === 0 ? cell.runs : [{ text: " " }, ...cell.runs]))

/** Lines joined into one paragraph's runs: a hyphen that breaks a word at a line end is taken out. */
const joinLines = (lines: ReadonlyArray<Line>): Array<Run> => {
  const runs: Array<Run> = []
  for (const line of lines) {
    const next = lineRuns(line)
    const last = runs[runs.length - 1]
    if (last !== undefined) {
      const hyphenated = /[a-z]-$/.test(last.text.trimEnd()) && /^[a-z]/.test(next[0]?.text.trimStart() ?? "")
      if (hyphenated) runs[runs.length - 1] = { ...last, text: last.text.trimEnd().slice(0, -1) }
      else runs.push({ text: " " })
    }
    runs.push(...next)
  }
  return runs
}

const headingLevel = (line: Line, typography: Typography): number | undefined => {
  if (line.size < typography.bodySize * 1.15 || line.text.length > 160) return undefined
  const index = typography.headingSizes.findIndex((size) => Math.abs(size - line.size) < 0.5)
  return index < 0 ? undefined : Math.min(index + 1, 6)
}

const stripMarker = (runs: Array<Run>, marker: RegExp): Array<Run> => {
  const [first, ...rest] = runs
  return first === undefined ? runs : [{ ...first, text: first.text.replace(marker, "") }, ...rest]
}

/** Column starts shared by a run of lines: a table when at least two lines agree on two or more columns. */
const sameColumns = (a: Line, b: Line) =>
  a.cells.length >= 2 &&
  a.cells.length === b.cells.length &&
  a.cells.every((cell, index) => Math.abs(cell.x - b.cells[index]!.x) < Math.max(4, a.size))

const tableHtml = (rows: ReadonlyArray<Line>): string => {
  const cells = (line: Line, tag: "th" | "td") =>
    `<tr>${line.cells.map((cell) => `<${tag}>${runsHtml(cell.runs).trim()}</${tag}>`).join("")}</tr>`
  const [head, ...body] = rows
  return `<table><thead>${cells(head!, "th")}</thead><tbody>${body.map((row) => cells(row, "td")).join("")}</tbody></table>`
}

export const blocksHtml = (lines: ReadonlyArray<Line>, typography: Typography): string => {
  const out: Array<string> = []
  let index = 0
  const gapAfter = (i: number) => (i + 1 < lines.length ? lines[i]!.y - lines[i + 1]!.y : Number.POSITIVE_INFINITY)
  while (index < lines.length) {
    const line = lines[index]!
    const level = headingLevel(line, typography)
    if (level !== undefined) {
      // A heading may wrap onto a second line of the same size.
      const next = lines[index + 1]
      const wrapped = next !== undefined && Math.abs(next.size - line.size) < 0.5 && gapAfter(index) < line.size * 1.6
      out.push(`<h${level}>${runsHtml(joinLines(wrapped ? [line, next] : [line]))}</h${level}>`)
      index += wrapped ? 2 : 1
      continue
    }
    // A table: this line and the next ones split into the same columns.
    let end = index + 1
    while (end < lines.length && sameColumns(line, lines[end]!)) end++
    if (end - index >= 2) {
      out.push(tableHtml(lines.slice(index, end)))
      index = end
      continue
    }
    const bullet = BULLET.exec(line.text)
    const numbered = bullet === null ? NUMBERED.exec(line.text) : null
    const indentedRun = (() => {
      // Markers drawn as graphics leave indented lines that each end short of the column's right edge.
      if (line.x < typography.bodyLeft + typography.bodySize * 0.8) return 0
      let count = 0
      while (
        index + count < lines.length &&
        Math.abs(lines[index + count]!.x - line.x) < 1 &&
        Math.abs(lines[index + count]!.size - line.size) < 0.5 &&
        headingLevel(lines[index + count]!, typography) === undefined
      )
        count++
      if (count < 2) return 0
      // Lines that reach the block's right edge are a paragraph set in (a box, a quote), not list items.
      const right = Math.max(...lines.slice(index, index + count).map((each) => each.right))
      const full = lines.slice(index, index + count).filter((each) => each.right > right - typography.bodySize * 0.5)
      return full.length > count / 2 ? 0 : count
    })()
    if (bullet !== null || numbered !== null) {
      const marker = bullet !== null ? BULLET : NUMBERED
      const items: Array<string> = []
      while (
        index < lines.length &&
        marker.test(lines[index]!.text) &&
        headingLevel(lines[index]!, typography) === undefined
      ) {
        const first = lines[index]!
        const continued: Array<Line> = [first]
        index++
        // Continuation lines: indented past the marker, no marker of their own, close below.
        while (
          index < lines.length &&
          !marker.test(lines[index]!.text) &&
          lines[index]!.x > first.x + 2 &&
          gapAfter(index - 1) < first.size * 1.8
        )
          continued.push(lines[index++]!)
        items.push(`<li>${runsHtml(stripMarker(joinLines(continued), marker))}</li>`)
      }
      const tag = bullet !== null ? "ul" : "ol"
      out.push(`<${tag}>${items.join("")}</${tag}>`)
      continue
    }
    if (indentedRun > 0) {
      out.push(
        `<ul>${lines
          .slice(index, index + indentedRun)
          .map((item) => `<li>${runsHtml(lineRuns(item))}</li>`)
          .join("")}</ul>`,
      )
      index += indentedRun
      continue
    }
    // A paragraph: lines of one size, each close below the previous one.
    const paragraph: Array<Line> = [line]
    index++
    while (index < lines.length) {
      const next = lines[index]!
      if (
        Math.abs(next.size - line.size) >= 0.5 ||
        gapAfter(index - 1) > line.size * 1.75 ||
        headingLevel(next, typography) !== undefined ||
        BULLET.test(next.text) ||
        NUMBERED.test(next.text) ||
        (next.cells.length >= 2 && lines[index + 1] !== undefined && sameColumns(next, lines[index + 1]!))
      )
        break
      paragraph.push(next)
      index++
    }
    out.push(`<p>${runsHtml(joinLines(paragraph))}</p>`)
  }
  return out.join("\n")
}
