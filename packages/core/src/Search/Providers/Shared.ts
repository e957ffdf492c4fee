/**
 * What the providers share: the source check, the query's one time budget, paging through answers until the limit
 * (deduplicated, filtered), lenient reading of their JSON, and the few value conversions they all need.
 */
import { textContent } from "domutils"
import { Array as Arr, Clock, Effect, Option, Schema } from "effect"
import { parseDocument } from "htmlparser2"
import { malformed, unsupportedSource } from "../ProviderHttp.js"
import { admits, parseTbs, type RecentUnit, timeWindow } from "../Query.js"
import { SearchError, type SearchHit, type SearchQuery, type SearchSource } from "../SearchProvider.js"

/** Fails `Unsupported` (before any request) when the provider lacks the query's source. */
export const requireSource = (
  provider: string,
  sources: ReadonlyArray<SearchSource>,
  query: SearchQuery,
): Effect.Effect<void, SearchError> =>
  sources.includes(query.source) ? Effect.void : Effect.fail(unsupportedSource(provider, query.source))

/** Milliseconds left of the query's budget, at least 1 (a request given 0 ms would not be sent at all). */
export type Remaining = Effect.Effect<number>

/**
 * Runs a whole search (paging, waits between requests included) within `timeoutMs`: each request gets what is left,
 * and whatever is still running when the budget ends is interrupted (its request aborted) and fails `Timeout`.
 */
export const withinBudget = <A>(
  provider: string,
  timeoutMs: number,
  run: (remaining: Remaining) => Effect.Effect<A, SearchError>,
): Effect.Effect<A, SearchError> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) => {
    const remaining = Effect.map(Clock.currentTimeMillis, (now) => Math.max(1, start + timeoutMs - now))
    return run(remaining).pipe(
      Effect.timeoutFail({
        duration: Math.max(0, timeoutMs),
        onTimeout: () =>
          new SearchError({ reason: "Timeout", message: `${provider} did not answer within ${timeoutMs} ms` }),
      }),
    )
  })

/** One page of a provider's answer, and how to ask for the next one (undefined: there is none). */
export interface Page<S> {
  readonly hits: ReadonlyArray<SearchHit>
  readonly next: S | undefined
}

/**
 * Asks for pages from `first` on until `limit` hits are kept, the provider has no next page, a page brings no URL not
 * seen before (providers repeat their last page rather than end), or `maxPages` were asked. Hits keep the provider's
 * order; those without an http(s) URL, repeated URLs and those the query's domains or categories exclude are dropped.
 */
export const collectPages = <S>(
  query: SearchQuery,
  first: S,
  maxPages: number,
  fetchPage: (state: S) => Effect.Effect<Page<S>, SearchError>,
): Effect.Effect<ReadonlyArray<SearchHit>, SearchError> =>
  Effect.gen(function* () {
    const seen = new Set<string>()
    const kept: Array<SearchHit> = []
    let state: S | undefined = first
    for (let asked = 0; asked < maxPages && state !== undefined && kept.length < query.limit; asked++) {
      const page: Page<S> = yield* fetchPage(state)
      let fresh = 0
      for (const hit of page.hits) {
        const key = httpUrl(hit.url)
        if (key === undefined || seen.has(key)) continue
        seen.add(key)
        fresh++
        const clean = { ...hit, url: hit.url.trim() }
        if (kept.length < query.limit && admits(query, clean)) kept.push(clean)
      }
      state = fresh > 0 ? page.next : undefined
    }
    return kept
  })

/** The absolute http(s) URL `value` names (resolved against `base` when relative), else undefined. */
export const httpUrl = (value: string | undefined, base?: string): string | undefined => {
  if (value === undefined || value.trim() === "") return undefined
  const url = URL.parse(value.trim(), base)
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") ? url.href : undefined
}

/** Collapses runs of white space; empty text is absent. */
export const tidy = (value: string | undefined): string | undefined => {
  const text = value?.replace(/\s+/g, " ").trim()
  return text === undefined || text === "" ? undefined : text
}

/** The text of a snippet that carries markup (`<strong>`) or entities (`&amp;`): tags dropped, entities decoded. */
export const plainText = (value: string | undefined): string | undefined =>
  value !== undefined && /[<&]/.test(value)
    ? tidy(textContent(parseDocument(value, { decodeEntities: true })))
    : tidy(value)

/** A positive whole number from a number or a numeric string (`"800"`), else undefined. */
export const dimension = (value: number | string | undefined): number | undefined => {
  const number = typeof value === "string" ? Number(value.trim()) : value
  return number !== undefined && Number.isInteger(number) && number > 0 ? number : undefined
}

/** URL parameters (or a form body) from a record, leaving out the absent ones. */
export const params = (values: Readonly<Record<string, string | number | undefined>>): URLSearchParams => {
  const result = new URLSearchParams()
  for (const [name, value] of Object.entries(values)) if (value !== undefined) result.set(name, String(value))
  return result
}

/**
 * The query's `tbs` as one recent period, for providers that have no date range: its `qdr:` unit, or for a `cdr:`
 * range the shortest period (day, week, month, year) reaching back to its start; undefined when none does.
 */
export const recentPeriod = (tbs: string | undefined, now: number): RecentUnit | undefined => {
  const filter = parseTbs(tbs)
  if (filter?.recent !== undefined) return filter.recent
  const from = filter?.from
  if (from === undefined) return undefined
  const units: ReadonlyArray<RecentUnit> = ["d", "w", "m", "y"]
  return units.find((recent) => (timeWindow({ recent, sortByDate: false }, now).from ?? now) <= from)
}

/** A text field that may be missing, null or of another type: anything but a string reads as absent. */
export const LooseText = Schema.optional(
  Schema.transform(Schema.Unknown, Schema.UndefinedOr(Schema.String), {
    strict: true,
    decode: (value) => (typeof value === "string" ? value : undefined),
    encode: (value) => value,
  }),
)

/** A number field that may be missing, null, a numeric string or of another type (read as absent). */
export const LooseNumber = Schema.optional(
  Schema.transform(Schema.Unknown, Schema.UndefinedOr(Schema.Number), {
    strict: true,
    decode: (value) =>
      typeof value === "number"
        ? value
        : typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))
          ? Number(value)
          : undefined,
    encode: (value) => value,
  }),
)

/** A list whose items are read one by one: a provider's odd item is dropped, not the whole answer. */
export const Items = Schema.Array(Schema.Unknown)

/** The items of `raw` that have `item`'s shape. */
export const readItems = <A, I>(item: Schema.Schema<A, I>, raw: ReadonlyArray<unknown>): ReadonlyArray<A> => {
  const decode = Schema.decodeUnknownOption(item)
  return Arr.filterMap(raw, (value) => decode(value))
}

/** Decodes a provider's answer; one without the documented shape fails `InvalidResponse`, saying what was expected. */
export const decodeAnswer =
  <A, I>(provider: string, schema: Schema.Schema<A, I>, expected: string) =>
  (json: unknown): Effect.Effect<A, SearchError> =>
    Option.match(Schema.decodeUnknownOption(schema)(json), {
      onNone: () => Effect.fail(malformed(provider, `expected ${expected}`)),
      onSome: Effect.succeed,
    })
