/**
 * DOM → markdown with turndown: ATX headings, `-` bullets, fenced code with its language, GFM tables (our own
 * rules: the GFM plugin reads `table.rows`, which linkedom lacks) and strikethrough.
 */
import TurndownService from "turndown"
import { fence } from "./TextToMarkdown.js"

const LANGUAGE = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)/i

const codeLanguage = (pre: Element): string => {
  const code = pre.querySelector("code")
  for (const element of [code, pre]) {
    if (element === null) continue
    const data = element.getAttribute("data-lang") ?? element.getAttribute("data-language")
    if (data) return data.trim()
    const match = LANGUAGE.exec(element.getAttribute("class") ?? "")
    if (match?.[1]) return match[1]
  }
  return ""
}

const rowsOf = new WeakMap<Element, Array<Element>>()
/** The rows of a table, not of the tables nested in it. */
const tableRows = (table: Element): Array<Element> => {
  let rows = rowsOf.get(table)
  if (rows === undefined) {
    rows = Array.from(table.querySelectorAll("tr")).filter((row) => row.closest("table") === table)
    rowsOf.set(table, rows)
  }
  return rows
}

const cellsOf = (row: Element) =>
  Array.from(row.children).filter((cell) => cell.tagName === "TH" || cell.tagName === "TD")
const span = (cell: Element) =>
  Math.max(1, Math.min(100, Number.parseInt(cell.getAttribute("colspan") ?? "1", 10) || 1))
const width = (row: Element) => cellsOf(row).reduce((total, cell) => total + span(cell), 0)

/** GFM needs a header row: the first row of every table is one, followed by the separator. */
const isHeaderRow = (row: Element): boolean => {
  const table = row.closest("table")
  return table !== null && tableRows(table)[0] === row
}

const makeService = (): TurndownService => {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    hr: "---",
    emDelimiter: "*",
    strongDelimiter: "**",
  })
  service.addRule("fencedCode", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) =>
      `\n\n${fence((node as HTMLElement).textContent ?? "", codeLanguage(node as Element))}\n\n`,
  })
  service.addRule("strikethrough", {
    filter: ["del", "s", "strike" as keyof HTMLElementTagNameMap],
    replacement: (content) => (content.trim() === "" ? content : `~~${content}~~`),
  })
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content, node) => {
      const text = content.replace(/\n+/g, " ").replace(/\|/g, "\\|").replace(/\s+/g, " ").trim()
      const element = node as Element
      const first = element.parentElement !== null && cellsOf(element.parentElement)[0] === element
      return `${first ? "| " : " "}${text} |${" |".repeat(span(element) - 1)}`
    },
  })
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      const row = node as Element
      if (cellsOf(row).length === 0) return ""
      const line = `\n${content.trim()}`
      if (!isHeaderRow(row)) return line
      const table = row.closest("table")!
      const columns = Math.max(...tableRows(table).map(width), 1)
      const padded = `${line}${" |".repeat(Math.max(0, columns - width(row)))}`
      return `${padded}\n|${" --- |".repeat(columns)}`
    },
  })
  service.addRule("tableSection", {
    filter: ["thead", "tbody", "tfoot"],
    replacement: (content) => content,
  })
  service.addRule("table", {
    filter: "table",
    replacement: (content) => `\n\n${content.replace(/\n+/g, "\n").trim()}\n\n`,
  })
  service.addRule("emptyLink", {
    filter: (node) =>
      node.nodeName === "A" && (node.textContent ?? "").trim() === "" && node.querySelector("img") === null,
    replacement: () => "",
  })
  service.addRule("skipLink", {
    filter: (node) =>
      node.nodeName === "A" &&
      (node.getAttribute("href") ?? "").startsWith("#") &&
      /^\s*skip to (main )?content\s*$/i.test(node.textContent ?? ""),
    replacement: () => "",
  })
  return service
}

let shared: TurndownService | undefined

/** Tidies turndown's output: no trailing spaces, at most one blank line in a row. */
const tidy = (markdown: string) =>
  markdown
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

/**
 * Markdown of `root`, which it consumes: turndown deep-copies its input before normalising whitespace, and on
 * linkedom node creation is the single largest cost, so the copy is skipped by letting the root clone to itself.
 */
export const toMarkdown = (root: Element): string => {
  shared ??= makeService()
  Object.defineProperty(root, "cloneNode", { value: () => root, configurable: true })
  return tidy(shared.turndown(root as unknown as HTMLElement))
}
