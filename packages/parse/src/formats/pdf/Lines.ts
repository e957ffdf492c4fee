/**
 * A PDF page's text items as lines: items on one baseline joined left to right, with the gaps that separate table
 * columns kept as cell boundaries, and the parts a link annotation covers marked. Two-column pages are read one
 * column after the other.
 */

export interface TextItem {
  readonly text: string
  readonly x: number
  /** Baseline, in PDF units from the bottom of the page. */
  readonly y: number
  readonly width: number
  readonly size: number
  readonly font: string
}

export interface LinkArea {
  readonly url: string
  /** [x1, y1, x2, y2] */
  readonly rect: readonly [number, number, number, number]
}

/** Text that shares one link (or none). */
export interface Run {
  readonly text: string
  readonly href?: string | undefined
}

/** Text separated from its neighbours by a wide gap: a table cell, or the whole line. */
export interface Cell {
  readonly x: number
  readonly right: number
  readonly runs: ReadonlyArray<Run>
}

export interface Line {
  readonly x: number
  readonly right: number
  readonly y: number
  readonly size: number
  readonly cells: ReadonlyArray<Cell>
  readonly text: string
}

/** Words of an item with their estimated extent, marked with the link whose area holds their middle. */
const linkedWords = (item: TextItem, links: ReadonlyArray<LinkArea>): ReadonlyArray<Run & { readonly x: number }> => {
  const over = links.filter(
    (link) =>
      item.x < link.rect[2] &&
      item.x + item.width > link.rect[0] &&
      item.y + item.size * 0.3 >= link.rect[1] &&
      item.y <= link.rect[3],
  )
  if (over.length === 0) return [{ text: item.text, x: item.x }]
  const perChar = item.width / Math.max(1, item.text.length)
  const words: Array<Run & { readonly x: number }> = []
  let offset = 0
  for (const word of item.text.split(/(?<=\s)/)) {
    const middle = item.x + (offset + word.trimEnd().length / 2) * perChar
    const link = over.find((area) => middle >= area.rect[0] && middle <= area.rect[2])
    const x = item.x + offset * perChar
    // Punctuation after a linked word reads as the sentence's, not the link's.
    const [, linked = word, trailing = ""] = link !== undefined ? (/^(.*?)([.,;:!?)]+\s*)$/s.exec(word) ?? []) : []
    if (link !== undefined && linked !== "") {
      words.push({ text: linked, x, href: link.url })
      if (trailing !== "") words.push({ text: trailing, x })
    } else words.push({ text: word, x })
    offset += word.length
  }
  return words
}

const pushRun = (runs: Array<Run>, text: string, href: string | undefined) => {
  const last = runs[runs.length - 1]
  if (last !== undefined && last.href === href) runs[runs.length - 1] = { text: last.text + text, href }
  else runs.push(href !== undefined ? { text, href } : { text })
}

const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/g
const HAS_RIGHT_TO_LEFT = new RegExp(RIGHT_TO_LEFT.source)
const LETTER = /\p{L}/gu

/** Whether most letters of a line are of a right-to-left script (Arabic, Hebrew): its items read from the right. */
const readsRightToLeft = (items: ReadonlyArray<TextItem>) => {
  // Most lines have no right-to-left letter at all: one look at each item settles them.
  if (!items.some((item) => HAS_RIGHT_TO_LEFT.test(item.text))) return false
  const text = items.map((item) => item.text).join("")
  return (text.match(RIGHT_TO_LEFT)?.length ?? 0) * 2 > (text.match(LETTER)?.length ?? 0)
}

/** Items on one baseline as a line, in reading order: a gap wider than two spaces ends a cell. */
const lineOf = (items: ReadonlyArray<TextItem>, links: ReadonlyArray<LinkArea>): Line | undefined => {
  const rightToLeft = readsRightToLeft(items)
  const sorted = [...items].sort(rightToLeft ? (a, b) => b.x + b.width - (a.x + a.width) : (a, b) => a.x - b.x)
  const size = Math.max(...sorted.map((item) => item.size))
  const cells: Array<{ x: number; right: number; runs: Array<Run> }> = []
  let previous: TextItem | undefined
  for (const item of sorted) {
    // Whitespace-only items are how some producers draw column gaps: the gap itself tells.
    if (item.text.trim() === "") continue
    const gap =
      previous === undefined
        ? Number.POSITIVE_INFINITY
        : rightToLeft
          ? previous.x - (item.x + item.width)
          : item.x - (previous.x + previous.width)
    let cell = cells[cells.length - 1]
    if (cell === undefined || gap > size * 1.2) {
      cell = { x: item.x, right: item.x + item.width, runs: [] }
      cells.push(cell)
    } else if (gap > size * 0.15 && !/\s$/.test(cell.runs.at(-1)?.text ?? "") && !/^\s/.test(item.text))
      pushRun(cell.runs, " ", cell.runs.at(-1)?.href)
    for (const word of linkedWords(item, links)) pushRun(cell.runs, word.text, word.href)
    cell.x = Math.min(cell.x, item.x)
    cell.right = Math.max(cell.right, item.x + item.width)
    previous = item
  }
  if (cells.length === 0) return undefined
  return {
    x: Math.min(...cells.map((cell) => cell.x)),
    right: Math.max(...cells.map((cell) => cell.right)),
    y: sorted[0]!.y,
    size,
    cells,
    text: cells
      .map((cell) =>
        cell.runs
          .map((run) => run.text)
          .join("")
          .trim(),
      )
      .join(" "),
  }
}

