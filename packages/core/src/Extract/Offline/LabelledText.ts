/**
 * Values the visible text labels, for pages without structured data:
 *
 * - labelled lines: "Price: $19.99", "<strong>Brand:</strong> Acme", "SKU: AB-123 | Brand: Acme";
 * - bylines: `rel=author` links and `author`/`byline` elements ("By Jane Doe");
 * - lists under a heading ("Ingredients" then a `<ul>`) or in an element whose class names them (`class="tags"`);
 * - short elements whose class names the value (`<span class="price">$19.99</span>`, `class="product-sku"`);
 * - the first `<time datetime>`.
 *
 * Everything goes into one page-level item (source "text"), first occurrence first; blocks aside (related products,
 * comments, sidebars) are not read. Lines and elements read are bounded.
 */
import { type ChildNode, isTag, isText } from "domhandler"
import { addValue, type Item, newItem, normalKey } from "./Candidates.js"
import { attr, BLOCKS, childElements, classWords, collapse, type Element, hasAttr, type Page, textOf } from "./Html.js"

const MAX_LINES = 20_000
const MAX_LINE_CHARS = 400
const MAX_LABEL_WORDS = 5
const MAX_VALUE_CHARS = 300
/** A value labelled by its element's class is short: a price, a code, a name. */
const MAX_CLASS_VALUE_CHARS = 80

/** Separators between pairs on one line. */
const PAIR_SEPARATOR = /\s+[|·•]\s+/
const LABELLED = /^([^:：]{1,40})[:：]\s*(.+)$/s

/** Keys a class names (after leading entity words): `class="price"`, `class="product-sku"`, `class="prep-time"`. */
const CLASS_KEYS = new Set([
  "price",
  "sale price",
  "current price",
  "sku",
  "brand",
  "availability",
  "stock",
  "rating",
  "venue",
  "location",
  "salary",
  "company",
  "employer",
  "servings",
  "yield",
  "calories",
  "prep time",
  "cook time",
  "total time",
  "employment type",
  "job type",
  "start date",
  "end date",
])
const ENTITY_WORDS = new Set(["product", "item", "event", "job", "recipe", "article", "post", "listing", "offer"])
/** Class names of lists worth reading whole. */
const LIST_CLASSES = new Set([
  "ingredients",
  "ingredient",
  "instructions",
  "directions",
  "steps",
  "method",
  "tags",
  "keywords",
  "categories",
  "topics",
])
const HEADINGS = new Set(["h2", "h3", "h4", "h5", "h6"])
const BYLINE_PREFIX = /^(?:(?:written|posted|published|words)\s+)?by\s+/i

const addPair = (item: Item, label: string, value: string) => {
  const words = normalKey(label).split(" ")
  if (words.length > MAX_LABEL_WORDS || /^https?$/i.test(label.trim())) return
  const text = collapse(value)
  if (text !== "" && text.length <= MAX_VALUE_CHARS) addValue(item, label, text)
}

const readLine = (item: Item, line: string) => {
  if (line.length > MAX_LINE_CHARS) return
  for (const segment of line.split(PAIR_SEPARATOR)) {
    const match = LABELLED.exec(segment)
    if (match !== null && /\p{L}/u.test(match[1]!)) addPair(item, match[1]!, match[2]!)
  }
}

/** The block's own lines: its inline content, broken at `<br>` and at child blocks (read as blocks of their own). */
const linesOf = (block: Element): Array<string> => {
  const lines: Array<string> = []
  let current = ""
  const flush = () => {
    const line = collapse(current)
    if (line !== "") lines.push(line)
    current = ""
  }
  for (const child of block.children as Array<ChildNode>) {
    if (isText(child)) current += child.data
    else if (isTag(child)) {
      if (child.name === "br" || BLOCKS.has(child.name)) flush()
      else current += ` ${textOf(child, MAX_LINE_CHARS * 2)} `
    }
    if (current.length > MAX_LINE_CHARS * 2) flush()
  }
  flush()
  return lines
}

const bylineOf = (element: Element): string | undefined => {
  const text = textOf(element, 200).replace(BYLINE_PREFIX, "")
  // "Jane Doe · March 5, 2025": the name is the first part.
  const name = text.split(/\s+(?:[|·•—–-]|on)\s+|,\s*(?=\p{Lu}\p{Ll}+\s+\d)/u)[0]?.trim() ?? ""
  return name !== "" && name.length <= 60 && name.split(" ").length <= 6 && !/\d{4}/.test(name) ? name : undefined
}

