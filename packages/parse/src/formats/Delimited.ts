/**
 * CSV and TSV, read with papaparse: the delimiter found among `,` `;` tab and `|` (TSV is always tab), quoted fields
 * keep their delimiters and line breaks, short rows are padded, and the first row is the header. Text is UTF-8 (a BOM
 * dropped) or, when the bytes are not valid UTF-8, Windows-1252, which is what spreadsheet applications write on
 * Western Windows systems; UTF-16 with a BOM is what Excel's "Unicode text" writes. At most `MAX_CELLS` cells are
 * given, then a note says how many rows were left out.
 */
import type { ParsedFile } from "@webdata/core/engine"
import Papa from "papaparse"
import { cellCost, MAX_CELLS, type TableCell, tableHtml } from "./Spreadsheet.js"

/** Most columns a row gives: a file of one endless line must not become one endless table row. */
const MAX_COLUMNS = 1_000

const decode = (bytes: Uint8Array): string => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes)
  try {
    // `ignoreBOM: false` consumes a leading BOM rather than returning it as text.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return new TextDecoder("windows-1252").decode(bytes)
  }
}

export const parseDelimited = async (bytes: Uint8Array, kind: "csv" | "tsv"): Promise<ParsedFile> => {
  const text = decode(bytes)
  const rows: Array<Array<string>> = []
  let cost = 0
  let total = 0
  let full = false
  // `step` sees the rows one at a time, so a huge file is counted without keeping what is left out.
  Papa.parse<Array<string>>(text, {
    delimiter: kind === "tsv" ? "\t" : "",
    delimitersToGuess: [",", ";", "\t", "|"],
    skipEmptyLines: "greedy",
    step: (result) => {
      const row = result.data.slice(0, MAX_COLUMNS).map((cell) => cell.trim())
      if (row.every((cell) => cell === "")) return
      total++
      if (full) return
      // A row costs its cells, their line breaks, and the row itself (see `MAX_CELLS`).
      const more = row.reduce((sum, cell) => sum + cellCost(cell), 1)
      if (cost + more > MAX_CELLS && rows.length > 0) full = true
      else {
        cost += more
        rows.push(row)
      }
    },
  })
  // Short rows are padded to the widest, and padding costs slots too: keep the rows that still fit.
  const width = Math.max(0, ...rows.map((row) => row.length))
  let padded = 0
  let kept = 0
  for (const row of rows) {
    const more = row.reduce((sum, cell) => sum + cellCost(cell) - 1, width + 1)
    if (padded + more > MAX_CELLS && kept > 0) break
    padded += more
    kept++
  }
  rows.length = kept
  const table: Array<Array<TableCell>> = rows.map((row) =>
    Array.from({ length: width }, (_, column) => ({ text: row[column] ?? "" })),
  )
  const note =
    rows.length < total
      ? `<p>The first ${rows.length} of ${total} rows are shown; the other ${total - rows.length} are left out.</p>`
      : ""
  return { pages: [tableHtml(table) + note] }
}
