/**
 * One candidate value made into a scalar of the schema's type, or refused (undefined): a property is left out rather
 * than filled with a value of the wrong type. Objects give their natural scalar (a person's name, a rating's value,
 * an image's URL, an address's text); schema.org enumeration URLs give their member's name (`InStock`).
 */
import { type Item, isItem, type Value } from "./Candidates.js"
import { durationSeconds, findDate, isoDuration } from "./Dates.js"
import { collapse, resolveUrl } from "./Html.js"
import { numbersIn, parseNumber } from "./Numbers.js"
import type { Shape } from "./Schema.js"

export type ScalarShape = Extract<Shape, { kind: "string" | "number" | "integer" | "boolean" | "enum" | "any" }>

export interface Hints {
  /** The property holds a URL (url, image…). */
  readonly url: boolean
  /**
   * Seconds per unit when the property is a duration asked as a number, from its name ("prepTime", "cookMinutes"
   * in minutes, "batteryLifeHours" in hours); undefined for other properties, whose "5 m" is not five minutes.
   */
  readonly durationUnit: number | undefined
  readonly base: string | undefined
}

const MAX_STRING = 20_000
/** How deep an object is searched for its scalar (a salary's value's value). */
const MAX_NESTING = 3

const SCHEMA_ORG_MEMBER = /^https?:\/\/(?:www\.)?schema\.org\/([A-Za-z]+)$/

const first = (item: Item, names: ReadonlyArray<string>): Value | undefined => {
  for (const name of names) {
    const value = item.props.get(name)?.[0]
    if (value !== undefined) return value
  }
  return undefined
}

const textOfValue = (value: Value | undefined, nesting: number): string | undefined =>
  value === undefined
    ? undefined
    : isItem(value)
      ? objectText(value, nesting + 1)
      : typeof value === "boolean"
        ? undefined
        : collapse(String(value))

const joined = (item: Item, names: ReadonlyArray<string>, nesting: number): string | undefined => {
  const parts = names
    .map((name) => textOfValue(item.props.get(name)?.[0], nesting))
    .filter((part): part is string => part !== undefined && part !== "")
  return parts.length === 0 ? undefined : parts.join(", ")
}

/** An address in full: street, city, region and postal code, country. */
const fullAddress = (item: Item, nesting: number): string | undefined => {
  const region = [item.props.get("address region")?.[0], item.props.get("postal code")?.[0]]
    .map((part) => textOfValue(part, nesting))
    .filter((part) => part !== undefined && part !== "")
    .join(" ")
  const parts = [
    textOfValue(item.props.get("street address")?.[0], nesting),
    textOfValue(item.props.get("address locality")?.[0], nesting),
    region,
    textOfValue(item.props.get("address country")?.[0], nesting),
  ].filter((part) => part !== undefined && part !== "")
  return parts.length === 0 ? undefined : parts.join(", ")
}

/** The text an object stands for where a string is asked. */
const objectText = (item: Item, nesting = 0): string | undefined => {
  if (nesting > MAX_NESTING) return undefined
  const types = item.types
  if (types.includes("postaladdress")) return fullAddress(item, nesting)
  if (types.some((type) => type.endsWith("object"))) return textOfValue(first(item, ["url", "content url"]), nesting)
  if (types.some((type) => type.startsWith("howto"))) return textOfValue(first(item, ["text", "name"]), nesting)
  if (types.includes("quantitativevalue") || types.includes("monetaryamount")) {
    const value = textOfValue(first(item, ["value"]), nesting)
    if (value !== undefined) {
      const unit = textOfValue(first(item, ["unit text", "unit code", "currency"]), nesting)
      return unit === undefined ? value : `${value} ${unit}`
    }
    const low = textOfValue(first(item, ["min value"]), nesting)
    const high = textOfValue(first(item, ["max value"]), nesting)
    return low !== undefined && high !== undefined ? `${low}–${high}` : undefined
  }
  const name = textOfValue(first(item, ["name", "headline", "title", "text", "value"]), nesting)
  if (name !== undefined) return name
  // A place without a name is where it is, as listings write it: "Austin, TX", "Berlin, Germany".
  const address = item.props.get("address")?.[0]
  if (isItem(address)) {
    const region = address.props.has("address region") ? "address region" : "address country"
    return joined(address, ["address locality", region], nesting)
  }
  return typeof address === "string" ? collapse(address) : undefined
}