/** Items grouped into lines by baseline, top to bottom. */
const linesOf = (items: ReadonlyArray<TextItem>, links: ReadonlyArray<LinkArea>): Array<Line> => {
  const rows: Array<{ y: number; size: number; items: Array<TextItem> }> = []
  for (const item of [...items].sort((a, b) => b.y - a.y || a.x - b.x)) {
    const row = rows.find((candidate) => Math.abs(candidate.y - item.y) <= Math.max(candidate.size, item.size) * 0.35)
    if (row === undefined) rows.push({ y: item.y, size: item.size, items: [item] })
    else {
      row.items.push(item)
      row.size = Math.max(row.size, item.size)
    }
  }
  return rows
    .sort((a, b) => b.y - a.y)
    .map((row) => lineOf(row.items, links))
    .filter((line): line is Line => line !== undefined)
}

/** Whether an item that does not cross the gutter at `x` is in the column left of it (justified lines may end on it). */
const leftOf = (item: TextItem, x: number) => item.x + item.width / 2 < x

const topToBottom = (items: ReadonlyArray<TextItem>) => [...items].sort((a, b) => b.y - a.y)

/** Items (sorted top to bottom) grouped by the vertical bands that items crossing `x` leave between them. */
const bands = (topDown: ReadonlyArray<TextItem>, x: number) => {
  const crosses = (item: TextItem) => item.x < x - 1 && item.x + item.width > x + 1
  const segments: Array<{ spanning: boolean; items: Array<TextItem> }> = []
  for (const item of topDown) {
    const spanning = crosses(item)
    const last = segments[segments.length - 1]
    if (last !== undefined && last.spanning === spanning) last.items.push(item)
    else segments.push({ spanning, items: [item] })
  }
  return segments
}

/**
 * The x of a gutter between two columns: a vertical line in the middle of the page that some stretch of the page
 * has plenty of text on both sides of, with nothing crossing it there (a title or an abstract across the page above
 * the columns, or a footnote below them, may cross it). Undefined for a one-column page.
 */
const gutterOf = (items: ReadonlyArray<TextItem>, pageWidth: number): number | undefined => {
  // Sorted once for the ninety or so lines tried.
  const text = topToBottom(items.filter((item) => item.text.trim() !== ""))
  if (text.length < 20) return undefined
  const needed = Math.max(5, text.length * 0.15)
  let best: { x: number; score: number } | undefined
  for (let x = pageWidth * 0.35; x <= pageWidth * 0.65; x += 2) {
    for (const band of bands(text, x)) {
      if (band.spanning) continue
      const left = band.items.filter((item) => leftOf(item, x)).length
      const score = Math.min(left, band.items.length - left)
      if (score >= needed && (best === undefined || score > best.score)) best = { x, score }
    }
  }
  return best?.x
}

/**
 * Lines in the order the page's content stream draws them: consecutive items on one baseline make a line. Producers
 * mostly draw text in reading order (a column, then the next), which this keeps.
 */
const streamLines = (items: ReadonlyArray<TextItem>, links: ReadonlyArray<LinkArea>): Array<Line> => {
  const groups: Array<Array<TextItem>> = []
  for (const item of items) {
    const group = groups[groups.length - 1]
    const last = group?.[group.length - 1]
    // Superscripts (footnote marks) sit a little above the baseline and belong to their line.
    if (group !== undefined && last !== undefined && Math.abs(last.y - item.y) <= Math.max(last.size, item.size) * 0.5)
      group.push(item)
    else groups.push([item])
  }
  return groups.map((group) => lineOf(group, links)).filter((line): line is Line => line !== undefined)
}

/** Whether a stream's lines run down the page, column by column: few of them jump back up. */
const readsDown = (lines: ReadonlyArray<Line>) => {
  let jumps = 0
  for (let index = 1; index < lines.length; index++)
    if (lines[index]!.y > lines[index - 1]!.y + lines[index]!.size * 1.5) jumps++
  return jumps <= Math.max(3, lines.length * 0.05)
}

/** The page's lines in reading order: in a stretch set in two columns, the left column before the right. */
export const readingOrder = (
  items: ReadonlyArray<TextItem>,
  links: ReadonlyArray<LinkArea>,
  pageWidth: number,
): Array<Line> => {
  const stream = streamLines(items, links)
  if (readsDown(stream)) return stream
  const gutter = gutterOf(items, pageWidth)
  if (gutter === undefined) return linesOf(items, links)
  return bands(topToBottom(items), gutter).flatMap((band) =>
    band.spanning
      ? linesOf(band.items, links)
      : [
          ...linesOf(
            band.items.filter((item) => leftOf(item, gutter)),
            links,
          ),
          ...linesOf(
            band.items.filter((item) => !leftOf(item, gutter)),
            links,
          ),
        ],
  )
}
