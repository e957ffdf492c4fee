/** The scraped document, as Firecrawl's v2 API returns it. Only the fields of the requested formats are present. */
import { Schema } from "effect"

const StringOrStrings = Schema.Union(Schema.String, Schema.Array(Schema.String))

export const DocumentMetadata = Schema.Struct(
  {
    title: Schema.optional(StringOrStrings),
    description: Schema.optional(StringOrStrings),
    language: Schema.optional(StringOrStrings),
    keywords: Schema.optional(StringOrStrings),
    robots: Schema.optional(StringOrStrings),
    favicon: Schema.optional(Schema.String),
    ogTitle: Schema.optional(StringOrStrings),
    ogDescription: Schema.optional(StringOrStrings),
    ogUrl: Schema.optional(StringOrStrings),
    ogImage: Schema.optional(StringOrStrings),
    ogSiteName: Schema.optional(StringOrStrings),
    /** The URL as the caller sent it. */
    sourceURL: Schema.String,
    /** The final URL after redirects. */
    url: Schema.String,
    /** The target's HTTP status; a non-2xx page is still a document. */
    statusCode: Schema.Int,
    contentType: Schema.optional(Schema.String),
    scrapeId: Schema.String,
    cacheState: Schema.optional(Schema.Literal("hit", "miss")),
    cachedAt: Schema.optional(Schema.String),
    proxyUsed: Schema.optional(Schema.Literal("basic", "stealth")),
    /** Which engine fetched the page: plain HTTP or the browser (absent for a copy from the cache). */
    engine: Schema.optional(Schema.Literal("http", "browser")),
    creditsUsed: Schema.optional(Schema.Number),
    error: Schema.optional(Schema.String),
    /** Pages read of a PDF (at most the parser's `maxPages`), slides of a presentation. */
    numPages: Schema.optional(Schema.Int),
    /** Pages in the PDF, when more than were read. */
    totalPages: Schema.optional(Schema.Int),
  },
  /** Every `<meta name|property|itemprop>` of the page under its raw key, and the other og/article/dc fields. */
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
).annotations({ identifier: "DocumentMetadata" })
export type DocumentMetadata = typeof DocumentMetadata.Type

/** A metadata value read as one string: a page with two `<meta name="description">` gives both; the first counts. */
export const firstOf = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

/** A PDF's pages each as markdown (the `pages` option of the PDF parser). */
export const PageMarkdown = Schema.Struct({ pageNumber: Schema.Int, markdown: Schema.String }).annotations({
  identifier: "PageMarkdown",
})
export type PageMarkdown = typeof PageMarkdown.Type

/** What the browser actions gave, each list in the order of its actions. */
export const ActionResults = Schema.Struct({
  screenshots: Schema.Array(Schema.String),
  scrapes: Schema.Array(Schema.Struct({ url: Schema.String, html: Schema.String })),
  javascriptReturns: Schema.Array(Schema.Struct({ type: Schema.String, value: Schema.Unknown })),
  pdfs: Schema.Array(Schema.String),
}).annotations({ identifier: "ActionResults" })
export type ActionResults = typeof ActionResults.Type

/** What the `changeTracking` format found: how the page compares with its previous scrape (same tag). */
export const ChangeTrackingResult = Schema.Struct({
  previousScrapeAt: Schema.NullOr(Schema.String),
  changeStatus: Schema.Literal("new", "same", "changed", "removed"),
  visibility: Schema.Literal("visible", "hidden"),
  /** `git-diff` mode: the unified diff (`text`) and its parsed form (`json`); `json` mode: per-field changes. */
  diff: Schema.optional(Schema.Struct({ text: Schema.optional(Schema.String), json: Schema.optional(Schema.Unknown) })),
  /** `json` mode: `{ "<path>": { previous, current } }` for each field that changed. */
  json: Schema.optional(Schema.Unknown),
}).annotations({ identifier: "ChangeTracking" })
export type ChangeTrackingResult = typeof ChangeTrackingResult.Type

export const Document = Schema.Struct({
  markdown: Schema.optional(Schema.String),
  html: Schema.optional(Schema.String),
  rawHtml: Schema.optional(Schema.String),
  links: Schema.optional(Schema.Array(Schema.String)),
  images: Schema.optional(Schema.Array(Schema.String)),
  screenshot: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String),
  json: Schema.optional(Schema.Unknown),
  warning: Schema.optional(Schema.String),
  actions: Schema.optional(ActionResults),
  pages: Schema.optional(Schema.Array(PageMarkdown)),
  changeTracking: Schema.optional(ChangeTrackingResult),
  metadata: DocumentMetadata,
}).annotations({ identifier: "Document" })

/** The document as the engine builds it (mutable arrays, open metadata). */
export interface Document {
  markdown?: string
  html?: string
  rawHtml?: string
  links?: Array<string>
  images?: Array<string>
  screenshot?: string
  summary?: string
  json?: unknown
  warning?: string
  actions?: ActionResults
  pages?: Array<PageMarkdown>
  changeTracking?: ChangeTrackingResult
  metadata: DocumentMetadata
}
