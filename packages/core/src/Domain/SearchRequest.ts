/**
 * The body of `POST /v2/search`, as Firecrawl v2 validates it (`searchRequestSchema`): sources and categories as
 * names or `{ type }` objects, domains to keep or leave out (not both), Google's `tbs`, and scrape options whose
 * formats default to none (results are only scraped when formats are asked for).
 */
import { Schema } from "effect"
import { decodeStrict } from "./Decode.js"
import { Formats } from "./Formats.js"
import { requestMetaFields, scrapeOptionFields, totalWaitWithinLimit, waitForWithinTimeout } from "./ScrapeOptions.js"

export const MAX_SEARCH_LIMIT = 100
export const DEFAULT_SEARCH_LIMIT = 10
export const DEFAULT_SEARCH_TIMEOUT_MS = 60_000

/** Per-source settings; a source given by name takes the request's own (images take none). */
const sourceSettings = {
  tbs: Schema.optional(Schema.String),
  lang: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String),
  location: Schema.optional(Schema.String),
}

const WebSource = Schema.Struct({
  type: Schema.Literal("web"),
  filter: Schema.optional(Schema.String),
  ...sourceSettings,
})
const NewsSource = Schema.Struct({ type: Schema.Literal("news"), ...sourceSettings })
const ImagesSource = Schema.Struct({ type: Schema.Literal("images") })
const SourceObject = Schema.Union(WebSource, NewsSource, ImagesSource)
export type SourceObject = typeof SourceObject.Type

const SourceName = Schema.transform(Schema.Literal("web", "news", "images"), SourceObject, {
  strict: false,
  decode: (type) => ({ type }),
  encode: (source) => source.type,
})

const CategoryType = Schema.Literal("github", "research", "pdf")
const CategoryObject = Schema.Struct({ type: CategoryType })
const CategoryName = Schema.transform(CategoryType, CategoryObject, {
  strict: true,
  decode: (type) => ({ type }),
  encode: (category) => category.type,
})

/** Formats a search result can be scraped into (Firecrawl's list; the others need a page of one's own). */
export const SEARCH_FORMATS = [
  "markdown",
  "html",
  "rawHtml",
  "links",
  "images",
  "summary",
  "product",
  "menu",
  "json",
  "question",
  "highlights",
  "query",
  "screenshot",
] as const

const SearchScrapeOptions = Schema.Struct({
  ...scrapeOptionFields,
  formats: Schema.optionalWith(
    Formats.pipe(
      Schema.filter(
        (formats) =>
          formats.every((format) => (SEARCH_FORMATS as ReadonlyArray<string>).includes(format.type)) ||
          `Search results can be scraped into ${SEARCH_FORMATS.join(", ")}`,
      ),
    ),
    { default: () => [] },
  ),
}).pipe(
  Schema.filter(waitForWithinTimeout),
  Schema.filter(totalWaitWithinLimit),
  Schema.annotations({ identifier: "SearchScrapeOptions" }),
)

/** A host name as given, or the host of a URL given instead (`https://example.com/docs` is `example.com`). */
const Domain = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (value) => {
    const trimmed = value.trim().toLowerCase()
    try {
      return /^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? new URL(trimmed).hostname : (trimmed.split("/")[0] ?? "")
    } catch {
      return trimmed
    }
  },
  encode: (host) => host,
}).pipe(Schema.filter((host) => /^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/.test(host) || `"${host}" is not a host name`))

export const SearchRequest = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(1, { message: () => "Query cannot be empty" })),
  /** Results per source. */
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, MAX_SEARCH_LIMIT)), {
    default: () => DEFAULT_SEARCH_LIMIT,
  }),
  sources: Schema.optionalWith(
    Schema.Array(Schema.Union(SourceObject, SourceName)).pipe(
      Schema.minItems(1, { message: () => "At least one source is required" }),
    ),
    { default: () => [{ type: "web" as const }] },
  ),
  categories: Schema.optional(Schema.Array(Schema.Union(CategoryObject, CategoryName))),
  includeDomains: Schema.optional(Schema.Array(Domain)),
  excludeDomains: Schema.optional(Schema.Array(Domain)),
  tbs: Schema.optional(Schema.String),
  /** Firecrawl's provider-specific filter string; no provider here shares its meaning. Accepted. */
  filter: Schema.optional(Schema.String),
  lang: Schema.optionalWith(Schema.String, { default: () => "en" }),
  /** Defaults to `us`, unless `location` is given. */
  country: Schema.optional(Schema.String),
  location: Schema.optional(Schema.String),
  safe: Schema.optional(Schema.Boolean),
  /** Budget of the whole search, scraping the results included. */
  timeout: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => DEFAULT_SEARCH_TIMEOUT_MS }),
  /** Leave out results that other endpoints would refuse (not http(s), no public host). */
  ignoreInvalidURLs: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Firecrawl's cloud highlights; the local index always has snippets. Accepted. */
  highlights: Schema.optional(Schema.Boolean),
  /** Accepted, as in Firecrawl's v2 (results are scraped before the answer either way). */
  asyncScraping: Schema.optional(Schema.Boolean),
  /** `zdr` / `anon`: nothing of the search or its scrapes is kept or indexed. */
  enterprise: Schema.optional(Schema.Array(Schema.Literal("default", "anon", "zdr"))),
  scrapeOptions: Schema.optional(SearchScrapeOptions),
  threatProtection: Schema.optional(Schema.Unknown),
  /** Firecrawl's cloud tool index (`developer` search); accepted, as its SDK may send them. */
  toolDetail: Schema.optional(Schema.Literal("compact", "summary", "full")),
  domainTools: Schema.optional(Schema.Boolean),
  ...requestMetaFields,
}).pipe(
  Schema.filter(
    (request) =>
      request.includeDomains === undefined ||
      request.excludeDomains === undefined || {
        path: ["includeDomains"],
        message: "includeDomains and excludeDomains cannot both be specified",
      },
  ),
  Schema.annotations({ identifier: "SearchRequest" }),
)

export type SearchRequest = typeof SearchRequest.Type
export type SearchRequestInput = typeof SearchRequest.Encoded

/** Decodes a request body strictly, failing with Firecrawl's 400 shape. */
export const decodeSearchRequest = decodeStrict(SearchRequest)
