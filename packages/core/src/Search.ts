/**
 * The search service behind `POST /v2/search`, `webdata.search()` and `webdata search`: each requested source (web,
 * news, images) is asked of the provider chain at the same time, results are checked against the request's domains
 * and categories, numbered, and, when `scrapeOptions.formats` asks for anything, scraped through the normal scrape
 * path (its cache included) with their documents merged in.
 *
 * One budget, `timeout`, bounds it all. Finding results within it is required (else 408); scraping them is not: a
 * result not scraped in time, or whose scrape failed, is answered with what the search gave and an error in its
 * `metadata`, and `warning` says how many.
 */
import { Clock, Context, Duration, Effect, Either, FiberRef, Layer, Option } from "effect"
import type { Document } from "./Domain/Document.js"
import type { SearchRequest, SourceObject } from "./Domain/SearchRequest.js"
import { IntranetHosts, urlProblem } from "./Domain/Url.js"
import { type RequestError, SearchError } from "./Errors.js"
import { JobControl } from "./Jobs/JobControl.js"
import { newId, type StoreError } from "./Jobs/JobStore.js"
import type { Owner } from "./Jobs/Owner.js"
import { Scrape } from "./Scrape.js"
import { admits, categoryOf } from "./Search/Query.js"
import {
  type SearchCategory,
  type SearchHit,
  SearchProvider,
  type SearchQuery,
  type SearchSource,
} from "./Search/SearchProvider.js"

/** A result item: what the provider found, its 1-based `position`, and the fields of its document when scraped. */
export interface SearchResultItem extends Partial<Omit<Document, "metadata">>, SearchHit {
  readonly position: number
  readonly category?: SearchCategory
  readonly metadata?:
    | Document["metadata"]
    | { readonly url: string; readonly sourceURL: string; readonly error: string }
}

export type SearchData = { readonly [source in SearchSource]?: ReadonlyArray<SearchResultItem> }

export interface SearchOutcome {
  readonly id: string
  readonly data: SearchData
  /** Firecrawl's count: 2 per 10 results, plus 1 per scraped result. */
  readonly creditsUsed: number
  /** Providers that failed before one answered, sources no provider has, results not scraped. */
  readonly warning?: string
}

export class Search extends Context.Tag("@webdata/core/Search")<
  Search,
  {
    readonly search: (
      request: SearchRequest,
      owner: Owner,
    ) => Effect.Effect<SearchOutcome, SearchError | RequestError | StoreError>
  }
>() {}

/** Results scraped at the same time. */
const SCRAPE_CONCURRENCY = 8
/** Time kept back from the budget for answering, so that a search with scrapes answers before its caller gives up. */
const ANSWER_MARGIN_MS = 250

const queryOf = (request: SearchRequest, source: SourceObject, owner: Owner, timeoutMs: number): SearchQuery => {
  // Named sources take the request's settings; images take none of them (Firecrawl's rule).
  const own: Partial<Omit<Extract<SourceObject, { type: "news" }>, "type">> = source.type === "images" ? {} : source
  const inherit = source.type !== "images"
  const location = own.location ?? (inherit ? request.location : undefined)
  const country = own.country ?? (inherit ? request.country : undefined) ?? (location === undefined ? "us" : undefined)
  return {
    source: source.type,
    query: request.query,
    limit: request.limit,
    categories: request.categories?.map((category) => category.type),
    includeDomains: request.includeDomains,
    excludeDomains: request.excludeDomains,
    tbs: own.tbs ?? (inherit ? request.tbs : undefined),
    lang: own.lang ?? request.lang,
    country,
    location,
    safe: request.safe,
    timeoutMs,
    owner,
  }
}

const withoutUndefined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as A

/** Items of one source: admitted by the query's filters, deduplicated, numbered. */
const itemsOf = (
  query: SearchQuery,
  hits: ReadonlyArray<SearchHit>,
  keep: (url: string) => boolean,
): ReadonlyArray<SearchResultItem> => {
  const seen = new Set<string>()
  const items: SearchResultItem[] = []
  for (const hit of hits) {
    if (items.length >= query.limit) break
    const key = query.source === "images" ? (hit.imageUrl ?? hit.url) : hit.url
    if (seen.has(key) || !keep(hit.url) || !admits(query, hit)) continue
    seen.add(key)
    const category = query.categories?.length ? categoryOf(hit.url, query.categories) : undefined
    items.push(
      withoutUndefined({ ...hit, position: items.length + 1, ...(category !== undefined ? { category } : {}) }),
    )
  }
  return items
}

const sourceList = (sources: ReadonlyArray<SourceObject>): ReadonlyArray<SourceObject> => {
  const byType = new Map<SearchSource, SourceObject>()
  for (const source of sources) if (!byType.has(source.type)) byType.set(source.type, source)
  return [...byType.values()]
}

