/**
 * What the readers find, in one shape whatever the encoding: an item (a JSON-LD node, a microdata or RDFa scope, or
 * the page-level pairs of meta tags, tables and labelled text) with its types and properties. Property names are
 * kept as normalised words (`datePublished`, `date_published` and "Date published:" are all "date published"), so
 * that matching a schema's names is a string comparison.
 */

export type Source = "json-ld" | "microdata" | "rdfa" | "meta" | "table" | "text"

/** Strongest first: a value from an earlier source wins. */
export const SOURCE_RANK: ReadonlyArray<Source> = ["json-ld", "microdata", "rdfa", "meta", "table", "text"]

export type Value = string | number | boolean | Item

export interface Item {
  readonly source: Source
  /** Local type names, lower-cased: `https://schema.org/Product` → "product". */
  readonly types: ReadonlyArray<string>
  readonly props: Map<string, Array<Value>>
  /** Position among the page's items (document order), for ties. */
  readonly order: number
  /** Inside a block about other things than the page's subject (related products, sidebars, comments). */
  readonly aside: boolean
  /** Nesting under another item (0: top level). */
  readonly depth: number
}

/** Bounds on what one page may produce, whatever it holds. */
export const LIMITS = {
  items: 5_000,
  valuesPerProperty: 200,
  propertiesPerItem: 200,
  depth: 10,
  stringChars: 20_000,
} as const

/** Counts the items made for one page, so that every reader stops at the same bound. */
export class Budget {
  private made = 0
  get exhausted(): boolean {
    return this.made >= LIMITS.items
  }
  /** The next item's order, or undefined when the page has had its share. */
  take(): number | undefined {
    return this.made >= LIMITS.items ? undefined : this.made++
  }
}

export const newItem = (
  source: Source,
  types: ReadonlyArray<string>,
  order: number,
  depth: number,
  aside = false,
): Item => ({ source, types, props: new Map(), order, depth, aside })

/** Adds a value under a (raw) property name; empty strings and values past the bounds are dropped. */
export const addValue = (item: Item, name: string, value: Value): void => {
  if (typeof value === "string" && value === "") return
  const key = normalKey(name)
  if (key === "") return
  const values = item.props.get(key)
  if (values === undefined) {
    if (item.props.size < LIMITS.propertiesPerItem) item.props.set(key, [value])
  } else if (values.length < LIMITS.valuesPerProperty) values.push(value)
}

export const isItem = (value: Value | undefined): value is Item => typeof value === "object" && value !== null

/**
 * A name as lower-case words: the local part of an IRI or prefixed name (`schema:name`, `http://schema.org/name`),
 * camelCase and snake_case split, punctuation dropped.
 */
export const normalKey = (name: string): string => {
  const local = name.replace(/^.*[/#]/, "").replace(/^[a-z][\w-]*:(?=\S)/i, "")
  return local
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .join(" ")
}

/** Local type names of a type attribute or `@type` value. */
export const typeNames = (values: ReadonlyArray<string>): Array<string> =>
  values
    .flatMap((value) => value.split(/\s+/))
    .map((value) => value.replace(/^.*[/#:]/, "").toLowerCase())
    .filter((value) => value !== "")
