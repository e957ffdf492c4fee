/**
 * Serper, Google's results through an API: `POST /search`, `/news` or `/images` with a JSON body and the key in
 * `X-API-KEY`. It takes Google's own parameters (`gl`, `hl`, `location`, `tbs`), so the query's pass through as
 * they are; pages of ten are asked one after the other (`page` 1, 2, ...).
 */
import { Effect, Schema } from "effect"
import { requestJson } from "../ProviderHttp.js"
import { withOperators } from "../Query.js"
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
  type Remaining,
  readItems,
  requireSource,
  tidy,
  withinBudget,
} from "./Shared.js"

export interface SerperSettings {
  /** `SERPER_API_KEY`. */
  readonly apiKey: string
  /** Default `https://google.serper.dev`. */
  readonly baseUrl?: string
}

const NAME = "Serper"
const DEFAULT_BASE_URL = "https://google.serper.dev"
const SOURCES: ReadonlyArray<SearchSource> = ["web", "news", "images"]
/** Ten a page is one credit a request; larger pages cost more credits for the same results. */
const PAGE_SIZE = 10
const MAX_PAGES = 10

const PATHS: Readonly<Record<SearchSource, string>> = { web: "/search", news: "/news", images: "/images" }
/** The key of each answer's list. */
const LISTS: Readonly<Record<SearchSource, string>> = { web: "organic", news: "news", images: "images" }

const Answer = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Result = Schema.Struct({
  link: Schema.String,
  title: LooseText,
  snippet: LooseText,
  date: LooseText,
  imageUrl: LooseText,
  imageWidth: LooseNumber,
  imageHeight: LooseNumber,
})
type Result = typeof Result.Type

const requestBody = (query: SearchQuery, page: number): string =>
  JSON.stringify({
    q: withOperators(query),
    num: PAGE_SIZE,
    page,
    ...(query.country !== undefined ? { gl: query.country.toLowerCase() } : {}),
    ...(query.lang !== undefined ? { hl: query.lang.toLowerCase() } : {}),
    ...(query.location !== undefined ? { location: query.location } : {}),
    ...(query.tbs !== undefined && query.tbs.trim() !== "" ? { tbs: query.tbs.trim() } : {}),
  })

const hitOf = (source: SearchSource, result: Result): SearchHit => {
  const web = { url: result.link, title: tidy(result.title), description: tidy(result.snippet) }
  switch (source) {
    case "web":
      return web
    case "news":
      return { ...web, date: tidy(result.date), imageUrl: httpUrl(result.imageUrl) }
    case "images":
      return {
        ...web,
        imageUrl: httpUrl(result.imageUrl),
        imageWidth: dimension(result.imageWidth),
        imageHeight: dimension(result.imageHeight),
      }
  }
}

/** The answer's list; an answer without one but with its `searchParameters` found nothing. */
const readList = (source: SearchSource, json: unknown): Effect.Effect<ReadonlyArray<unknown>, SearchError> =>
  Effect.gen(function* () {
    const key = LISTS[source]
    const answer = yield* decodeAnswer(NAME, Answer, "an object")(json)
    if (answer[key] === undefined && answer.searchParameters !== undefined) return []
    return yield* decodeAnswer(NAME, Items, `an object with an ${key} list`)(answer[key])
  })

export const make = (settings: SerperSettings): SearchProviderShape => {
  const baseUrl = (settings.baseUrl ?? DEFAULT_BASE_URL).trim().replace(/\/+$/, "")
  const headers = { "content-type": "application/json", "x-api-key": settings.apiKey }

  const fetchPage = (
    query: SearchQuery,
    page: number,
    remaining: Remaining,
  ): Effect.Effect<Page<number>, SearchError> =>
    Effect.gen(function* () {
      const timeoutMs = yield* remaining
      const json = yield* requestJson({
        provider: NAME,
        url: `${baseUrl}${PATHS[query.source]}`,
        method: "POST",
        headers,
        body: requestBody(query, page),
        timeoutMs,
      })
      const results = yield* readList(query.source, json)
      return { hits: readItems(Result, results).map((result) => hitOf(query.source, result)), next: page + 1 }
    })

  const search = Effect.fn("Serper.search")(function* (query: SearchQuery) {
    yield* requireSource(NAME, SOURCES, query)
    const hits = yield* withinBudget(NAME, query.timeoutMs, (remaining) =>
      collectPages(query, 1, MAX_PAGES, (page) => fetchPage(query, page, remaining)),
    )
    return { hits, provider: "serper" }
  })
  return { name: "serper", sources: SOURCES, search }
}