/** The list right after a heading (or inside the element right after it). */
const listAfter = (heading: Element): Element | undefined => {
  let next = heading.nextSibling
  while (next !== null && !isTag(next)) next = next.nextSibling
  if (next === null) return undefined
  if (next.name === "ul" || next.name === "ol") return next
  const first = childElements(next)[0]
  return first !== undefined && (first.name === "ul" || first.name === "ol") ? first : undefined
}

const listValues = (list: Element): Array<string> => {
  const items = childElements(list).filter((child) => child.name === "li")
  const texts = items.length > 0 ? items : list.name === "ul" || list.name === "ol" ? [] : linksOf(list)
  return texts.map((each) => textOf(each, MAX_VALUE_CHARS)).filter((text) => text !== "")
}

const linksOf = (element: Element): Array<Element> => {
  const links: Array<Element> = []
  const stack: Array<ChildNode> = [...element.children]
  for (let node = stack.pop(); node !== undefined && links.length < 200; node = stack.pop())
    if (isTag(node)) {
      if (node.name === "a") links.unshift(node)
      else stack.push(...node.children)
    }
  return links
}

/** A cheap test before the exact one: most classes name none of the keys. */
const MAY_NAME_KEY =
  /price|sku|brand|availab|stock|rating|venue|location|salary|company|employer|serving|yield|calori|time|type|date/i

/** The key a class attribute names, if any ("product-price" → "price"; "price-old" → none). */
const classKey = (element: Element): string | undefined => {
  const classes = attr(element, "class") ?? ""
  if (!MAY_NAME_KEY.test(classes)) return undefined
  for (const token of classes.split(/\s+/)) {
    const words = normalKey(token).split(" ")
    while (words.length > 1 && ENTITY_WORDS.has(words[0]!)) words.shift()
    const key = words.join(" ")
    if (CLASS_KEYS.has(key)) return key
  }
  return undefined
}

const isHeadingLike = (element: Element): boolean => {
  if (HEADINGS.has(element.name)) return true
  if (element.name !== "p") return false
  const children = childElements(element)
  return children.length === 1 && (children[0]!.name === "strong" || children[0]!.name === "b")
}

export const readLabelledText = (page: Page, order: number): Item => {
  const item = newItem("text", [], order, 0)
  let lines = 0
  for (const { element, aside } of page.elements) {
    if (aside) continue
    if (BLOCKS.has(element.name) && lines < MAX_LINES)
      for (const line of linesOf(element)) {
        lines++
        readLine(item, line)
      }
    if (element.name === "a" && /(?:^|\s)author(?:\s|$)/i.test(attr(element, "rel") ?? "")) {
      const name = bylineOf(element)
      if (name !== undefined) addValue(item, "author", name)
    }
    const words = hasAttr(element, "class") || hasAttr(element, "id") ? classWords(element) : []
    if (words.includes("author") || words.includes("byline")) {
      const name = bylineOf(element)
      if (name !== undefined) addValue(item, "author", name)
    }
    if (element.name === "time") {
      const datetime = attr(element, "datetime")?.trim()
      if (datetime !== undefined && datetime !== "") addValue(item, "date", datetime)
    }
    if (isHeadingLike(element)) {
      const list = listAfter(element)
      const label = textOf(element, 100)
        .replace(/\s*\([^)]*\)\s*/g, " ")
        .replace(/[:：]\s*$/, "")
      if (list !== undefined) for (const value of listValues(list)) addPair(item, label, value)
    }
    const listClass = words.find((word) => LIST_CLASSES.has(word))
    if (listClass !== undefined) for (const value of listValues(element)) addValue(item, listClass, value)
    const key = element.name === "del" || element.name === "s" ? undefined : classKey(element)
    if (key !== undefined && !childElements(element).some((child) => BLOCKS.has(child.name))) {
      const text = textOf(element, MAX_CLASS_VALUE_CHARS + 1)
      if (text !== "" && text.length <= MAX_CLASS_VALUE_CHARS) addValue(item, key, text)
    }
  }
  return item
}