export const make = Effect.gen(function* () {
  const provider = yield* SearchProvider
  const scraper = yield* Scrape
  const control = yield* JobControl

  /** Scrapes the web and news items within the time left; images are pictures, not pages, and are left as they are. */
  const scrapeItems = (
    request: SearchRequest,
    data: Record<string, ReadonlyArray<SearchResultItem>>,
    owner: Owner,
    deadline: number,
    zeroDataRetention: boolean,
  ) =>
    Effect.gen(function* () {
      const options = request.scrapeOptions
      if (options === undefined || options.formats.length === 0) return { scraped: 0, unscraped: 0 }
      let scraped = 0
      let unscraped = 0
      const scrapeOne = (item: SearchResultItem) =>
        Effect.gen(function* () {
          const left = deadline - (yield* Clock.currentTimeMillis) - ANSWER_MARGIN_MS
          const timeout = Math.min(options.timeout, left)
          const outcome =
            timeout < 1
              ? Either.left(`not scraped: the search's timeout of ${request.timeout} ms was reached`)
              : Either.mapLeft(
                  yield* Effect.either(
                    scraper.scrape({ ...options, url: item.url, timeout, owner, zeroDataRetention }),
                  ),
                  (error) => error.message,
                )
          if (Either.isLeft(outcome)) {
            unscraped++
            return { ...item, metadata: { url: item.url, sourceURL: item.url, error: outcome.left } }
          }
          scraped++
          const document = outcome.right
          if (!zeroDataRetention) yield* control.keepScrape(document, owner).pipe(Effect.orElse(() => Effect.void))
          // The search's title and description stay (they are what the result said); the document adds the rest.
          return { ...document, ...item, metadata: document.metadata } satisfies SearchResultItem
        })
      for (const source of ["web", "news"] as const) {
        const items = data[source]
        if (items === undefined || items.length === 0) continue
        data[source] = yield* Effect.forEach(items, scrapeOne, { concurrency: SCRAPE_CONCURRENCY })
      }
      return { scraped, unscraped }
    })

  const search = Effect.fn("Search.search")(function* (request: SearchRequest, owner: Owner) {
    const started = yield* Clock.currentTimeMillis
    const deadline = started + request.timeout
    const zeroDataRetention =
      request.zeroDataRetention === true || (request.enterprise ?? []).some((mode) => mode === "zdr" || mode === "anon")
    const intranet = yield* FiberRef.get(IntranetHosts)
    const keep = (url: string) =>
      /^https?:\/\//i.test(url) && (!request.ignoreInvalidURLs || urlProblem(url, intranet) === undefined)
    const sources = sourceList(request.sources)
    const answers = yield* Effect.forEach(
      sources,
      (source) => {
        const query = queryOf(request, source, owner, request.timeout)
        return provider.search(query).pipe(
          Effect.map((answer) => ({ source: source.type, items: itemsOf(query, answer.hits, keep), answer })),
          Effect.either,
        )
      },
      { concurrency: "unbounded" },
    ).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(request.timeout),
        onTimeout: () =>
          new SearchError({ reason: "Timeout", message: `The search timed out after ${request.timeout} ms.` }),
      }),
    )
    const failures = answers.flatMap((answer) => (Either.isLeft(answer) ? [answer.left] : []))
    // Every source failed: the caller learns why rather than getting nothing. Some did: the others say why in `warning`.
    if (failures.length === answers.length && failures[0] !== undefined) {
      const unsupported = failures.every((failure) => failure.reason === "Unsupported")
      const reason = failures.find((failure) => failure.reason !== "Unsupported")?.reason ?? failures[0].reason
      return yield* new SearchError({
        reason: unsupported ? "Unsupported" : reason,
        message: `No search provider could answer: ${failures.map((failure) => failure.message).join("; ")}`,
      })
    }
    const data: Record<string, ReadonlyArray<SearchResultItem>> = {}
    const warnings: string[] = []
    answers.forEach((answer, index) => {
      const source = sources[index]?.type ?? "web"
      if (Either.isLeft(answer)) {
        data[source] = []
        warnings.push(`${source}: ${answer.left.message}`)
        return
      }
      data[source] = answer.right.items
      if (answer.right.answer.warning !== undefined)
        warnings.push(`${source} answered by ${answer.right.answer.provider} (${answer.right.answer.warning})`)
    })
    const { scraped, unscraped } = yield* scrapeItems(request, data, owner, deadline, zeroDataRetention)
    if (unscraped > 0) warnings.push(`${unscraped} result(s) could not be scraped; see their metadata.error`)
    const total = Object.values(data).reduce((sum, items) => sum + items.length, 0)
    return {
      id: newId(),
      data,
      creditsUsed: Math.ceil(total / 10) * 2 + scraped,
      ...(warnings.length > 0 ? { warning: warnings.join(" ") } : {}),
    } satisfies SearchOutcome
  })

  return { search }
})

export const layer: Layer.Layer<Search, never, SearchProvider | Scrape | JobControl> = Layer.effect(Search, make)

/** The web results of a query, for extract and the agent (no filters, no scraping). */
export const webResults = (
  provider: Option.Option<Context.Tag.Service<SearchProvider>>,
  query: string,
  limit: number,
  owner: Owner,
  timeoutMs = 30_000,
): Effect.Effect<ReadonlyArray<SearchHit>, SearchError> =>
  Option.match(provider, {
    onNone: () => Effect.fail(new SearchError({ reason: "Unsupported", message: "No search provider is configured" })),
    onSome: (search) =>
      Effect.map(search.search({ source: "web", query, limit, timeoutMs, owner }), (answer) =>
        answer.hits.slice(0, limit),
      ),
  })
