/** Rows of cells as an HTML table, the first row as its header; ragged rows are padded. */
import { escapeHtml } from "../Xml.js"

export const tableHtml = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  if (rows.length === 0) return ""
  const width = Math.max(...rows.map((row) => row.length))
  const cells = (row: ReadonlyArray<string>, tag: "th" | "td") =>
    `<tr>${Array.from({ length: width }, (_, index) => `<${tag}>${escapeHtml(row[index] ?? "").replace(/\r?\n/g, "<br>")}</${tag}>`).join("")}</tr>`
  const [head, ...body] = rows
  return `<table><thead>${cells(head!, "th")}</thead><tbody>${body.map((row) => cells(row, "td")).join("")}</tbody></table>`
}

/** Most cells one file's tables give; the rest is left out with a note. */
export const MAX_CELLS = 200_000
