/**
 * DuckDuckGo's HTML results page (`html.duckduckgo.com/html/`), which needs no key: the query is posted as a form,
 * the results are read from the markup, and the next page is asked by posting back the page's own "Next" form (it
 * carries the paging state). It is a page for people, not an API: requests from one provider are serialised and
 * spaced by `minIntervalMs`, and a captcha page ends the search as `Refused`. Web results only.
 */
import { selectAll, selectOne } from "css-select"
import type { AnyNode, Document, Element } from "domhandler"
import { textContent } from "domutils"
import { Clock, Effect } from "effect"
import { parseDocument } from "htmlparser2"
import { defaultFetcherConfig } from "../../Engines/HttpFetcher.js"
import { malformed, requestText } from "../ProviderHttp.js"
import { onDomain, type RecentUnit, withOperators } from "../Query.js"
import {
  SearchError,
  type SearchHit,
  type SearchProviderShape,
  type SearchQuery,
  type SearchSource,
} from "../SearchProvider.js"
import {
  collectPages,
  httpUrl,
  type Page,
  params,
  type Remaining,
  recentPeriod,
  requireSource,
  tidy,
  withinBudget,
} from "./Shared.js"

export interface DuckDuckGoSettings {
  /** Default `https://html.duckduckgo.com/html/`. */
  readonly baseUrl?: string
  /** Least time between the end of one request and the start of the next (default 1500 ms). */
  readonly minIntervalMs?: number
}

const NAME = "DuckDuckGo"
const DEFAULT_BASE_URL = "https://html.duckduckgo.com/html/"
const DEFAULT_MIN_INTERVAL_MS = 1500
/** About ten results a page; each page is a request to a site that asks to be used by people. */
const MAX_PAGES = 5
const SOURCES: ReadonlyArray<SearchSource> = ["web"]

/** `df`: DuckDuckGo's shortest period is a day. */
const PERIODS: Readonly<Record<RecentUnit, string>> = { h: "d", d: "d", w: "w", m: "m", y: "y" }

/** Countries whose region is in English (`us-en`); most others pair the country with its own code (`de-de`). */
const ENGLISH_REGIONS = new Set(["us", "uk", "au", "ca", "ie", "in", "nz", "sg", "za", "ph", "my", "pk"])

/** `kl`: `<country>-<language>` (`us-en`; Great Britain is `uk`); `wt-wt` is no region (a language alone has none). */
const region = (query: SearchQuery): string => {
  if (query.country === undefined) return "wt-wt"
  const code = query.country.toLowerCase()
  const country = code === "gb" ? "uk" : code
  const lang = query.lang?.toLowerCase() ?? (ENGLISH_REGIONS.has(country) ? "en" : country)
  return `${country}-${lang}`
}

/** Fields of a posted form; absent ones are not sent. */
type Form = Readonly<Record<string, string | undefined>>

/** The filters every page is posted with: region, period (`df`) and safe search (`kp`: 1 strict, -2 off). */
const filters = (query: SearchQuery, now: number): Form => {
  const period = recentPeriod(query.tbs, now)
  return {
    kl: region(query),
    df: period !== undefined ? PERIODS[period] : undefined,
    kp: query.safe === undefined ? undefined : query.safe ? "1" : "-2",
  }
}

const attr = (element: Element | null, name: string): string | undefined =>
  element !== null && Object.hasOwn(element.attribs, name) ? element.attribs[name] : undefined

const textOf = (element: Element | null): string | undefined =>
  element === null ? undefined : tidy(textContent(element))

/**
 * A result link's target: result links go through DuckDuckGo's redirect (`//duckduckgo.com/l/?uddg=<target>&rut=…`);
 * other links into DuckDuckGo (ads' `y.js`) are not results.
 */
export const targetOf = (href: string | undefined): string | undefined => {
  const link = URL.parse(href?.trim() ?? "", "https://duckduckgo.com/")
  if (link === null) return undefined
  if (!onDomain(link.hostname, "duckduckgo.com")) return httpUrl(link.href)
  const target = link.pathname === "/l/" ? link.searchParams.get("uddg")?.trim() : undefined
  return httpUrl(target) !== undefined ? target : undefined
}

const hitOf = (result: Element): ReadonlyArray<SearchHit> => {
  const link = selectOne<AnyNode, Element>("a.result__a", result)
  const url = targetOf(attr(link, "href"))
  if (url === undefined) return []
  return [{ url, title: textOf(link), description: textOf(selectOne<AnyNode, Element>(".result__snippet", result)) }]
}

