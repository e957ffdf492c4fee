/**
 * Filling a schema from the page's candidates. The page's subject is the structured item that fills the most of
 * the schema (fields that tell kinds apart — a price, an author, a start date — count double against names,
 * descriptions, URLs and images, and at least one is needed when the schema asks for any), preferring an item named
 * like the page's title, outside blocks aside, from a stronger source, less nested. Each property is then taken from
 * the first of: that item, other items describing the same thing (same type and name), the meta tags, the tables,
 * the labelled text; each through its routes (`Synonyms.ts`), each value coerced to the schema's type or refused.
 *
 * A list of objects the subject does not hold (`products`, `events`) is the page's items of the kind that fits the
 * list's schema best, from one source. A property named for the entity itself (`product`, `details`) is filled as a
 * schema of its own.
 */
import { type Item, isItem, LIMITS, SOURCE_RANK, type Source, type Value } from "./Candidates.js"
import { coerceScalar, type Hints, rangeEnd } from "./Coerce.js"
import { collapse } from "./Html.js"
import { currencyIn } from "./Numbers.js"
import type { Shape } from "./Schema.js"
import { type KeyMatch, matchKey, type Route } from "./Synonyms.js"

type ObjectShape = Extract<Shape, { kind: "object" }>

export interface Candidates {
  /** Top-level structured items (JSON-LD, microdata, RDFa) with their nested items. */
  readonly items: ReadonlyArray<Item>
  /** Page-level items, strongest first: meta tags, tables, labelled text. */
  readonly page: ReadonlyArray<Item>
  /** Rows of tables with a header, for lists of objects. */
  readonly rows: ReadonlyArray<Item>
  /** What the page calls itself (titles, `<h1>`), to recognise the item it is about. */
  readonly titles: ReadonlyArray<string>
  readonly base: string | undefined
}

export interface Filled {
  readonly value: Record<string, unknown>
  readonly sources: Record<string, Source>
}

/** Nesting of schema objects filled (a schema deeper than this is not filled past it). */
const MAX_DEPTH = 8
/** Items weighed as the page's subject. */
const MAX_CHOICES = 2_000
/** Objects in one list. */
const MAX_LIST = 100

/** Keys that name the entity a schema wraps (`{ product: { name, price } }`) rather than one of its properties. */
const WRAPPERS = new Set(
  (
    "product item article post event recipe job job posting posting listing details info information data specs " +
    "specifications attributes metadata entity page"
  ).split(" "),
)
/** Lists whose members are the list's items ("itemListElement"), read through. */
const LIST_TYPES = new Set(["itemlist", "howtosection", "offercatalog", "breadcrumblist"])

const squash = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

/** Names of durations: "prepTime", "cook_minutes", "durationHours", "batteryLifeHours". */
const DURATION = /\b(?:time|duration|minutes?|mins?|hours?|hrs?|seconds?|secs?)\b/

const hintsFor = (match: KeyMatch, base: string | undefined): Hints => ({
  url: match.concepts.length > 0 && match.concepts[0]!.url,
  durationUnit: !DURATION.test(match.key)
    ? undefined
    : /\b(?:hours?|hrs?)\b/.test(match.key)
      ? 3_600
      : /\b(?:seconds?|secs?)\b/.test(match.key)
        ? 1
        : 60,
  base,
})

/** The values at a path of property names under an item. */
const resolve = (item: Item, path: ReadonlyArray<string>): Array<Value> => {
  let current: Array<Value> = [item]
  for (const name of path) {
    const next: Array<Value> = []
    for (const value of current) if (isItem(value)) for (const each of value.props.get(name) ?? []) next.push(each)
    if (next.length === 0) return []
    current = next.length > LIMITS.valuesPerProperty ? next.slice(0, LIMITS.valuesPerProperty) : next
  }
  return current
}

