/**
 * Tables: a data table becomes a GFM table (a grid: `colspan` and `rowspan` hold their columns, so no cell moves
 * left); a layout table (one cell, one column, or cells holding headings, lists, code, quotes or further tables, none of
 * which a GFM cell can hold) is not a table to its reader, and its cells are written as the blocks they are.
 */
import type { ChildNode } from "domhandler"
import { attr, type Element, isTag } from "../Dom.js"

const isCell = (node: ChildNode): boolean => isTag(node) && (node.name === "th" || node.name === "td")

/**
 * The cells of each row of a table that has any, not of the tables nested in it. Cells outside a `<tr>` (`<thead>`
 * holding `<td>`s directly) make a row of their own, as browsers lay them out.
 */
export const tableRows = (table: Element): Array<Array<Element>> => {
  const rows: Array<Array<Element>> = []
  const visit = (parent: Element) => {
    let loose: Array<Element> = []
    for (const child of parent.children) {
      if (!isTag(child)) continue
      if (isCell(child)) {
        loose.push(child)
        continue
      }
      if (loose.length > 0) rows.push(loose)
      loose = []
      if (child.name === "tr") rows.push(child.children.filter(isCell) as Array<Element>)
      else if (child.name !== "table") visit(child)
    }
    if (loose.length > 0) rows.push(loose)
  }
  visit(table)
  return rows.filter((cells) => cells.length > 0)
}

/** Content no GFM cell can hold. */
const BLOCK_CONTENT = new Set([
  "table",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "pre",
  "blockquote",
  "hr",
])

const holdsBlocks = (cell: Element): boolean => {
  let paragraphs = 0
  const visit = (element: Element): boolean => {
    for (const child of element.children) {
      if (!isTag(child)) continue
      if (BLOCK_CONTENT.has(child.name)) return true
      if (child.name === "p" && ++paragraphs > 1) return true
      if (visit(child)) return true
    }
    return false
  }
  return visit(cell)
}

/** One column without header cells, or any cell holding blocks: the table lays out the page. */
export const isLayoutTable = (rows: ReadonlyArray<ReadonlyArray<Element>>): boolean =>
  (rows.every((cells) => cells.length <= 1) && !rows.some((cells) => cells.some((cell) => cell.name === "th"))) ||
  rows.some((cells) => cells.some(holdsBlocks))

const span = (cell: Element, name: string) =>
  Math.max(1, Math.min(100, Number.parseInt(attr(cell, name) ?? "1", 10) || 1))

/** A grid larger than this (rows × columns) is not laid out: spans on a hostile page could ask for billions. */
const MAX_SLOTS = 4_000_000

/**
 * The cells' text laid on a grid: a spanned slot is empty, a cell starts in the first free slot of its row. Undefined
 * when the grid would be larger than `MAX_SLOTS`.
 */
const grid = (
  rows: ReadonlyArray<ReadonlyArray<Element>>,
  text: (cell: Element) => string,
): Array<Array<string>> | undefined => {
  let columns = 1
  for (const cells of rows) {
    let width = 0
    for (const cell of cells) width += span(cell, "colspan")
    columns = Math.max(columns, width)
  }
  // Rowspans can push a row wider than its own cells, by at most the widest row.
  if (rows.length * columns * 2 > MAX_SLOTS) return undefined
  const slots: Array<Array<string | undefined>> = rows.map(() => [])
  rows.forEach((cells, r) => {
    const row = slots[r]!
    let column = 0
    for (const cell of cells) {
      while (row[column] !== undefined) column++
      const across = span(cell, "colspan")
      const down = Math.min(span(cell, "rowspan"), rows.length - r)
      for (let dr = 0; dr < down; dr++)
        for (let dc = 0; dc < across; dc++) slots[r + dr]![column + dc] = dr === 0 && dc === 0 ? text(cell) : ""
      column += across
    }
  })
  let width = 1
  for (const row of slots) width = Math.max(width, row.length)
  return slots.map((row) => Array.from({ length: width }, (_, c) => row[c] ?? ""))
}

const ALIGNMENT = new Map([
  ["left", ":-- |"],
  ["center", ":-: |"],
  ["right", "--: |"],
])

/** A column's alignment from its header cell's `align` or `text-align` style. */
const alignment = (cell: Element | undefined): string => {
  if (cell === undefined) return " --- |"
  const align = attr(cell, "align") ?? /text-align\s*:\s*(left|center|right)/i.exec(attr(cell, "style") ?? "")?.[1]
  return ALIGNMENT.get(align?.toLowerCase() ?? "") ?? " --- |"
}

/**
 * A GFM table of the rows; the first row with text is the header (GFM requires one), rows without text are left
 * out. `text` renders a cell inline. Undefined for a table too large to lay out (its cells are then written as blocks).
 */
export const gfmTable = (
  rows: ReadonlyArray<ReadonlyArray<Element>>,
  text: (cell: Element) => string,
): string | undefined => {
  const cells = grid(rows, (cell) => text(cell).replace(/\s+/g, " ").replace(/\|/g, "\\|"))
  if (cells === undefined) return undefined
  const kept = cells.map((row, r) => ({ row, r })).filter(({ row }) => row.some((cell) => cell !== ""))
  if (kept.length === 0) return ""
  const line = (row: ReadonlyArray<string>) => `|${row.map((cell) => (cell === "" ? " |" : ` ${cell} |`)).join("")}`
  const [header, ...body] = kept
  const headerCells = rows[header!.r]!
  const delimiter = `|${header!.row.map((_, c) => alignment(headerCells[c])).join("")}`
  return [line(header!.row), delimiter, ...body.map(({ row }) => line(row))].join("\n")
}