/** The hidden fields of the page's "Next" form (the paging state: `q`, `s`, `dc`, `vqd`, ...), if it has one. */
const nextForm = (document: Document): Record<string, string> | undefined => {
  for (const form of selectAll<AnyNode, Element>("div.nav-link form", document)) {
    const submit = selectOne<AnyNode, Element>("input[type=submit]", form)
    if (!/next/i.test(attr(submit, "value") ?? "")) continue
    const fields: Record<string, string> = {}
    for (const input of selectAll<AnyNode, Element>("input[name]", form))
      if (input !== submit) fields[attr(input, "name") ?? ""] = attr(input, "value") ?? ""
    return fields
  }
  return undefined
}

const isChallenge = (document: Document): boolean =>
  selectOne<AnyNode, Element>(".anomaly-modal, .anomaly-modal__title, #challenge-form", document) !== null ||
  /bots use DuckDuckGo too/i.test(textContent(document))

/** Whether the page is a results page at all (results, or the place where they would be). */
const isResultsPage = (document: Document): boolean =>
  selectOne<AnyNode, Element>("div.result, #links, .results, .no-results", document) !== null

/** The organic results of a page (ads and the "No results." item left out) and its "Next" form. */
const readPage = (html: string): Effect.Effect<Page<Form>, SearchError> => {
  const document = parseDocument(html, { decodeEntities: true })
  const results = selectAll<AnyNode, Element>("div.result", document)
  if (results.length === 0 && isChallenge(document))
    return Effect.fail(
      new SearchError({ reason: "Refused", message: `${NAME} asks for a captcha: it takes this server for a bot` }),
    )
  if (!isResultsPage(document)) return Effect.fail(malformed(NAME, "a page without results or their place"))
  const organic = results.filter((result) => !/\bresult--(?:ad|no-result)\b/.test(attr(result, "class") ?? ""))
  return Effect.succeed({ hits: organic.flatMap(hitOf), next: nextForm(document) })
}

export const make = (settings: DuckDuckGoSettings = {}): SearchProviderShape => {
  const endpoint = settings.baseUrl ?? DEFAULT_BASE_URL
  const interval = Math.max(0, settings.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS)
  const headers = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "text/html",
    "user-agent": defaultFetcherConfig.userAgent,
  }
  const gate = Effect.unsafeMakeSemaphore(1)
  let lastEnded = Number.NEGATIVE_INFINITY

  /** One request at a time, each `interval` after the previous one ended (however it ended). */
  const politely = <A>(request: Effect.Effect<A, SearchError>): Effect.Effect<A, SearchError> =>
    gate.withPermits(1)(
      Effect.gen(function* () {
        const wait = lastEnded + interval - (yield* Clock.currentTimeMillis)
        if (wait > 0) yield* Effect.sleep(wait)
        return yield* request.pipe(
          Effect.ensuring(
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.sync(() => {
                lastEnded = now
              }),
            ),
          ),
        )
      }),
    )

  /** Posts a form and reads the page; the next page's form is the page's own with the query's filters kept. */
  const fetchPage = (form: Form, chosen: Form, remaining: Remaining): Effect.Effect<Page<Form>, SearchError> =>
    Effect.gen(function* () {
      const body = params(form).toString()
      // The budget left is read after the wait for its turn.
      const html = yield* politely(
        Effect.flatMap(remaining, (timeoutMs) =>
          requestText({ provider: NAME, url: endpoint, method: "POST", headers, body, timeoutMs }),
        ),
      )
      const page = yield* readPage(html)
      return { hits: page.hits, next: page.next !== undefined ? { ...page.next, ...chosen } : undefined }
    })

  const search = Effect.fn("DuckDuckGo.search")(function* (query: SearchQuery) {
    yield* requireSource(NAME, SOURCES, query)
    const chosen = filters(query, yield* Clock.currentTimeMillis)
    const hits = yield* withinBudget(NAME, query.timeoutMs, (remaining) =>
      collectPages<Form>(query, { q: withOperators(query), ...chosen }, MAX_PAGES, (form) =>
        fetchPage(form, chosen, remaining),
      ),
    )
    return { hits, provider: "duckduckgo" }
  })
  return { name: "duckduckgo", sources: SOURCES, search }
}
