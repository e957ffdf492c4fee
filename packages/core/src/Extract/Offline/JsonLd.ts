/**
 * JSON-LD: `<script type="application/ld+json">` blocks, each an object, an array of them, or a `@graph`. Nodes
 * that only point at another (`{"@id": "#org"}`, as Yoast-style graphs write authors and publishers) are replaced by
 * the node with that id. A block that does not parse is skipped, the others kept; blocks, nodes and depth are
 * bounded (`LIMITS`), so a hostile page costs a bounded amount of work.
 */
import { isText } from "domhandler"
import { parseDocument } from "htmlparser2"
import { boundHtml } from "./Bound.js"
import { addValue, type Budget, type Item, LIMITS, newItem, typeNames, type Value } from "./Candidates.js"
import { attr, type Page, resolveUrl, textOf } from "./Html.js"

const MAX_BLOCKS = 1_000
/** Nodes indexed by `@id` across the page. */
const MAX_IDS = 5_000

type Json = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Properties whose relative references are made absolute. */
const URL_KEYS = new Set(["url", "image", "logo", "thumbnailUrl", "contentUrl", "sameAs", "photo"])

/**
 * Strings may carry markup or entities (`"<p>Crisp &amp; light</p>"`): their text is the value. Plain strings keep
 * their line breaks, which separate the lines of a list given as one string.
 */
const plainText = (value: string): string =>
  /<\/?[a-z][^>]*>|&(?:#\d+|#x[\da-f]+|[a-z]+);/i.test(value)
    ? textOf(
        parseDocument(boundHtml(value.slice(0, LIMITS.stringChars * 4)), { decodeEntities: true }),
        LIMITS.stringChars,
      )
    : value.slice(0, LIMITS.stringChars).trim()

const blocksOf = (page: Page): Array<string> =>
  page.elements
    .filter(
      ({ element }) => element.name === "script" && /^\s*application\/ld\+json\b/i.test(attr(element, "type") ?? ""),
    )
    .slice(0, MAX_BLOCKS)
    .map(({ element }) =>
      element.children
        .filter(isText)
        .map((text) => text.data)
        .join(""),
    )

/** A block's JSON; undefined when it is not JSON. */
const parseBlock = (text: string): unknown => {
  // Pages wrap blocks in comment or CDATA markers, and write raw line breaks inside strings (invalid JSON, but
  // whitespace wherever else it stands, so replacing them changes nothing else).
  const cleaned = text
    .replace(/^\s*(?:<!--|<!\[CDATA\[)/, "")
    .replace(/(?:-->|\]\]>)\s*$/, "")
    .replace(/[\n\r\t]/g, " ")
  try {
    return JSON.parse(cleaned)
  } catch {
    return undefined
  }
}

/** The top-level nodes of a block: itself, its array's elements, or its `@graph`'s. */
const rootsOf = (json: unknown): Array<Json> => {
  const roots: Array<Json> = []
  const pending: Array<{ readonly value: unknown; readonly depth: number }> = [{ value: json, depth: 0 }]
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    if (top.depth > 2) continue
    if (Array.isArray(top.value)) {
      for (let i = top.value.length - 1; i >= 0; i--) pending.push({ value: top.value[i], depth: top.depth + 1 })
    } else if (isObject(top.value)) {
      const graph = top.value["@graph"]
      if (graph !== undefined) pending.push({ value: graph, depth: top.depth + 1 })
      if (top.value["@type"] !== undefined) roots.push(top.value)
    }
  }
  return roots
}

/** Every node with an `@id` and more to it than the id, by id (breadth-first, depth- and count-bounded). */
const indexIds = (roots: ReadonlyArray<Json>): Map<string, Json> => {
  const ids = new Map<string, Json>()
  let level: Array<unknown> = [...roots]
  for (let depth = 0; depth < LIMITS.depth && level.length > 0 && ids.size < MAX_IDS; depth++) {
    const next: Array<unknown> = []
    for (const value of level) {
      if (Array.isArray(value)) next.push(...value.slice(0, LIMITS.valuesPerProperty))
      else if (isObject(value)) {
        const id = value["@id"]
        if (typeof id === "string" && Object.keys(value).length > 1 && !ids.has(id)) ids.set(id, value)
        for (const [key, each] of Object.entries(value)) if (key !== "@context") next.push(each)
      }
      if (next.length > LIMITS.items * 4) break
    }
    level = next
  }
  return ids
}

interface Reader {
  readonly budget: Budget
  readonly ids: Map<string, Json>
  readonly base: string | undefined
}

const toValues = (value: unknown, key: string, depth: number, reader: Reader): Array<Value> => {
  // Arrays and value objects count as depth too: `[[[[…]]]]` nested 100,000 deep is a page's to write.
  if (depth > LIMITS.depth) return []
  if (typeof value === "string") {
    const text = plainText(value)
    if (text === "") return []
    return [URL_KEYS.has(key) ? (resolveUrl(text, reader.base) ?? text) : text]
  }
  if (typeof value === "number") return Number.isFinite(value) ? [value] : []
  if (typeof value === "boolean") return [value]
  if (Array.isArray(value))
    return value.slice(0, LIMITS.valuesPerProperty).flatMap((each) => toValues(each, key, depth + 1, reader))
  if (!isObject(value)) return []
  if (value["@value"] !== undefined) return toValues(value["@value"], key, depth + 1, reader)
  if (value["@list"] !== undefined) return toValues(value["@list"], key, depth + 1, reader)
  if (value["@set"] !== undefined) return toValues(value["@set"], key, depth + 1, reader)
  const item = toItem(value, depth, reader)
  return item === undefined ? [] : [item]
}

const toItem = (node: Json, depth: number, reader: Reader): Item | undefined => {
  if (depth > LIMITS.depth) return undefined
  const id = node["@id"]
  const target = typeof id === "string" && Object.keys(node).length <= 2 ? (reader.ids.get(id) ?? node) : node
  const order = reader.budget.take()
  if (order === undefined) return undefined
  const rawTypes = target["@type"]
  const types = typeNames(
    (Array.isArray(rawTypes) ? rawTypes : [rawTypes]).filter((type): type is string => typeof type === "string"),
  )
  const item = newItem("json-ld", types, order, depth)
  for (const [key, value] of Object.entries(target)) {
    if (key.startsWith("@")) continue
    for (const each of toValues(value, key, depth + 1, reader)) addValue(item, key, each)
  }
  // A node that is only a reference to nothing on the page says nothing.
  return item.props.size === 0 && types.length === 0 ? undefined : item
}

/** The page's JSON-LD nodes, top-level ones as items with their nested nodes inside. */
export const readJsonLd = (page: Page, budget: Budget): Array<Item> => {
  const roots = blocksOf(page).flatMap((text) => rootsOf(parseBlock(text)))
  const reader: Reader = { budget, ids: indexIds(roots), base: page.base }
  const items: Array<Item> = []
  for (const root of roots) {
    if (budget.exhausted) break
    const item = toItem(root, 0, reader)
    if (item !== undefined) items.push(item)
  }
  return items
}