/** The number an object stands for: a rating's value, an amount's value, an offer's price. */
const objectNumber = (item: Item, hints: Hints, nesting: number): number | undefined => {
  if (nesting > MAX_NESTING) return undefined
  for (const name of ["rating value", "value", "price", "low price", "amount"]) {
    for (const value of item.props.get(name) ?? []) {
      const number = toNumber(value, hints, nesting + 1)
      if (number !== undefined) return number
    }
  }
  return undefined
}

const toNumber = (value: Value, hints: Hints, nesting = 0): number | undefined => {
  if (typeof value === "number") return value
  if (typeof value === "boolean") return undefined
  if (isItem(value)) return objectNumber(value, hints, nesting)
  const seconds = hints.durationUnit === undefined ? undefined : durationSeconds(value)
  return seconds !== undefined && hints.durationUnit !== undefined ? seconds / hints.durationUnit : parseNumber(value)
}

/** Lower-case letters and digits only: "Full-time" and "FULL_TIME" are the same. */
const squash = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

/** Enumeration words that name the same thing. */
const SAME = new Map<string, string>(
  Object.entries({
    yearly: "year",
    annual: "year",
    annually: "year",
    peryear: "year",
    hourly: "hour",
    perhour: "hour",
    monthly: "month",
    permonth: "month",
    weekly: "week",
    perweek: "week",
    daily: "day",
    perday: "day",
    contractor: "contract",
    temp: "temporary",
    intern: "internship",
  }),
)
const canonical = (text: string): string => {
  const squashed = squash(text)
  return SAME.get(squashed) ?? squashed
}

/** The enum member a value names: equal ignoring case and punctuation, else the one member it contains. */
const matchEnum = (value: unknown, members: ReadonlyArray<unknown>): unknown => {
  if (members.includes(value)) return value
  if (typeof value !== "string" && typeof value !== "number") return undefined
  const wanted = canonical(String(value))
  const equal = members.find((member) => typeof member === "string" && canonical(member) === wanted)
  if (equal !== undefined) return equal
  const words = ` ${String(value)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")} `
  const contained = members.filter(
    (member) =>
      typeof member === "string" &&
      member.trim() !== "" &&
      words.includes(
        ` ${member
          .toLowerCase()
          .replace(/[^\p{L}\p{N}]+/gu, " ")
          .trim()} `,
      ),
  )
  return contained.length === 1 ? contained[0] : undefined
}

const TRUE = new Set([
  "true",
  "yes",
  "y",
  "1",
  "instock",
  "available",
  "limitedavailability",
  "onlineonly",
  "instoreonly",
  "telecommute",
  "remote",
])
const FALSE = new Set([
  "false",
  "no",
  "n",
  "0",
  "outofstock",
  "soldout",
  "discontinued",
  "unavailable",
  "notavailable",
  "preorder",
  "presale",
  "backorder",
])

const toBoolean = (value: Value): boolean | undefined => {
  if (typeof value === "boolean") return value
  if (typeof value === "number") return value === 1 ? true : value === 0 ? false : undefined
  if (isItem(value)) return undefined
  const text = collapse(value)
  const member = SCHEMA_ORG_MEMBER.exec(text)?.[1] ?? text
  const squashed = squash(member)
  if (TRUE.has(squashed)) return true
  if (FALSE.has(squashed)) return false
  // Phrases: "Only 3 left in stock", "Currently sold out".
  const lower = member.toLowerCase()
  if (/\b(?:out of stock|sold out|unavailable|not available|pre-?order|back-?order)\b/.test(lower)) return false
  if (/\b(?:in stock|available)\b/.test(lower)) return true
  return undefined
}

