/**
 * SearXNG, the self-hosted metasearch engine, through its JSON API: `GET /search?format=json` with the category of
 * the source (`general`, `news`, `images`), paged with `pageno`. The instance must list `json` under `search.formats`
 * in its settings; otherwise it answers 403.
 */
import { Clock, Effect, Schema } from "effect"
import { requestJson } from "../ProviderHttp.js"
import { type RecentUnit, withOperators } from "../Query.js"
import {
  SearchError,
  type SearchHit,
  type SearchProviderShape,
  type SearchQuery,
  type SearchSource,
} from "../SearchProvider.js"
import {
  collectPages,
  decodeAnswer,
  dimension,
  httpUrl,
  Items,
  LooseText,
  type Page,
  params,
  type Remaining,
  readItems,
  recentPeriod,
  requireSource,
  tidy,
  withinBudget,
} from "./Shared.js"

export interface SearxngSettings {
  /** The instance's URL (`SEARXNG_URL`); a trailing `/` or `/search` is allowed. */
  readonly baseUrl: string
}

const NAME = "SearXNG"
const SOURCES: ReadonlyArray<SearchSource> = ["web", "news", "images"]
/** Every page costs the instance a round of requests to its engines; five pages are 50 to 100 results. */
const MAX_PAGES = 5

const CATEGORIES: Readonly<Record<SearchSource, string>> = { web: "general", news: "news", images: "images" }
/** SearXNG's shortest period is a day. */
const TIME_RANGES: Readonly<Record<RecentUnit, string>> = { h: "day", d: "day", w: "week", m: "month", y: "year" }

const Answer = Schema.Struct({ results: Items, unresponsive_engines: Schema.optional(Items) })

const Result = Schema.Struct({
  url: Schema.String,
  title: LooseText,
  content: LooseText,
  publishedDate: LooseText,
  img_src: LooseText,
  thumbnail_src: LooseText,
  thumbnail: LooseText,
  resolution: LooseText,
})
type Result = typeof Result.Type

/** Engines that did not answer, as `[name, reason]` pairs. */
const Unresponsive = Schema.Tuple(Schema.String, Schema.String)

const searchEndpoint = (baseUrl: string): string =>
  `${baseUrl
    .trim()
    .replace(/\/+$/, "")
    .replace(/\/search$/, "")}/search`

/** SearXNG's locale: `en`, or `en-US` with a country (a country alone has no locale). */
const language = (query: SearchQuery): string | undefined => {
  if (query.lang === undefined) return undefined
  const lang = query.lang.toLowerCase()
  return query.country === undefined ? lang : `${lang}-${query.country.toUpperCase()}`
}

const safeSearch = (safe: boolean | undefined): number | undefined => (safe === undefined ? undefined : safe ? 2 : 0)

const pageUrl = (endpoint: string, query: SearchQuery, pageno: number, now: number): string => {
  const period = recentPeriod(query.tbs, now)
  return `${endpoint}?${params({
    q: withOperators(query),
    format: "json",
    categories: CATEGORIES[query.source],
    pageno,
    language: language(query),
    time_range: period !== undefined ? TIME_RANGES[period] : undefined,
    safesearch: safeSearch(query.safe),
  })}`
}

/** `800 x 600`, `800x600` or `800 × 600`. */
const resolution = (value: string | undefined): Pick<SearchHit, "imageWidth" | "imageHeight"> => {
  const match = /(\d+)\s*[x×]\s*(\d+)/i.exec(value ?? "")
  return match === null ? {} : { imageWidth: dimension(match[1]), imageHeight: dimension(match[2]) }
}

const hitOf = (source: SearchSource, result: Result): SearchHit => {
  const web = { url: result.url, title: tidy(result.title), description: tidy(result.content) }
  switch (source) {
    case "web":
      return web
    case "news":
      return {
        ...web,
        date: tidy(result.publishedDate),
        imageUrl: httpUrl(result.img_src ?? result.thumbnail, result.url),
      }
    case "images":
      return {
        ...web,
        imageUrl: httpUrl(result.img_src, result.url) ?? httpUrl(result.thumbnail_src, result.url),
        ...resolution(result.resolution),
      }
  }
}

/**
 * A first page without results because every engine failed (blocked, timed out) is not an empty answer: a chain
 * should ask its next provider.
 */
const checkEngines = (
  pageno: number,
  results: ReadonlyArray<unknown>,
  unresponsive: ReadonlyArray<unknown>,
): Effect.Effect<void, SearchError> => {
  const engines = readItems(Unresponsive, unresponsive)
  if (pageno > 1 || results.length > 0 || engines.length === 0) return Effect.void
  const which = engines.map(([engine, reason]) => `${engine} (${reason})`).join(", ")
  return Effect.fail(new SearchError({ reason: "Unavailable", message: `${NAME}'s engines did not answer: ${which}` }))
}

/** A 403 usually means the instance does not serve JSON. */
const explainRefusal = (error: SearchError): SearchError =>
  error.reason === "Refused"
    ? new SearchError({
        reason: "Refused",
        message: `${error.message}; SearXNG refuses format=json unless its settings list json under search.formats`,
      })
    : error

const fetchPage = (
  endpoint: string,
  query: SearchQuery,
  pageno: number,
  now: number,
  remaining: Remaining,
): Effect.Effect<Page<number>, SearchError> =>
  Effect.gen(function* () {
    const timeoutMs = yield* remaining
    const json = yield* requestJson({
      provider: NAME,
      url: pageUrl(endpoint, query, pageno, now),
      headers: { accept: "application/json" },
      timeoutMs,
    }).pipe(Effect.mapError(explainRefusal))
    const answer = yield* decodeAnswer(NAME, Answer, "an object with a results list")(json)
    yield* checkEngines(pageno, answer.results, answer.unresponsive_engines ?? [])
    const hits = readItems(Result, answer.results).map((result) => hitOf(query.source, result))
    return { hits, next: pageno + 1 }
  })

export const make = (settings: SearxngSettings): SearchProviderShape => {
  const endpoint = searchEndpoint(settings.baseUrl)
  const search = Effect.fn("Searxng.search")(function* (query: SearchQuery) {
    yield* requireSource(NAME, SOURCES, query)
    const now = yield* Clock.currentTimeMillis
    const hits = yield* withinBudget(NAME, query.timeoutMs, (remaining) =>
      collectPages(query, 1, MAX_PAGES, (pageno) => fetchPage(endpoint, query, pageno, now, remaining)),
    )
    return { hits, provider: "searxng" }
  })
  return { name: "searxng", sources: SOURCES, search }
}