/** Lists read through to their members; a list item to what it holds. */
const expand = (values: ReadonlyArray<Value>): Array<Value> => {
  const out: Array<Value> = []
  const pending = [...values].reverse()
  let steps = 0
  for (let value = pending.pop(); value !== undefined && steps++ < LIMITS.items; value = pending.pop()) {
    if (isItem(value) && value.types.some((type) => LIST_TYPES.has(type))) {
      const members = value.props.get("item list element") ?? []
      for (let i = members.length - 1; i >= 0; i--) pending.push(members[i]!)
    } else if (isItem(value) && value.types.includes("listitem") && isItem(value.props.get("item")?.[0]))
      out.push(value.props.get("item")![0]!)
    else out.push(value)
  }
  return out
}

const identity = (value: unknown): string =>
  typeof value === "string" ? collapse(value).toLowerCase() : JSON.stringify(value)

const dedupe = (values: ReadonlyArray<unknown>): Array<unknown> => {
  const seen = new Set<string>()
  return values.filter((value) => {
    const id = identity(value)
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

class Filler {
  /** `all`, once computed. */
  private flat: ReadonlyArray<Item> | undefined

  constructor(private readonly candidates: Candidates) {}

  /** The values of a route, made into the shape; undefined when none fits. */
  private fromRoute(item: Item, route: Route, match: KeyMatch, shape: Shape, depth: number): unknown {
    const values = resolve(item, route.path)
    if (values.length === 0) return undefined
    if (route.read !== undefined) {
      const read = route.read
      for (const value of values) {
        const found =
          read === "currency" ? (typeof value === "string" ? currencyIn(value) : undefined) : rangeEnd(value, read)
        const coerced =
          found === undefined || shape.kind === "object" || shape.kind === "array" || shape.kind === "oneOf"
            ? undefined
            : coerceScalar(found, shape, hintsFor(match, this.base))
        if (coerced !== undefined) return coerced
      }
      return undefined
    }
    return this.shaped(values, shape, match, depth)
  }

  private get base(): string | undefined {
    return this.candidates.base
  }

  /** A property of one item, through the key's routes in order. */
  property(item: Item, match: KeyMatch, shape: Shape, depth: number): unknown {
    for (const route of match.routes) {
      const value = this.fromRoute(item, route, match, shape, depth)
      if (value !== undefined) return value
    }
    return undefined
  }

  /** Candidate values made into a shape: the first that fits for a scalar or object, all that fit for a list. */
  shaped(values: ReadonlyArray<Value>, shape: Shape, match: KeyMatch, depth: number): unknown {
    switch (shape.kind) {
      case "oneOf":
        for (const option of shape.options) {
          const value = this.shaped(values, option, match, depth)
          if (value !== undefined) return value
        }
        return undefined
      case "array": {
        const members = expand(values)
        const split = match.concepts.find((each) => each.split !== undefined)?.split
        const listed =
          split !== undefined && members.length === 1 && typeof members[0] === "string"
            ? members[0].split(split).filter((part) => part.trim() !== "")
            : members
        const filled = listed
          .map((member) => this.shaped([member], shape.items, match, depth))
          .filter((value) => value !== undefined)
        const list = dedupe(filled).slice(0, Math.min(shape.maxItems ?? MAX_LIST, MAX_LIST))
        return list.length > 0 ? list : undefined
      }
      case "object": {
        if (depth >= MAX_DEPTH) return undefined
        for (const value of values) {
          const filled = isItem(value) ? this.object([value], shape, depth + 1) : this.named(value, shape)
          if (filled !== undefined) return filled.value
        }
        return undefined
      }
      default:
        for (const value of values) {
          const coerced = coerceScalar(value, shape, hintsFor(match, this.base))
          if (coerced !== undefined) return coerced
        }
        return undefined
    }
  }

  /** A plain value where an object is asked: the object's name-like property, if it has one. */
  private named(value: Value, shape: ObjectShape): Filled | undefined {
    if (typeof value !== "string") return undefined
    for (const [name, each] of shape.properties) {
      const match = matchKey(name)
      if (match.concepts[0]?.aliases[0] !== "name" || each.kind !== "string") continue
      const coerced = coerceScalar(value, each, hintsFor(match, this.base))
      if (coerced !== undefined) return { value: { [name]: coerced }, sources: {} }
    }
    return undefined
  }

  /** A property from the page-level items: route by route, so that a label naming the key itself ("Website:")
   * wins over a stronger source's synonym (the page's own URL in the meta tags). */
  private fromPage(items: ReadonlyArray<Item>, match: KeyMatch, shape: Shape, depth: number) {
    for (const route of match.routes)
      for (const item of items) {
        const value = this.fromRoute(item, route, match, shape, depth)
        if (value !== undefined) return { value, source: item.source }
      }
    return undefined
  }

  /**
   * An object filled from candidate items, strongest first, then from the page-level items; undefined when nothing
   * was found.
   */
  object(
    items: ReadonlyArray<Item>,
    shape: ObjectShape,
    depth: number,
    page: ReadonlyArray<Item> = [],
  ): Filled | undefined {
    const value: Record<string, unknown> = {}
    const sources: Record<string, Source> = {}
    for (const [name, each] of shape.properties) {
      const match = matchKey(name)
      let found: { readonly value: unknown; readonly source: Source } | undefined
      for (const item of items) {
        const filled = this.property(item, match, each, depth)
        if (filled !== undefined) {
          found = { value: filled, source: item.source }
          break
        }
      }
      if (found === undefined) found = this.fromPage(page, match, each, depth)
      if (found === undefined && depth === 0 && each.kind === "array" && each.items.kind === "object")
        found = this.list(each.items)
      if (found === undefined && each.kind === "object" && WRAPPERS.has(match.key) && depth < MAX_DEPTH) {
        const inner = this.entity(each, depth + 1)
        const source = Object.values(inner.sources)[0]
        if (source !== undefined) found = { value: inner.value, source }
      }
      if (found !== undefined) {
        // Defined, not assigned: a schema may name a property `__proto__`.
        Object.defineProperty(value, name, { value: found.value, enumerable: true, writable: true, configurable: true })
        sources[name] = found.source
      }
    }
    return Object.keys(value).length === 0 ? undefined : { value, sources }
  }

  /** How well an item fills a schema: weighted fields filled, and whether any is a telling one. */
  private fit(item: Item, shape: ObjectShape, depth: number): { readonly score: number; readonly telling: number } {
    let score = 0
    let telling = 0
    for (const [name, each] of shape.properties) {
      const match = matchKey(name)
      if (this.property(item, match, each, depth) === undefined) continue
      const generic = match.concepts.length > 0 && match.concepts.every((concept) => concept.generic)
      score += generic ? 0.5 : 1
      if (!generic) telling++
    }
    return { score, telling }
  }

  private titled(item: Item): boolean {
    const name = item.props.get("name")?.[0] ?? item.props.get("headline")?.[0]
    if (typeof name !== "string") return false
    const wanted = squash(name)
    return (
      wanted.length >= 3 &&
      this.candidates.titles.some((title) => {
        const squashed = squash(title)
        return squashed === wanted || (squashed.includes(wanted) && wanted.length >= squashed.length / 3)
      })
    )
  }

  /** The items that may be the page's subject for a shape, best first. */
  private ranked(items: ReadonlyArray<Item>, shape: ObjectShape, depth: number): Array<Item> {
    const asksTelling = shape.properties.some(([name]) => {
      const concepts = matchKey(name).concepts
      return concepts.length === 0 || !concepts.every((concept) => concept.generic)
    })
    const scored: Array<{ readonly item: Item; readonly rank: number }> = []
    for (const item of items.slice(0, MAX_CHOICES)) {
      const { score, telling } = this.fit(item, shape, depth)
      if (score === 0 || (asksTelling && telling === 0)) continue
      const rank =
        score +
        (this.titled(item) ? 0.75 : 0) -
        (item.aside ? 1.5 : 0) +
        (3 - SOURCE_RANK.indexOf(item.source)) * 0.1 -
        item.depth * 0.05
      scored.push({ item, rank })
    }
    return scored.sort((a, b) => b.rank - a.rank || a.item.order - b.item.order).map(({ item }) => item)
  }

  /** Every structured item, nested ones too, lists read through. */
  private get all(): ReadonlyArray<Item> {
    if (this.flat === undefined) {
      const flat: Array<Item> = []
      const pending = [...this.candidates.items].reverse()
      for (let item = pending.pop(); item !== undefined && flat.length < LIMITS.items; item = pending.pop()) {
        flat.push(item)
        const nested: Array<Item> = []
        for (const values of item.props.values())
          for (const value of expand(values)) if (isItem(value)) nested.push(value)
        for (let i = nested.length - 1; i >= 0; i--) pending.push(nested[i]!)
      }
      this.flat = flat
    }
    return this.flat
  }

  /** The page's subject for a shape, filled with the page-level fallbacks. */
  entity(shape: ObjectShape, depth: number): Filled {
    const subject = this.ranked(
      this.all.filter((item) => !item.aside),
      shape,
      depth,
    )[0]
    const sameThing =
      subject === undefined
        ? []
        : this.all
            .filter((item) => item !== subject && !item.aside && describesSame(item, subject))
            .sort((a, b) => SOURCE_RANK.indexOf(a.source) - SOURCE_RANK.indexOf(b.source))
    const items = [...(subject === undefined ? [] : [subject]), ...sameThing]
    return this.object(items, shape, depth, this.candidates.page) ?? { value: {}, sources: {} }
  }

  /** A list of objects: the page's items of the kind that fits best, from one source, in page order. */
  private list(shape: ObjectShape): { readonly value: unknown; readonly source: Source } | undefined {
    const inMain = this.all.filter((item) => !item.aside)
    for (const pool of [inMain, this.all, this.candidates.rows]) {
      const best = this.ranked(pool, shape, 1)[0]
      if (best === undefined) continue
      const bestFit = this.fit(best, shape, 1).score
      const members = pool
        .filter(
          (item) =>
            item.source === best.source &&
            (best.types.length === 0 || sameKind(item.types, best.types)) &&
            this.fit(item, shape, 1).score >= Math.max(0.5, bestFit / 2),
        )
        .sort((a, b) => a.order - b.order)
      const values = dedupe(
        members.map((item) => this.object([item], shape, 1)?.value).filter((value) => value !== undefined),
      ).slice(0, MAX_LIST)
      if (values.length > 0) return { value: values, source: best.source }
    }
    return undefined
  }
}

/** Type names end with the kind they refine: a MusicEvent and a TheaterEvent are both events. */
const KINDS = ["event", "article", "product", "recipe", "offer", "review", "organization", "place", "posting"]

const kindOf = (type: string): string => KINDS.find((kind) => type.endsWith(kind)) ?? type

/** Whether two items' types have a kind in common. */
const sameKind = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.some((type) => b.some((other) => kindOf(type) === kindOf(other)))

/** Two items describe the same thing: a type in common (or none) and the same name. */
const describesSame = (item: Item, subject: Item): boolean => {
  const name = item.props.get("name")?.[0]
  const subjectName = subject.props.get("name")?.[0]
  return (
    typeof name === "string" &&
    typeof subjectName === "string" &&
    squash(name) === squash(subjectName) &&
    (item.types.length === 0 || subject.types.length === 0 || sameKind(item.types, subject.types))
  )
}

export const fillSchema = (candidates: Candidates, shape: ObjectShape): Filled =>
  new Filler(candidates).entity(shape, 0)
