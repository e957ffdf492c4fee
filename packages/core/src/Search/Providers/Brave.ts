/**
 * The Brave Search API, with the key in `X-Subscription-Token`: web (`/web/search`, up to 20 results a page), news
 * (`/news/search`, up to 50) and images (`/images/search`, one request of up to 200). Web and news page with
 * `offset`, counted in pages of `count` (0 to 9). Titles and descriptions carry markup (`<strong>`) and entities.
 */
import { Clock, Effect, Schema } from "effect"
import { requestJson } from "../ProviderHttp.js"
import { parseTbs, type RecentUnit, withOperators } from "../Query.js"
import type { SearchError, SearchHit, SearchProviderShape, SearchQuery, SearchSource } from "../SearchProvider.js"
import {
  collectPages,
  decodeAnswer,
  dimension,
  httpUrl,
  Items,
  LooseNumber,
  LooseText,
  type Page,
  params,
  plainText,
  type Remaining,
  readItems,
  requireSource,
  tidy,
  withinBudget,
} from "./Shared.js"

export interface BraveSettings {
  /** `BRAVE_API_KEY`. */
  readonly apiKey: string
  /** Default `https://api.search.brave.com/res/v1`. */
  readonly baseUrl?: string
}

const NAME = "Brave"
const DEFAULT_BASE_URL = "https://api.search.brave.com/res/v1"
const SOURCES: ReadonlyArray<SearchSource> = ["web", "news", "images"]

interface Endpoint {
  readonly path: string
  /** The largest `count` the endpoint accepts. */
  readonly maxCount: number
  /** Pages that can be asked (`offset` 0 to 9); image search has no paging. */
  readonly maxPages: number
  /** Whether it takes `freshness`. */
  readonly dated: boolean
}

const ENDPOINTS: Readonly<Record<SearchSource, Endpoint>> = {
  web: { path: "/web/search", maxCount: 20, maxPages: 10, dated: true },
  news: { path: "/news/search", maxCount: 50, maxPages: 10, dated: true },
  images: { path: "/images/search", maxCount: 200, maxPages: 1, dated: false },
}

/** Brave's shortest period is a day. */
const PERIODS: Readonly<Record<RecentUnit, string>> = { h: "pd", d: "pd", w: "pw", m: "pm", y: "py" }

const isoDay = (time: number): string => new Date(time).toISOString().slice(0, 10)

/** `pd|pw|pm|py`, or a range `YYYY-MM-DDtoYYYY-MM-DD` (an open end is the epoch or today). */
const freshness = (tbs: string | undefined, now: number): string | undefined => {
  const filter = parseTbs(tbs)
  if (filter?.recent !== undefined) return PERIODS[filter.recent]
  if (filter?.from === undefined && filter?.to === undefined) return undefined
  return `${isoDay(filter.from ?? 0)}to${isoDay(filter.to ?? now)}`
}

/** Image search knows only `off` and `strict`, so both the others use too. */
const safeSearch = (safe: boolean | undefined): string | undefined =>
  safe === undefined ? undefined : safe ? "strict" : "off"

const pageUrl = (baseUrl: string, query: SearchQuery, offset: number, now: number): string => {
  const endpoint = ENDPOINTS[query.source]
  return `${baseUrl}${endpoint.path}?${params({
    q: withOperators(query),
    count: Math.max(1, Math.min(query.limit, endpoint.maxCount)),
    offset: endpoint.maxPages > 1 ? offset : undefined,
    country: query.country?.toUpperCase(),
    search_lang: query.lang?.toLowerCase(),
    safesearch: safeSearch(query.safe),
    freshness: endpoint.dated ? freshness(query.tbs, now) : undefined,
  })}`
}

const MoreResults = Schema.optional(Schema.Struct({ more_results_available: Schema.optional(Schema.Unknown) }))
/** Without a `web` key, nothing was found. */
const WebAnswer = Schema.Struct({
  type: Schema.Literal("search"),
  web: Schema.optional(Schema.Struct({ results: Items })),
  query: MoreResults,
})
const ListAnswer = Schema.Struct({ results: Items, query: MoreResults })

const Thumbnail = Schema.optional(Schema.NullOr(Schema.Struct({ src: LooseText })))
const Result = Schema.Struct({
  url: Schema.String,
  title: LooseText,
  description: LooseText,
  age: LooseText,
  page_age: LooseText,
  thumbnail: Thumbnail,
  properties: Schema.optional(
    Schema.NullOr(Schema.Struct({ url: LooseText, width: LooseNumber, height: LooseNumber })),
  ),
})
type Result = typeof Result.Type

const hitOf = (source: SearchSource, result: Result): SearchHit => {
  const web = { url: result.url, title: plainText(result.title), description: plainText(result.description) }
  switch (source) {
    case "web":
      return web
    case "news":
      return {
        ...web,
        date: tidy(result.page_age) ?? tidy(result.age),
        imageUrl: httpUrl(result.thumbnail?.src),
      }
    case "images":
      return {
        ...web,
        imageUrl: httpUrl(result.properties?.url) ?? httpUrl(result.thumbnail?.src),
        imageWidth: dimension(result.properties?.width),
        imageHeight: dimension(result.properties?.height),
      }
  }
}

/** The answer's results and whether Brave says there are more. */
const readAnswer = (source: SearchSource, json: unknown) =>
  source === "web"
    ? Effect.map(decodeAnswer(NAME, WebAnswer, 'a "search" object')(json), (answer) => ({
        results: answer.web?.results ?? [],
        more: answer.query?.more_results_available !== false,
      }))
    : Effect.map(decodeAnswer(NAME, ListAnswer, "an object with a results list")(json), (answer) => ({
        results: answer.results,
        more: answer.query?.more_results_available !== false,
      }))

export const make = (settings: BraveSettings): SearchProviderShape => {
  const baseUrl = (settings.baseUrl ?? DEFAULT_BASE_URL).trim().replace(/\/+$/, "")
  const headers = { accept: "application/json", "x-subscription-token": settings.apiKey }

  const fetchPage = (
    query: SearchQuery,
    offset: number,
    now: number,
    remaining: Remaining,
  ): Effect.Effect<Page<number>, SearchError> =>
    Effect.gen(function* () {
      const timeoutMs = yield* remaining
      const json = yield* requestJson({
        provider: NAME,
        url: pageUrl(baseUrl, query, offset, now),
        headers,
        timeoutMs,
      })
      const { results, more } = yield* readAnswer(query.source, json)
      const hits = readItems(Result, results).map((result) => hitOf(query.source, result))
      return { hits, next: more ? offset + 1 : undefined }
    })

  const search = Effect.fn("Brave.search")(function* (query: SearchQuery) {
    yield* requireSource(NAME, SOURCES, query)
    const now = yield* Clock.currentTimeMillis
    const hits = yield* withinBudget(NAME, query.timeoutMs, (remaining) =>
      collectPages(query, 0, ENDPOINTS[query.source].maxPages, (offset) => fetchPage(query, offset, now, remaining)),
    )
    return { hits, provider: "brave" }
  })
  return { name: "brave", sources: SOURCES, search }
}
