/**
 * Merging values extracted from several sources (an extract's pages, the chunks of one long page) into one: arrays
 * are concatenated and deduplicated, objects merged key by key, and a scalar is the value most sources agree on (the
 * first source breaks a tie). Every leaf of the result keeps the sources it came from, under its JSON pointer, so
 * that a caller can trace each value to the URL that gave it.
 */

export interface SourcedValue {
  /** Where the value came from: a URL, or a chunk's name. */
  readonly source: string
  readonly value: unknown
}

export interface Merged {
  readonly value: unknown
  /** JSON pointer of each leaf (and array element) of `value` → the sources that gave it. */
  readonly sources: Readonly<Record<string, ReadonlyArray<string>>>
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (typeof value === "string" && value.trim() === "") ||
  (Array.isArray(value) && value.length === 0)

/** A value's identity for deduplication and votes: strings compared without case and spacing. */
const identity = (value: unknown): string =>
  JSON.stringify(value, (_key, each: unknown) =>
    typeof each === "string"
      ? each.replace(/\s+/g, " ").trim().toLowerCase()
      : isObject(each)
        ? Object.fromEntries(Object.entries(each).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : each,
  )

const escapePointer = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1")

const mergeAt = (
  pointer: string,
  values: ReadonlyArray<SourcedValue>,
  sources: Record<string, Array<string>>,
): unknown => {
  const present = values.filter((each) => !isEmpty(each.value))
  if (present.length === 0) return values[0]?.value ?? null
  if (present.every((each) => Array.isArray(each.value))) {
    const seen = new Map<string, number>()
    const items: Array<unknown> = []
    for (const { source, value } of present)
      for (const item of value as ReadonlyArray<unknown>) {
        if (isEmpty(item)) continue
        const key = identity(item)
        const index = seen.get(key)
        if (index !== undefined) {
          const known = sources[`${pointer}/${index}`]
          if (known !== undefined && !known.includes(source)) known.push(source)
          continue
        }
        seen.set(key, items.length)
        sources[`${pointer}/${items.length}`] = [source]
        items.push(item)
      }
    return items
  }
  if (present.every((each) => isObject(each.value))) {
    const keys = [...new Set(present.flatMap((each) => Object.keys(each.value as object)))]
    return Object.fromEntries(
      keys.map((key) => [
        key,
        mergeAt(
          `${pointer}/${escapePointer(key)}`,
          present.map((each) => ({ source: each.source, value: (each.value as Record<string, unknown>)[key] })),
          sources,
        ),
      ]),
    )
  }
  // Scalars (or values of mixed kinds): the one most sources agree on.
  const votes = new Map<string, { value: unknown; sources: Array<string> }>()
  for (const { source, value } of present) {
    const key = identity(value)
    const vote = votes.get(key)
    if (vote === undefined) votes.set(key, { value, sources: [source] })
    else vote.sources.push(source)
  }
  const winner = [...votes.values()].reduce((best, next) => (next.sources.length > best.sources.length ? next : best))
  sources[pointer] = winner.sources
  return winner.value
}

/** One value out of many, with the sources of each of its parts. */
export const mergeValues = (values: ReadonlyArray<SourcedValue>): Merged => {
  const sources: Record<string, Array<string>> = {}
  const value = mergeAt("", values, sources)
  return { value, sources }
}
