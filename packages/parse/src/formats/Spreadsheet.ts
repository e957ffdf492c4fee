/**
 * Spreadsheets (XLSX, XLSM, XLSB, XLS, ODS), read with the SheetJS Community Edition 0.20.3 as republished unchanged
 * on npm by `@e965/xlsx`. The `xlsx` package on npm is frozen at 0.18.5, which has two published advisories (prototype
 * pollution, CVE-2023-30533; ReDoS, CVE-2024-22363), both fixed by 0.20.2; SheetJS distributes newer releases only
 * from its own CDN, not the npm registry. It is also the only maintained JavaScript reader of legacy XLS (BIFF), XLSB
 * and ODS.
 *
 * Each visible sheet becomes `<h2>name</h2>` and a table of the values as the sheet shows them: the formatted text
 * (dates, percentages and formula results read as in the application; formulas by their cached results), merged
 * cells as spans. Only the cells that exist are visited, never the declared range (`!ref`, `<dimension>`), which a
 * file can set to a billion cells; rows and columns without a value are left out. A file gives at most `MAX_CELLS`
 * cells, then a note says the rest was left out.
 */

import { type CellObject, read, set_cptable, type WorkBook, type WorkSheet } from "@e965/xlsx"
import type { ParsedFile } from "@webdata/core/engine"
import { Parser } from "htmlparser2"
import { parseFailed } from "../Failures.js"
import { escapeHtml } from "../Xml.js"
import { openZip, type ZipArchive } from "../Zip.js"
import { officeProperties } from "./OfficeProperties.js"

/**
 * Legacy XLS stores some text in the workbook's code page (Windows-1251, Shift-JIS, ...), which needs SheetJS's code
 * page tables; they take longer to load than the rest of SheetJS, so only a legacy file loads them.
 */
let codepages: Promise<void> | undefined
const loadCodepages = () => {
  codepages ??= import("@e965/xlsx/dist/cpexcel.full.mjs").then((tables) => set_cptable(tables))
  return codepages
}

/**
 * Most table elements one file gives: cells (filled or not), rows, and line breaks in cells. The content pipeline keeps
 * the first 150 000 elements of a page and cuts the rest silently; staying below it leaves room for the note that
 * says what was left out.
 */
export const MAX_CELLS = 100_000

/** What a cell's text costs in elements: the cell and its line breaks. */
export const cellCost = (text: string): number => {
  let cost = 1
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) cost++
  return cost
}

export interface TableCell {
  readonly text: string
  readonly colspan?: number
  readonly rowspan?: number
}

/**
 * Rows of cells as an HTML table, the first row as the header. Cells covered by another's span are absent from
 * `rows`, as in HTML. Line breaks in a cell become `<br>`.
 */
export const tableHtml = (rows: ReadonlyArray<ReadonlyArray<TableCell>>): string => {
  if (rows.length === 0) return ""
  const row = (cells: ReadonlyArray<TableCell>, tag: "th" | "td") =>
    `<tr>${cells
      .map((cell) => {
        const spans = `${(cell.colspan ?? 1) > 1 ? ` colspan="${cell.colspan}"` : ""}${(cell.rowspan ?? 1) > 1 ? ` rowspan="${cell.rowspan}"` : ""}`
        return `<${tag}${spans}>${escapeHtml(cell.text).replace(/\r?\n/g, "<br>")}</${tag}>`
      })
      .join("")}</tr>`
  const [head, ...body] = rows
  return `<table><thead>${row(head!, "th")}</thead><tbody>${body.map((cells) => row(cells, "td")).join("")}</tbody></table>`
}

const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
/** Legacy XLS (and an encrypted XLSX) is an OLE2 compound file. */
const isCompound = (bytes: Uint8Array) =>
  bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0

const isoDate = (date: Date) => {
  const iso = date.toISOString()
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19).replace("T", " ")
}

/**
 * What the cell shows. A date in the generic short-date format (Excel's format 14, which the application shows in
 * the reader's locale, and which SheetJS writes as `m/d/yy`) or without a format is written as an ISO date instead.
 */
