/**
 * The web-search port. `POST /v2/search`, extract (`enableWebSearch`, or a prompt without URLs) and the agent's
 * `search` tool find pages through it. A provider answers one source (web, news or images) of one query at a time;
 * `SearchChain` puts several behind one (`WEBDATA_SEARCH=searxng,local`), falling through on failure.
 *
 * Queries come structured (the user's words, categories, domains, time range) so that each provider maps them to its
 * own parameters; `Search/Query.ts` has the mappings they share (the `site:` / `filetype:` operators, `tbs`).
 */
import { Context, type Effect } from "effect"
import type { SearchError } from "../Errors.js"

export { SearchError } from "../Errors.js"

export type SearchSource = "web" | "news" | "images"
/** Firecrawl's result categories; each narrows the query to a set of sites (`Search/Query.ts`). */
export type SearchCategory = "github" | "research" | "pdf"

export interface SearchQuery {
  readonly source: SearchSource
  /** The user's words (operators such as `site:` they typed are left as they are). */
  readonly query: string
  /** Results wanted at most; providers page through their answers until they have this many or run out. */
  readonly limit: number
  readonly categories?: ReadonlyArray<SearchCategory> | undefined
  /** Only results from these hosts (and their subdomains). */
  readonly includeDomains?: ReadonlyArray<string> | undefined
  /** No results from these hosts (and their subdomains). */
  readonly excludeDomains?: ReadonlyArray<string> | undefined
  /** Google's time filter: `qdr:h|d|w|m|y`, `cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY`, `sbd:1` (`parseTbs`). */
  readonly tbs?: string | undefined
  /** Language of the results, an ISO 639-1 code such as `en`. */
  readonly lang?: string | undefined
  /** Country of the results, an ISO 3166-1 alpha-2 code such as `us`. */
  readonly country?: string | undefined
  /** A place name, such as `San Francisco,California,United States`. */
  readonly location?: string | undefined
  /** Filter explicit content (safe search); undefined leaves the provider's default. */
  readonly safe?: boolean | undefined
  /** Budget of the whole query, paging included, in milliseconds. */
  readonly timeoutMs: number
  /** Who asks: the local index shows an owner only what it fetched. `null` is the embedded library. */
  readonly owner: string | null
}

/** One result. Web results have `url`, `title`, `description`; news add `date`; images `imageUrl` and its size. */
export interface SearchHit {
  /** The page (for an image: the page that shows it). */
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  /** Words of the page around the query terms, when the provider has them apart from `description`. */
  readonly snippet?: string | undefined
  /** When the item was published, as the provider says it (`2 hours ago`, an ISO date, ...). */
  readonly date?: string | undefined
  readonly imageUrl?: string | undefined
  readonly imageWidth?: number | undefined
  readonly imageHeight?: number | undefined
}

export interface SearchAnswer {
  readonly hits: ReadonlyArray<SearchHit>
  /** Which provider answered (a chain names the one that did). */
  readonly provider: string
  /** Why providers before it in a chain did not answer. */
  readonly warning?: string | undefined
}

export interface SearchProviderShape {
  /** The name in `WEBDATA_SEARCH` (`local`, `searxng`, ...), used in warnings. */
  readonly name: string
  /** The sources it can answer; others fail with `Unsupported` without a request. */
  readonly sources: ReadonlyArray<SearchSource>
  readonly search: (query: SearchQuery) => Effect.Effect<SearchAnswer, SearchError>
}

export class SearchProvider extends Context.Tag("@webdata/core/SearchProvider")<
  SearchProvider,
  SearchProviderShape
>() {}
