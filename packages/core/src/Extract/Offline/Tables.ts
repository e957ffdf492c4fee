/**
 * Key/value pairs laid out as markup: two-column spec tables (`<th>Weight</th><td>1.2 kg</td>`), a header row over a
 * single row of values, definition lists (`<dt>`/`<dd>`), and label/value element pairs
 * (`<span class="label">Color</span><span class="value">Red</span>`). They all go into one page-level item, first
 * occurrence first. Tables with a header row and several rows also give one item per row, for schemas that ask for
 * a list of objects. Blocks aside (related products, sidebars) are not read.
 */
import { isTag } from "domhandler"
import { addValue, type Budget, type Item, newItem } from "./Candidates.js"
import { childElements, classWords, type Element, type Page, textOf } from "./Html.js"

const MAX_TABLES = 200
const MAX_ROWS = 500
/** A label is short; a longer first cell is content, not a key. */
const MAX_LABEL_CHARS = 60

const LABEL_CLASSES = new Set(["label", "key", "term", "name", "attribute", "attr", "property", "spec-name"])
const VALUE_CLASSES = new Set(["value", "val", "data", "detail", "spec-value"])

const isLabel = (text: string): boolean => text !== "" && text.length <= MAX_LABEL_CHARS && /\p{L}/u.test(text)

/** A cell's values: one per list item when it holds a list, else its text. */
const cellValues = (cell: Element): Array<string> => {
  const items = cell.children.length > 0 ? listItems(cell) : []
  if (items.length > 0) return items
  const text = textOf(cell)
  return text === "" ? [] : [text]
}

const listItems = (cell: Element): Array<string> =>
  childElements(cell)
    .filter((child) => child.name === "ul" || child.name === "ol")
    .flatMap((list) => childElements(list).filter((child) => child.name === "li"))
    .map((li) => textOf(li))
    .filter((text) => text !== "")

/** The table's own rows (not those of tables nested in its cells). */
const rowsOf = (table: Element): Array<Element> => {
  const rows: Array<Element> = []
  for (const child of childElements(table)) {
    if (child.name === "tr") rows.push(child)
    else if (child.name === "thead" || child.name === "tbody" || child.name === "tfoot")
      for (const row of childElements(child)) if (row.name === "tr") rows.push(row)
    if (rows.length >= MAX_ROWS) break
  }
  return rows
}

const cellsOf = (row: Element): Array<Element> =>
  childElements(row).filter((cell) => cell.name === "td" || cell.name === "th")

const inHead = (row: Element): boolean => row.parent !== null && isTag(row.parent) && row.parent.name === "thead"

const readTable = (table: Element, pairs: Item, rows: Array<Item>, budget: Budget) => {
  const ownRows = rowsOf(table)
  const tableRows = ownRows.map(cellsOf)
  const header = tableRows[0]
  const isHeader =
    header !== undefined && header.length >= 2 && (header.every((cell) => cell.name === "th") || inHead(ownRows[0]!))
  if (isHeader) {
    const names = header.map((cell) => textOf(cell))
    const body = tableRows.slice(1).filter((cells) => cells.length === names.length)
    for (const cells of body) {
      const order = budget.take()
      if (order === undefined) break
      const row = newItem("table", [], order, 0)
      cells.forEach((cell, index) => {
        for (const value of cellValues(cell)) addValue(row, names[index]!, value)
      })
      rows.push(row)
    }
    if (body.length === 1)
      body[0]!.forEach((cell, index) => {
        for (const value of cellValues(cell)) addValue(pairs, names[index]!, value)
      })
    // A two-column table under a header ("Spec | Value") is still a list of pairs.
    if (names.length !== 2) return
  }
  for (const cells of isHeader ? tableRows.slice(1) : tableRows) {
    if (cells.length !== 2) continue
    const label = textOf(cells[0]!)
    if (isLabel(label)) for (const value of cellValues(cells[1]!)) addValue(pairs, label, value)
  }
}

const readDefinitions = (list: Element, pairs: Item) => {
  let labels: Array<string> = []
  let reading = false
  // `<div>` wrappers around dt/dd groups are allowed.
  const terms = childElements(list).flatMap((child) => (child.name === "div" ? childElements(child) : [child]))
  for (const term of terms) {
    if (term.name === "dt") {
      if (reading) labels = []
      reading = false
      const label = textOf(term)
      if (isLabel(label)) labels.push(label)
    } else if (term.name === "dd") {
      reading = true
      for (const label of labels) for (const value of cellValues(term)) addValue(pairs, label, value)
    }
  }
}

const hasClass = (element: Element, classes: ReadonlySet<string>): boolean =>
  classWords(element).some((word) => classes.has(word))

const readLabelPair = (element: Element, pairs: Item) => {
  const children = childElements(element)
  if (children.length !== 2) return
  const [label, value] = children as [Element, Element]
  if (!hasClass(label, LABEL_CLASSES) || !hasClass(value, VALUE_CLASSES)) return
  const text = textOf(label).replace(/:\s*$/, "")
  if (isLabel(text)) for (const each of cellValues(value)) addValue(pairs, text, each)
}

export interface TableFindings {
  /** Every pair, as one item. */
  readonly pairs: Item
  /** One item per body row of tables with a header row. */
  readonly rows: ReadonlyArray<Item>
}

export const readTables = (page: Page, budget: Budget): TableFindings => {
  const pairs = newItem("table", [], budget.take() ?? 0, 0)
  const rows: Array<Item> = []
  let tables = 0
  for (const { element, aside } of page.elements) {
    if (aside) continue
    if (element.name === "table" && tables++ < MAX_TABLES) readTable(element, pairs, rows, budget)
    else if (element.name === "dl") readDefinitions(element, pairs)
    else if (element.children.length <= 5) readLabelPair(element, pairs)
  }
  return { pairs, rows }
}