const cellText = (cell: CellObject | undefined | null): string => {
  if (cell === undefined || cell === null || cell.v === undefined || cell.v === null) return ""
  if (cell.t === "d" && cell.v instanceof Date && !Number.isNaN(cell.v.getTime()))
    return cell.w === undefined || /^\d{1,2}\/\d{1,2}\/\d{2}$/.test(cell.w) ? isoDate(cell.v) : cell.w
  if (cell.w !== undefined) return cell.w
  return String(cell.v)
}

interface Filled {
  readonly r: number
  readonly c: number
  readonly text: string
}

/** The index of `value` in the sorted `values`, or where it would go. */
const lowerBound = (values: ReadonlyArray<number>, value: number) => {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (values[middle]! < value) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The sheet's filled cells, at most `budget` of them. Dense sheets keep rows as (sparse) arrays: `forEach` skips the
 * holes, so a cell in the last row costs one visit, not a million.
 */
const filledCells = (sheet: WorkSheet, budget: number): { cells: Array<Filled>; breaks: number; cut: boolean } => {
  const cells: Array<Filled> = []
  let cost = 0
  let cut = false
  const rows = (sheet["!data"] ?? []) as Array<Array<CellObject | null | undefined> | null | undefined>
  rows.forEach((row, r) => {
    if (cut || row === null || row === undefined) return
    row.forEach((cell, c) => {
      if (cut) return
      const text = cellText(cell).trim()
      if (text === "") return
      const more = cellCost(text)
      if (cost + more > budget) cut = true
      else {
        cost += more
        cells.push({ r, c, text })
      }
    })
  })
  return { cells, breaks: cost - cells.length, cut }
}

/** A sheet's cells as a table: empty rows and columns left out, merged ranges as spans over what is kept. */
const sheetTable = (sheet: WorkSheet, budget: number): { html: string; used: number; cut: boolean } => {
  const { cells, breaks, cut: overBudget } = filledCells(sheet, budget)
  let rows = [...new Set(cells.map((cell) => cell.r))].sort((a, b) => a - b)
  const columns = [...new Set(cells.map((cell) => cell.c))].sort((a, b) => a - b)
  // The table has a slot for every kept row and column, filled or not: a few cells spread over a wide area cost
  // as much as a full table of that size, so only the rows that fit the budget are kept.
  const width = columns.length + 1
  const fit = Math.max(0, Math.floor((budget - breaks) / width))
  const cut = overBudget || rows.length > fit
  rows = rows.slice(0, fit)
  if (rows.length === 0) return { html: "", used: 0, cut }
  const lastRow = rows[rows.length - 1]!
  const grid: Array<Array<TableCell | undefined | null>> = rows.map(() => Array(columns.length).fill(undefined))
  for (const cell of cells) {
    if (cell.r > lastRow) break
    grid[lowerBound(rows, cell.r)]![lowerBound(columns, cell.c)] = { text: cell.text }
  }
  // Merged ranges must not overlap, but a hostile file's may: each slot is visited once at most, in all.
  let visits = grid.length * columns.length
  for (const merge of sheet["!merges"] ?? []) {
    const top = lowerBound(rows, merge.s.r)
    const left = lowerBound(columns, merge.s.c)
    const value = grid[top]?.[left]
    // Only the top-left cell of a merged range holds a value; a range whose first row or column is gone spans nothing.
    if (rows[top] !== merge.s.r || columns[left] !== merge.s.c || value === undefined || value === null) continue
    // A span from the header row stays in it: HTML spans do not cross from `thead` into `tbody`.
    const bottom = top === 0 ? 1 : lowerBound(rows, merge.e.r + 1)
    const right = lowerBound(columns, merge.e.c + 1)
    visits -= (bottom - top) * (right - left)
    if (visits < 0) break
    for (let r = top; r < bottom; r++) for (let c = left; c < right; c++) grid[r]![c] = null
    grid[top]![left] = { text: value.text, colspan: right - left, rowspan: bottom - top }
  }
  const table = grid.map((row) =>
    row.filter((cell): cell is TableCell | undefined => cell !== null).map((cell) => cell ?? { text: "" }),
  )
  const titles = leadingTitles(table, columns.length)
  const body = withoutEmptyColumns(table.slice(titles.length))
  const html = titles.map((title) => `<p>${escapeHtml(title)}</p>`).join("") + tableHtml(body)
  return { html, used: rows.length * width + breaks, cut }
}

/** Rows without the columns no cell fills (the columns of titles taken out of the table); rows with spans as they are. */
const withoutEmptyColumns = (
  rows: ReadonlyArray<ReadonlyArray<TableCell>>,
): ReadonlyArray<ReadonlyArray<TableCell>> => {
  if (rows.some((row) => row.some((cell) => (cell.colspan ?? 1) > 1 || row.length !== rows[0]!.length))) return rows
  const filled = (rows[0] ?? []).map((_, column) => rows.some((row) => row[column]!.text !== ""))
  return filled.every(Boolean) ? rows : rows.map((row) => row.filter((_, column) => filled[column]))
}

/**
 * The text of the rows above a table that hold one cell only (a sheet's title, often merged across the table):
 * they are written as paragraphs, not as the table's header row. The table keeps at least two rows.
 */
const leadingTitles = (table: ReadonlyArray<ReadonlyArray<TableCell>>, width: number): Array<string> => {
  const titles: Array<string> = []
  if (width < 2) return titles
  for (const row of table) {
    const filled = row.filter((cell) => cell.text !== "")
    if (filled.length !== 1 || (filled[0]!.rowspan ?? 1) > 1 || table.length - titles.length <= 2) break
    titles.push(filled[0]!.text)
  }
  return titles
}

/**
 * Most cells an ODS may expand to. A cell (or row) can say it repeats a million times, and SheetJS builds every
 * copy: a few hundred bytes would ask for billions of cells and gigabytes.
 */
const MAX_EXPANDED_CELLS = 2_000_000

const repeats = (value: string | undefined) => Math.max(1, Number.parseInt(value ?? "1", 10) || 1)

/**
 * ODS, before SheetJS sees it: the cells its repeats expand to (too many fails the file), and the hidden sheets,
 * which SheetJS does not report (their table style has `table:display="false"`). A streaming pass: the content of a
 * large workbook is not worth a tree.
 */
const scanOds = async (zip: ZipArchive): Promise<Set<string>> => {
  const hidden = new Set<string>()
  const content = await zip.text("content.xml")
  if (content === undefined) return hidden
  const hiddenStyles = new Set<string>()
  let style: string | undefined
  let expanded = 0
  let rowRepeats = 1
  let rowCells = 0
  let cell: { repeats: number; filled: boolean } | undefined
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        if (name === "table:table-cell" || name === "table:covered-table-cell")
          cell = {
            repeats: repeats(attributes["table:number-columns-repeated"]),
            filled: attributes["office:value-type"] !== undefined,
          }
        else if (cell !== undefined) cell.filled = true
        else if (name === "table:table-row") {
          rowRepeats = repeats(attributes["table:number-rows-repeated"])
          rowCells = 0
        } else if (name === "style:style")
          style = attributes["style:family"] === "table" ? attributes["style:name"] : undefined
        else if (name === "style:table-properties" && style !== undefined && attributes["table:display"] === "false")
          hiddenStyles.add(style)
        else if (name === "table:table" && hiddenStyles.has(attributes["table:style-name"] ?? ""))
          hidden.add(attributes["table:name"] ?? "")
      },
      onclosetag: (name) => {
        if ((name === "table:table-cell" || name === "table:covered-table-cell") && cell !== undefined) {
          // Empty repeated cells (formatting to the sheet's edge) are not built; only filled ones count.
          if (cell.filled) rowCells += cell.repeats
          cell = undefined
        } else if (name === "table:table-row") {
          expanded += rowRepeats * rowCells
          if (expanded > MAX_EXPANDED_CELLS)
            throw parseFailed(`The workbook's repeated cells expand to more than ${MAX_EXPANDED_CELLS} cells.`)
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  )
  parser.end(content)
  return hidden
}

const hiddenSheets = (workbook: WorkBook): Set<string> =>
  new Set(
    (workbook.Workbook?.Sheets ?? []).filter((sheet) => (sheet.Hidden ?? 0) !== 0).map((sheet) => sheet.name ?? ""),
  )

/** Legacy files keep their properties in the compound file's summary streams; unset dates read as 1601. */
const legacyProperties = (workbook: WorkBook): { title?: string; properties: Record<string, string> } => {
  const props = workbook.Props ?? {}
  const properties: Record<string, string> = {}
  const text = (key: string, value: unknown) => {
    if (typeof value === "string" && value.trim() !== "") properties[key] = value.trim()
  }
  const date = (key: string, value: unknown) => {
    const parsed = value instanceof Date ? value : typeof value === "string" ? new Date(value) : undefined
    if (parsed !== undefined && parsed.getUTCFullYear() > 1900) properties[key] = parsed.toISOString()
  }
  text("author", props.Author)
  text("subject", props.Subject)
  text("keywords", props.Keywords)
  date("created", props.CreatedDate)
  date("modified", props.ModifiedDate)
  const title = props.Title?.trim()
  return { ...(title ? { title } : {}), properties }
}

/** SheetJS writes format quirks to the console (`ODS number format may be incorrect`); they are not the caller's. */
const quietly = <A>(run: () => A): A => {
  const error = console.error
  console.error = () => {}
  try {
    return run()
  } finally {
    console.error = error
  }
}

const LEFT_OUT = `<p>The workbook is larger than the ${MAX_CELLS} cells read from it: the rest of this sheet and the sheets after it are left out.</p>`

export const parseSpreadsheet = async (bytes: Uint8Array): Promise<ParsedFile> => {
  // SheetJS reads anything else as text (CSV, SYLK, HTML): a damaged workbook must fail, not become its bytes.
  if (!isZip(bytes) && !isCompound(bytes)) throw parseFailed("The workbook is damaged or not a workbook.")
  let zip: ZipArchive | undefined
  if (isZip(bytes)) {
    zip = await openZip(bytes)
    // Every entry through the guard first: SheetJS inflates entries whole, trusting their headers.
    for (const name of zip.names) await zip.read(name)
  }
  const hidden = zip?.names.includes("content.xml") ? await scanOds(zip) : new Set<string>()
  if (isCompound(bytes)) await loadCodepages()
  let workbook: WorkBook
  try {
    workbook = quietly(() =>
      read(bytes, {
        type: "array",
        dense: true,
        cellDates: true,
        cellFormula: false,
        cellHTML: false,
        cellStyles: false,
        cellNF: false,
        bookVBA: false,
        bookDeps: false,
        bookFiles: false,
        sheetStubs: false,
      }),
    )
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw parseFailed(
      /password|encrypt/i.test(message)
        ? "The workbook is encrypted with a password."
        : `The workbook is damaged: ${message}`,
    )
  }
  for (const name of hiddenSheets(workbook)) hidden.add(name)
  let budget = MAX_CELLS
  const sections: Array<string> = []
  for (const name of workbook.SheetNames) {
    const sheet = workbook.Sheets[name]
    // Chart sheets have no cells; hidden sheets are lookups and scratch space the author chose not to show.
    if (sheet === undefined || hidden.has(name) || sheet["!type"] === "chart") continue
    if (budget <= 0) {
      sections.push(LEFT_OUT)
      break
    }
    const { html, used, cut } = sheetTable(sheet, budget)
    // The heading, table and row groups are elements too.
    budget -= used + 4
    if (html !== "") sections.push(`<h2>${escapeHtml(name)}</h2>${html}`)
    if (cut) {
      sections.push(LEFT_OUT)
      break
    }
  }
  const { title, properties } = zip !== undefined ? await officeProperties(zip) : legacyProperties(workbook)
  return {
    pages: [sections.join("\n")],
    ...(title !== undefined ? { title } : {}),
    properties,
  }
}