/**
 * A URL written in text: absolute, a path on the page's site, or a bare domain ("acme.example/shop"). A single word
 * ("Details") is not one, though the URL parser would read it as a relative reference.
 */
const urlOf = (text: string, base: string | undefined): string | undefined => {
  if (/\s/.test(text)) return undefined
  const reference = /^[a-z][a-z\d+.-]*:|^[/.?#]/i.test(text)
    ? text
    : /^[\p{L}\d-]+(?:\.[\p{L}\d-]+)*\.\p{L}{2,}(?:[/:?#]|$)/u.test(text)
      ? `https://${text}`
      : text.includes("/")
        ? text
        : undefined
  const absolute = reference === undefined ? undefined : resolveUrl(reference, base)
  return absolute !== undefined && /^(?:https?|ftp|data):/i.test(absolute) ? absolute : undefined
}

const URL_FORMATS = new Set(["uri", "url", "iri", "uri-reference", "iri-reference"])

const formatted = (text: string, format: string | undefined, hints: Hints): string | undefined => {
  if (format === "date" || format === "date-time") {
    const found = findDate(text)
    if (found === undefined) return undefined
    if (format === "date") return found.date
    if (found.time === undefined) return undefined
    return found.iso ? text : `${found.date}T${found.time}:00`
  }
  if (format === "duration") {
    const seconds = durationSeconds(text)
    return seconds === undefined ? undefined : /^P/i.test(text) ? text.toUpperCase() : isoDuration(seconds)
  }
  if (format === "email") {
    const address = text.replace(/^mailto:/i, "")
    return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) ? address : undefined
  }
  if ((format !== undefined && URL_FORMATS.has(format)) || hints.url) return urlOf(text, hints.base)
  return text
}

const toText = (value: Value): string | undefined => {
  const text = isItem(value)
    ? objectText(value)
    : typeof value === "boolean"
      ? undefined
      : typeof value === "number"
        ? String(value)
        : collapse(value.length > MAX_STRING ? value.slice(0, MAX_STRING) : value)
  if (text === undefined || text === "") return undefined
  return SCHEMA_ORG_MEMBER.exec(text)?.[1] ?? text
}

/** The value as the schema's scalar type, or undefined when it is not one. */
export const coerceScalar = (value: Value, shape: ScalarShape, hints: Hints): unknown => {
  switch (shape.kind) {
    case "string": {
      const text = toText(value)
      if (text === undefined) return undefined
      if (shape.enum !== undefined) return matchEnum(text, shape.enum)
      return formatted(text, shape.format, hints)
    }
    case "number":
    case "integer": {
      const number = toNumber(value, hints)
      if (number === undefined) return undefined
      const rounded = Math.round(number)
      const typed = shape.kind === "number" ? number : Math.abs(number - rounded) < 1e-9 ? rounded : undefined
      return typed === undefined || shape.enum === undefined ? typed : matchEnum(typed, shape.enum)
    }
    case "boolean":
      return toBoolean(value)
    case "enum":
      return matchEnum(typeof value === "number" ? value : toText(value), shape.values)
    case "any":
      return isItem(value) ? objectText(value) : typeof value === "string" ? toText(value) : value
  }
}

/** One end of a range written as text ("$80,000 – $95,000 a year"); a single value is both ends. */
export const rangeEnd = (value: Value, end: "min" | "max"): number | undefined => {
  if (typeof value === "number") return value
  if (typeof value !== "string") return undefined
  const found = numbersIn(value, 2).map(Math.abs)
  if (found.length === 0) return undefined
  return end === "min" || found.length === 1 ? found[0] : found[1]
}
