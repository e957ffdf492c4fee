/**
 * The v2 REST contract, declared once. Handlers (`Handlers.ts`) implement it, the OpenAPI document is generated from
 * it, and every HTTP adapter serves it through one web handler (`WebHandler.ts`).
 *
 * Handlers decode request bodies themselves (strictly, with Firecrawl's 400 shape) and build responses directly, so
 * the schemas here describe the wire format for the OpenAPI document and typed clients; a contract test checks that
 * real responses decode with them.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, JSONSchema, Schema } from "effect"
import { AgentRequest } from "../Domain/AgentRequest.js"
import { BatchScrapeRequest } from "../Domain/BatchScrapeRequest.js"
import { CrawlRequest, ParamsPreviewRequest } from "../Domain/CrawlRequest.js"
import { Document } from "../Domain/Document.js"
import { ExtractRequest } from "../Domain/ExtractRequest.js"
import { MapRequest } from "../Domain/MapRequest.js"
import { MonitorCreateRequest, MonitorUpdateRequest } from "../Domain/MonitorRequest.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"
import { SearchRequest } from "../Domain/SearchRequest.js"
import type { Owner } from "../Jobs/Owner.js"
import type { KeyEntry } from "../Tenants/ApiKey.js"
import { QuotaExceeded } from "../Tenants/Quotas.js"

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"
const BAD_REQUEST_DESCRIPTION =
  "Malformed JSON (BAD_REQUEST_INVALID_JSON), a validation failure (BAD_REQUEST; `details` lists the issues), or an option this server cannot honour yet"

/**
 * HttpApi documents its own decode error on every endpoint, but handlers decode bodies themselves and answer
 * `ErrorBody`, so that schema is dropped from the document to keep it true.
 */
const withoutDecodeError = (spec: Record<string, unknown>): Record<string, unknown> => {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (node === null || typeof node !== "object") return node
    const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, strip(value)])) as JsonObject
    if (Array.isArray(object.anyOf)) {
      const rest = object.anyOf.filter((member) => (member as JsonObject).$ref !== DECODE_ERROR_REF)
      if (rest.length === 1) {
        const { anyOf: _, ...others } = object
        return { ...others, ...(rest[0] as JsonObject) }
      }
      object.anyOf = rest
    }
    return object
  }
  const result = strip(spec) as OpenApi.OpenAPISpec
  for (const operations of Object.values(result.paths))
    for (const operation of Object.values(operations) as Array<OpenApi.OpenAPISpecOperation | undefined>) {
      const bad = operation?.responses?.["400"]
      if (operation === undefined || bad === undefined) continue
      const schema = bad.content?.["application/json"]?.schema as JsonObject | undefined
      if (schema?.$ref === DECODE_ERROR_REF) delete operation.responses["400"]
      else bad.description = BAD_REQUEST_DESCRIPTION
    }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete result.components.schemas[name]
  return result as unknown as Record<string, unknown>
}
type JsonObject = Record<string, unknown>

/** The error envelope: `{ success: false, code, error, details? }`. */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  code: Schema.optional(Schema.String),
  error: Schema.String,
  details: Schema.optional(Schema.Unknown),
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * Error responses for the document only. Handlers answer errors as ready responses, so at run time these schemas
 * must match nothing: HttpApi encodes unexpected failures against every declared error schema, and a structural
 * match would turn a defect into an empty response of the wrong status.
 */
const { $schema: _draft, ...errorBodyJsonSchema } = JSONSchema.make(ErrorBody)
const errorBody = (status: number, description: string) =>
  Schema.declare((_: unknown): _ is ErrorBody => false, {
    identifier: "ErrorBody",
    jsonSchema: errorBodyJsonSchema,
  }).annotations(HttpApiSchema.annotations({ status, description }))

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  {
    success: Schema.Literal(false),
    code: Schema.Literal("UNAUTHORIZED"),
    error: Schema.String,
  },
  HttpApiSchema.annotations({ status: 401, description: "Missing or invalid API key" }),
) {}

/**
 * Who is calling: the owner of what the request makes and reads (the key's digest; `null` when the server runs
 * without keys) and the key (its name, limits and flags; none on an open server).
 */
export interface CallerShape {
  readonly owner: Owner
  readonly key: KeyEntry | undefined
}
export class Caller extends Context.Tag("@webdata/core/Caller")<Caller, CallerShape>() {}

export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("Authorization", {
  failure: Schema.Union(Unauthorized, QuotaExceeded),
  provides: Caller,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "`Authorization: Bearer <key>`; not needed when the server runs open",
      ),
    ),
  },
}) {}

export const ScrapeResponse = Schema.Struct({ success: Schema.Literal(true), data: Document }).annotations({
  identifier: "ScrapeResponse",
})

const scrapeGroup = HttpApiGroup.make("scrape")
  .add(
    HttpApiEndpoint.post("scrape", "/v2/scrape")
      .setPayload(ScrapeRequest)
      .addSuccess(ScrapeResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(errorBody(403, "The target address is not allowed"))
      .addError(errorBody(404, "No cached data (minAge / lockdown)"))
      .addError(errorBody(408, "The scrape timed out (SCRAPE_TIMEOUT)"))
      .addError(errorBody(413, "Request body too large"))
      .addError(errorBody(500, "The target could not be scraped"))
      .annotate(OpenApi.Summary, "Scrape a single URL")
      .annotate(
        OpenApi.Description,
        "Fetches the URL and returns the requested formats (markdown, html, rawHtml, links, images).",
      ),
  )
  .add(
    HttpApiEndpoint.get("scrapeById", "/v2/scrape/:id")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(ScrapeResponse)
      .addError(errorBody(400, "The scrape id is not a UUID"))
      .addError(errorBody(404, "Unknown scrape, expired, or another key's"))
      .annotate(OpenApi.Summary, "A stored scrape result")
      .annotate(OpenApi.Description, "Every scrape keeps its document for the job TTL unless `zeroDataRetention`."),
  )
  .middleware(Authorization)

/** The multipart form of `/v2/parse`, for the OpenAPI document (the handler reads the stream itself). */
const ParseUpload = HttpApiSchema.Multipart(
  Schema.Struct({
    file: Schema.Unknown.annotations({
      description:
        "The file: PDF, DOCX/DOCM, XLSX/XLSM/XLSB/XLS, ODS, PPTX, ODP, ODT, RTF, EPUB, CSV/TSV, HTML/XHTML, XML, JSON or text. Its bytes decide what it is.",
    }),
    options: Schema.optional(
      Schema.String.annotations({
        description:
          "JSON of the scrape options that apply to a file (formats, onlyMainContent, includeTags, excludeTags, parsers, timeout, removeBase64Images).",
      }),
    ),
  }),
)

const parseGroup = HttpApiGroup.make("parse")
  .add(
    HttpApiEndpoint.post("parse", "/v2/parse")
      .setPayload(ParseUpload)
      .addSuccess(ScrapeResponse)
      .addError(errorBody(400, "Not a multipart upload, no `file`, bad options, or PARSE_UNSUPPORTED_OPTIONS"))
      .addError(errorBody(408, "The file took longer than `timeout` to parse (SCRAPE_TIMEOUT)"))
      .addError(errorBody(413, "The upload is larger than WEBDATA_MAX_UPLOAD_BYTES (default 50 MB)"))
      .addError(errorBody(415, "A kind of file that is not parsed (SCRAPE_UNSUPPORTED_FILE_ERROR)"))
      .addError(errorBody(422, "The file is corrupt, encrypted or too large once unpacked (PARSE_FAILED)"))
      .annotate(OpenApi.Summary, "Upload and parse a file")
      .annotate(
        OpenApi.Description,
        "Multipart `file` and optional `options` (JSON). Answers the file as a document in the requested formats.",
      ),
  )
  .middleware(Authorization)

const JobId = Schema.Struct({ id: Schema.String })
const JobPage = Schema.Struct({
  skip: Schema.optional(Schema.NumberFromString),
  limit: Schema.optional(Schema.NumberFromString),
})

export const JobStartedResponse = Schema.Struct({
  success: Schema.Literal(true),
  id: Schema.String,
  /** The absolute status URL. */
  url: Schema.String,
}).annotations({ identifier: "JobStartedResponse" })

export const CrawlStartedResponse = Schema.Struct({
  ...JobStartedResponse.fields,
  promptGeneratedOptions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  finalCrawlerOptions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** A prompt that gave no crawler options: the crawl runs with the explicit ones. */
  warning: Schema.optional(Schema.String),
}).annotations({ identifier: "CrawlStartedResponse" })

export const BatchStartedResponse = Schema.Struct({
  ...JobStartedResponse.fields,
  invalidURLs: Schema.optional(Schema.Array(Schema.String)),
}).annotations({ identifier: "BatchScrapeStartedResponse" })

export const JobStatusResponse = Schema.Struct({
  success: Schema.Literal(true),
  status: Schema.Literal("scraping", "completed", "failed", "cancelled"),
  /** Pages recorded with a document. */
  completed: Schema.Int,
  /** Pages admitted so far, failed ones left out (completed once the job has ended). */
  total: Schema.Int,
  creditsUsed: Schema.Int,
  expiresAt: Schema.String,
  createdAt: Schema.String,
  completedAt: Schema.optional(Schema.String),
  /** Seconds from `createdAt` to `completedAt`, or to now while the job runs. */
  duration: Schema.Number,
  /** The next page of documents (absolute URL), while the job runs or more documents remain. */
  next: Schema.optional(Schema.String),
  data: Schema.Array(Document),
  warning: Schema.optional(Schema.String),
}).annotations({ identifier: "JobStatusResponse" })

export const CancelResponse = Schema.Struct({ status: Schema.Literal("cancelled") }).annotations({
  identifier: "CancelResponse",
})

export const JobErrorsResponse = Schema.Struct({
  errors: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      timestamp: Schema.optional(Schema.String),
      url: Schema.String,
      code: Schema.optional(Schema.String),
      error: Schema.String,
    }),
  ),
  robotsBlocked: Schema.Array(Schema.String),
}).annotations({ identifier: "JobErrorsResponse" })

export const ActiveCrawlsResponse = Schema.Struct({
  success: Schema.Literal(true),
  crawls: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      teamId: Schema.String,
      url: Schema.String,
      created_at: Schema.String,
      options: Schema.Unknown,
    }),
  ),
}).annotations({ identifier: "ActiveCrawlsResponse" })

export const ParamsPreviewResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
}).annotations({ identifier: "ParamsPreviewResponse" })

export const MapResponse = Schema.Struct({
  success: Schema.Literal(true),
  id: Schema.String,
  links: Schema.Array(
    Schema.Struct({
      url: Schema.String,
      title: Schema.optional(Schema.String),
      description: Schema.optional(Schema.String),
    }),
  ),
  warning: Schema.optional(Schema.String),
}).annotations({ identifier: "MapResponse" })

const jobNotFound = errorBody(404, "Unknown job, or another key's")
const badJobId = errorBody(400, "The job id is not a UUID")

/** Status, cancel and errors of a job kind: one set of endpoints for crawl and batch scrape. */
const jobEndpoints = <Prefix extends "crawl" | "batch">(prefix: Prefix, path: `/${string}`, noun: string) =>
  [
    HttpApiEndpoint.get(`${prefix}Status`, `${path}/:id`)
      .setPath(JobId)
      .setUrlParams(JobPage)
      .addSuccess(JobStatusResponse)
      .addError(badJobId)
      .addError(jobNotFound)
      .annotate(OpenApi.Summary, `Status and documents of a ${noun}`)
      .annotate(
        OpenApi.Description,
        "Documents are paged with `skip` and `limit` (default 100); `next` is the absolute URL of the following page.",
      ),
    HttpApiEndpoint.del(`${prefix}Cancel`, `${path}/:id`)
      .setPath(JobId)
      .addSuccess(CancelResponse)
      .addError(badJobId)
      .addError(jobNotFound)
      .addError(errorBody(409, "The job has already completed"))
      .annotate(OpenApi.Summary, `Cancel a ${noun}`),
    HttpApiEndpoint.get(`${prefix}Errors`, `${path}/:id/errors`)
      .setPath(JobId)
      .addSuccess(JobErrorsResponse)
      .addError(badJobId)
      .addError(jobNotFound)
      .annotate(OpenApi.Summary, `Errors and robots.txt-blocked URLs of a ${noun}`),
  ] as const

const [crawlStatus, crawlCancel, crawlErrors] = jobEndpoints("crawl", "/v2/crawl", "crawl")
const [batchStatus, batchCancel, batchErrors] = jobEndpoints("batch", "/v2/batch/scrape", "batch scrape")

const crawlGroup = HttpApiGroup.make("crawl")
  .add(
    HttpApiEndpoint.post("crawl", "/v2/crawl")
      .setPayload(CrawlRequest)
      .addSuccess(CrawlStartedResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(errorBody(403, "An option the operator has not enabled (ignoreRobotsTxt)"))
      .annotate(OpenApi.Summary, "Start a crawl")
      .annotate(
        OpenApi.Description,
        "Crawls a site from `url` within the given limits and scrapes every page; poll the returned `url` for results.",
      ),
  )
  .add(
    HttpApiEndpoint.post("paramsPreview", "/v2/crawl/params-preview")
      .setPayload(ParamsPreviewRequest)
      .addSuccess(ParamsPreviewResponse)
      .addError(errorBody(400, "The prompt could not be read into options"))
      .annotate(OpenApi.Summary, "The crawl options a prompt stands for"),
  )
  .add(
    HttpApiEndpoint.get("crawlActive", "/v2/crawl/active")
      .addSuccess(ActiveCrawlsResponse)
      .annotate(OpenApi.Summary, "Running crawls of the caller"),
  )
  .add(
    HttpApiEndpoint.get("crawlOngoing", "/v2/crawl/ongoing")
      .addSuccess(ActiveCrawlsResponse)
      .annotate(OpenApi.Summary, "Running crawls of the caller (alias of /v2/crawl/active)"),
  )
  .add(crawlStatus)
  .add(crawlCancel)
  .add(crawlErrors)
  .middleware(Authorization)

const batchGroup = HttpApiGroup.make("batch")
  .add(
    HttpApiEndpoint.post("batchScrape", "/v2/batch/scrape")
      .setPayload(BatchScrapeRequest)
      .addSuccess(BatchStartedResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(jobNotFound)
      .annotate(OpenApi.Summary, "Start a batch scrape")
      .annotate(OpenApi.Description, "Scrapes every URL with the same options; `appendToId` adds URLs to a batch."),
  )
  .add(batchStatus)
  .add(batchCancel)
  .add(batchErrors)
  .middleware(Authorization)

const mapGroup = HttpApiGroup.make("map")
  .add(
    HttpApiEndpoint.post("map", "/v2/map")
      .setPayload(MapRequest)
      .addSuccess(MapResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(errorBody(408, "The map timed out (MAP_TIMEOUT)"))
      .addError(errorBody(500, "The site could not be mapped (MAP_FAILED)"))
      .annotate(OpenApi.Summary, "List the URLs of a site")
      .annotate(
        OpenApi.Description,
        "Sitemaps plus link discovery from the start page; `search` ranks the links by relevance.",
      ),
  )
  .middleware(Authorization)

const searchItemFields = {
  url: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  /** Words of the page around the query terms (the local index, some providers). */
  snippet: Schema.optional(Schema.String),
  position: Schema.Int,
  category: Schema.optional(Schema.Literal("github", "research", "pdf")),
}
/** A scraped result also carries its document's fields (markdown, html, links, metadata, ...). */
const documentFields = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const SearchResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    web: Schema.optional(Schema.Array(Schema.Struct(searchItemFields, documentFields))),
    news: Schema.optional(
      Schema.Array(
        Schema.Struct(
          { ...searchItemFields, date: Schema.optional(Schema.String), imageUrl: Schema.optional(Schema.String) },
          documentFields,
        ),
      ),
    ),
    images: Schema.optional(
      Schema.Array(
        Schema.Struct({
          url: Schema.String,
          title: Schema.optional(Schema.String),
          imageUrl: Schema.optional(Schema.String),
          imageWidth: Schema.optional(Schema.Number),
          imageHeight: Schema.optional(Schema.Number),
          position: Schema.Int,
        }),
      ),
    ),
  }),
  creditsUsed: Schema.Number,
  id: Schema.String,
  warning: Schema.optional(Schema.String),
}).annotations({ identifier: "SearchResponse" })

const searchGroup = HttpApiGroup.make("search")
  .add(
    HttpApiEndpoint.post("search", "/v2/search")
      .setPayload(SearchRequest)
      .addSuccess(SearchResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(errorBody(408, "The search found nothing within its timeout (SCRAPE_TIMEOUT)"))
      .addError(
        errorBody(502, "No configured search provider could answer (SEARCH_UNAVAILABLE, SEARCH_RATE_LIMITED, ...)"),
      )
      .annotate(OpenApi.Summary, "Search the web, and optionally scrape the results")
      .annotate(
        OpenApi.Description,
        "Asks the configured providers (WEBDATA_SEARCH: the local index of scraped pages, SearXNG, Brave, DuckDuckGo, Serper) for web, news and image results; with `scrapeOptions.formats` each web and news result is scraped.",
      ),
  )
  .middleware(Authorization)

export const SessionResponse = Schema.Struct({
  success: Schema.Literal(true),
  id: Schema.String,
  /** The session's Chrome DevTools Protocol WebSocket (for `chromium.connectOverCDP`); its token is in the URL. */
  cdpUrl: Schema.String,
  liveViewUrl: Schema.String,
  interactiveLiveViewUrl: Schema.String,
  expiresAt: Schema.String,
}).annotations({ identifier: "SessionResponse" })

export const SessionListResponse = Schema.Struct({
  success: Schema.Literal(true),
  sessions: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      status: Schema.Literal("active", "destroyed"),
      cdpUrl: Schema.String,
      liveViewUrl: Schema.String,
      interactiveLiveViewUrl: Schema.String,
      streamWebView: Schema.Boolean,
      createdAt: Schema.String,
      lastActivity: Schema.String,
      expiresAt: Schema.String,
    }),
  ),
}).annotations({ identifier: "SessionListResponse" })

export const ExecuteResponse = Schema.Struct({
  success: Schema.Literal(true),
  stdout: Schema.optional(Schema.NullOr(Schema.String)),
  /** Alias of `stdout`. */
  result: Schema.optional(Schema.NullOr(Schema.String)),
  stderr: Schema.optional(Schema.NullOr(Schema.String)),
  exitCode: Schema.optional(Schema.NullOr(Schema.Int)),
  killed: Schema.optional(Schema.Boolean),
  error: Schema.optional(Schema.NullOr(Schema.String)),
  /** With `actions`: the page's URL after them, and what they gave. */
  url: Schema.optional(Schema.String),
  actions: Schema.optional(Schema.Unknown),
}).annotations({ identifier: "ExecuteResponse" })

export const ScrapeInteractResponse = Schema.Struct({
  ...ExecuteResponse.fields,
  sessionId: Schema.String,
  cdpUrl: Schema.String,
  liveViewUrl: Schema.String,
  interactiveLiveViewUrl: Schema.String,
}).annotations({ identifier: "ScrapeInteractResponse" })

export const SessionDeletedResponse = Schema.Struct({
  success: Schema.Literal(true),
  sessionDurationMs: Schema.Int,
  creditsBilled: Schema.Number,
}).annotations({ identifier: "SessionDeletedResponse" })

const SessionId = Schema.Struct({ id: Schema.String })
const sessionNotFound = errorBody(404, "Unknown session, or another key's")
const sessionGone = errorBody(410, "The session has ended")
const needsBrowserEngine = errorBody(400, "A bad body, or this server has no browser engine (SCRAPE_BROWSER_REQUIRED)")

/** Firecrawl serves its session routes under `/v2/interact` and, for older clients, `/v2/browser`. */
const sessionEndpoints = <Prefix extends "interact" | "browser">(prefix: Prefix) =>
  [
    HttpApiEndpoint.post(`${prefix}Create`, `/v2/${prefix}`)
      .addSuccess(SessionResponse)
      .addError(needsBrowserEngine)
      .addError(errorBody(409, "The profile is in use by another session that saves changes"))
      .addError(errorBody(429, "Too many active browser sessions"))
      .annotate(OpenApi.Summary, "Open a browser session"),
    HttpApiEndpoint.get(`${prefix}List`, `/v2/${prefix}`)
      .setUrlParams(Schema.Struct({ status: Schema.optional(Schema.String) }))
      .addSuccess(SessionListResponse)
      .annotate(OpenApi.Summary, "The caller's browser sessions"),
    HttpApiEndpoint.get(`${prefix}Get`, `/v2/${prefix}/:id`)
      .setPath(SessionId)
      .addSuccess(SessionListResponse.fields.sessions.value)
      .addError(sessionNotFound)
      .annotate(OpenApi.Summary, "A browser session"),
    HttpApiEndpoint.del(`${prefix}Delete`, `/v2/${prefix}/:id`)
      .setPath(SessionId)
      .addSuccess(SessionDeletedResponse)
      .addError(sessionNotFound)
      .addError(sessionGone)
      .annotate(OpenApi.Summary, "End a browser session (its profile is saved when it saves changes)"),
    HttpApiEndpoint.post(`${prefix}Execute`, `/v2/${prefix}/:id/execute`)
      .setPath(SessionId)
      .addSuccess(ExecuteResponse)
      .addError(errorBody(400, "A bad body, or a language other than node"))
      .addError(errorBody(403, "Code is turned off on this server (WEBDATA_INTERACT_ALLOW_CODE)"))
      .addError(sessionNotFound)
      .addError(sessionGone)
      .addError(errorBody(500, "An action failed (SCRAPE_ACTION_ERROR)"))
      .annotate(OpenApi.Summary, "Run actions or Node.js code in a browser session")
      .annotate(
        OpenApi.Description,
        "`actions` (the scrape's action list) always; `code` with `language: node` only where the operator allows it: it runs in a child process with `page`, `context` and `browser` in scope, and its console output is `stdout`.",
      ),
  ] as const

const [interactCreate, interactList, interactGet, interactDelete, interactExecute] = sessionEndpoints("interact")
const [browserCreate, browserList, browserGet, browserDelete, browserExecute] = sessionEndpoints("browser")

const interactGroup = HttpApiGroup.make("interact")
  .add(interactCreate)
  .add(interactList)
  .add(interactGet)
  .add(interactDelete)
  .add(interactExecute)
  .add(browserCreate)
  .add(browserList)
  .add(browserGet)
  .add(browserDelete)
  .add(browserExecute)
  .add(
    HttpApiEndpoint.post("scrapeInteract", "/v2/scrape/:id/interact")
      .setPath(SessionId)
      .addSuccess(ScrapeInteractResponse)
      .addError(errorBody(400, "A bad body or job id"))
      .addError(errorBody(404, "Unknown scrape, expired, or another key's"))
      .addError(errorBody(409, "The scrape kept nothing to continue from (zero data retention)"))
      .annotate(OpenApi.Summary, "Continue a scrape's page in a browser session")
      .annotate(
        OpenApi.Description,
        "Opens (once) a session on the scrape's final URL with its emulation, then runs the actions or code like execute.",
      ),
  )
  .add(
    HttpApiEndpoint.del("scrapeInteractStop", "/v2/scrape/:id/interact")
      .setPath(SessionId)
      .addSuccess(SessionDeletedResponse)
      .addError(errorBody(404, "No session continues this scrape"))
      .annotate(OpenApi.Summary, "End the session that continues a scrape"),
  )
  .middleware(Authorization)

export const ExtractStartedResponse = Schema.Struct({
  success: Schema.Literal(true),
  id: Schema.String,
  /** URLs dropped as invalid (present when some were). */
  invalidURLs: Schema.optional(Schema.Array(Schema.String)),
}).annotations({ identifier: "ExtractStartedResponse" })

const TokenUsage = Schema.Struct({ inputTokens: Schema.Int, outputTokens: Schema.Int })

export const ExtractStatusResponse = Schema.Struct({
  success: Schema.Boolean,
  id: Schema.String,
  status: Schema.Literal("processing", "completed", "failed", "cancelled"),
  /** The merged value once completed; `[]` before. */
  data: Schema.Unknown,
  error: Schema.optional(Schema.String),
  warning: Schema.optional(Schema.String),
  warnings: Schema.optional(Schema.Array(Schema.String)),
  /** With `showSources`: each field's path (`products[0].name`) → the URLs that gave it. */
  sources: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
  expiresAt: Schema.String,
  creditsUsed: Schema.Number,
  tokensUsed: Schema.Number,
  llmUsage: TokenUsage,
  /** Pages read, and pages that could not be read. */
  pages: Schema.Int,
  failedPages: Schema.Int,
}).annotations({ identifier: "ExtractStatusResponse" })

const extractGroup = HttpApiGroup.make("extract")
  .add(
    HttpApiEndpoint.post("extract", "/v2/extract")
      .setPayload(ExtractRequest)
      .addSuccess(ExtractStartedResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .annotate(OpenApi.Summary, "Start extracting structured data from pages")
      .annotate(
        OpenApi.Description,
        "`urls` may end in `/*` for every page under a path. With a language model configured (WEBDATA_LLM) the model reads each page; without one, a `schema` is filled by the offline extractor from the pages' structured data, and a request without a schema answers 400 LLM_NOT_CONFIGURED.",
      ),
  )
  .add(
    HttpApiEndpoint.get("extractStatus", "/v2/extract/:id")
      .setPath(JobId)
      .addSuccess(ExtractStatusResponse)
      .addError(badJobId)
      .addError(jobNotFound)
      .annotate(OpenApi.Summary, "Status and merged data of an extract"),
  )
  .middleware(Authorization)

export const AgentStartedResponse = Schema.Struct({ success: Schema.Literal(true), id: Schema.String }).annotations({
  identifier: "AgentStartedResponse",
})

export const AgentStepView = Schema.Struct({
  step: Schema.Int,
  tool: Schema.Literal("search", "map", "scrape", "browse", "extract", "finish"),
  input: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  output: Schema.String,
  thought: Schema.optional(Schema.String),
  at: Schema.String,
}).annotations({ identifier: "AgentStep" })

export const AgentStatusResponse = Schema.Struct({
  success: Schema.Boolean,
  status: Schema.Literal("processing", "completed", "failed", "cancelled"),
  data: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String),
  model: Schema.String,
  expiresAt: Schema.String,
  creditsUsed: Schema.Number,
  tokensUsed: Schema.Number,
  steps: Schema.Array(AgentStepView),
}).annotations({ identifier: "AgentStatusResponse" })

const MonitorPath = Schema.Struct({ id: Schema.String })
const MonitorCheckPath = Schema.Struct({ id: Schema.String, checkId: Schema.String })
const ListParams = Schema.Struct({
  limit: Schema.optional(Schema.NumberFromString),
  offset: Schema.optional(Schema.NumberFromString),
})
const monitorNotFound = errorBody(404, "Unknown monitor, or another key's")
const describedData = (identifier: string, description: string) =>
  Schema.Struct({ success: Schema.Literal(true), data: Schema.Unknown.annotations({ description }) }).annotations({
    identifier,
  })
export const MonitorResponse = describedData("MonitorResponse", "The monitor, in Firecrawl's `Monitor` shape")
export const MonitorListResponse = describedData("MonitorListResponse", "The caller's monitors, newest first")
export const MonitorRunResponse = Schema.Struct({
  success: Schema.Literal(true),
  id: Schema.String,
  data: Schema.Unknown.annotations({ description: "The check, in Firecrawl's `MonitorCheck` shape" }),
}).annotations({ identifier: "MonitorRunResponse" })
export const MonitorCheckListResponse = describedData("MonitorCheckListResponse", "The monitor's checks, newest first")
export const MonitorCheckDetailResponse = Schema.Struct({
  success: Schema.Literal(true),
  next: Schema.optional(Schema.NullOr(Schema.String)),
  data: Schema.Unknown.annotations({ description: "The check with a page of its pages (`MonitorCheckPage`)" }),
}).annotations({ identifier: "MonitorCheckDetailResponse" })

const monitorGroup = HttpApiGroup.make("monitor")
  .add(
    HttpApiEndpoint.post("monitorCreate", "/v2/monitor")
      .setPayload(MonitorCreateRequest)
      .addSuccess(MonitorResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .annotate(OpenApi.Summary, "Create a monitor: targets checked on a schedule, changes sent by webhook and email"),
  )
  .add(
    HttpApiEndpoint.get("monitorList", "/v2/monitor")
      .setUrlParams(ListParams)
      .addSuccess(MonitorListResponse)
      .annotate(OpenApi.Summary, "List monitors"),
  )
  .add(
    HttpApiEndpoint.get("monitorGet", "/v2/monitor/:id")
      .setPath(MonitorPath)
      .addSuccess(MonitorResponse)
      .addError(monitorNotFound)
      .annotate(OpenApi.Summary, "Get a monitor"),
  )
  .add(
    HttpApiEndpoint.patch("monitorUpdate", "/v2/monitor/:id")
      .setPath(MonitorPath)
      .setPayload(MonitorUpdateRequest)
      .addSuccess(MonitorResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(monitorNotFound)
      .annotate(OpenApi.Summary, "Update a monitor (pause or resume it with `status`)"),
  )
  .add(
    HttpApiEndpoint.del("monitorDelete", "/v2/monitor/:id")
      .setPath(MonitorPath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(monitorNotFound)
      .annotate(OpenApi.Summary, "Delete a monitor with its checks"),
  )
  .add(
    HttpApiEndpoint.post("monitorRun", "/v2/monitor/:id/run")
      .setPath(MonitorPath)
      .addSuccess(MonitorRunResponse)
      .addError(monitorNotFound)
      .addError(errorBody(409, "A check of the monitor is already running"))
      .annotate(OpenApi.Summary, "Run a monitor's check now"),
  )
  .add(
    HttpApiEndpoint.get("monitorChecks", "/v2/monitor/:id/checks")
      .setPath(MonitorPath)
      .setUrlParams(Schema.Struct({ ...ListParams.fields, status: Schema.optional(Schema.String) }))
      .addSuccess(MonitorCheckListResponse)
      .addError(monitorNotFound)
      .annotate(OpenApi.Summary, "List a monitor's checks"),
  )
  .add(
    HttpApiEndpoint.get("monitorCheck", "/v2/monitor/:id/checks/:checkId")
      .setPath(MonitorCheckPath)
      .setUrlParams(
        Schema.Struct({
          limit: Schema.optional(Schema.NumberFromString),
          skip: Schema.optional(Schema.NumberFromString),
          status: Schema.optional(Schema.String),
        }),
      )
      .addSuccess(MonitorCheckDetailResponse)
      .addError(errorBody(404, "Unknown monitor or check"))
      .annotate(OpenApi.Summary, "A check with its pages: status, diff and judgment of each")
      .annotate(
        OpenApi.Description,
        "Pages are paged with `skip` and `limit` (default 25); `next` is the following page's URL.",
      ),
  )
  .middleware(Authorization)

const agentGroup = HttpApiGroup.make("agent")
  .add(
    HttpApiEndpoint.post("agent", "/v2/agent")
      .setPayload(AgentRequest)
      .addSuccess(AgentStartedResponse)
      .addError(errorBody(400, `${BAD_REQUEST_DESCRIPTION}; LLM_NOT_CONFIGURED without a language model`))
      .annotate(OpenApi.Summary, "Start an agent that searches, maps, reads and extracts pages toward a goal"),
  )
  .add(
    HttpApiEndpoint.get("agentStatus", "/v2/agent/:id")
      .setPath(JobId)
      .addSuccess(AgentStatusResponse)
      .addError(badJobId)
      .addError(errorBody(404, "Agent job not found"))
      .annotate(OpenApi.Summary, "Status, steps and data of an agent run"),
  )
  .add(
    HttpApiEndpoint.del("agentCancel", "/v2/agent/:id")
      .setPath(JobId)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(badJobId)
      .addError(errorBody(404, "Agent job not found"))
      .addError(errorBody(409, "Agent already finished / already cancelled"))
      .annotate(OpenApi.Summary, "Cancel an agent run"),
  )
  .middleware(Authorization)

/** Pages opened by URL (a token in the URL instead of a key): a session's live view, a stored screenshot or PDF. */
const publicGroup = HttpApiGroup.make("public")
  .add(
    HttpApiEndpoint.get("artifact", "/v2/artifacts/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .addSuccess(Schema.Unknown)
      .addError(errorBody(404, "Unknown or expired artifact, or no artifact store"))
      .annotate(OpenApi.Summary, "A screenshot or PDF kept by the artifact store (WEBDATA_ARTIFACTS)"),
  )
  .add(
    HttpApiEndpoint.get("liveView", "/v2/interact/:id/live")
      .setPath(SessionId)
      .setUrlParams(Schema.Struct({ token: Schema.optional(Schema.String) }))
      .addSuccess(Schema.String)
      .addError(errorBody(404, "Unknown session or token"))
      .annotate(OpenApi.Summary, "A page showing the session live (the interactive URL's token also forwards input)"),
  )

const UsageQuery = Schema.Struct({ byApiKey: Schema.optional(Schema.String) })
const billingPeriod = {
  billingPeriodStart: Schema.NullOr(Schema.String),
  billingPeriodEnd: Schema.NullOr(Schema.String),
}
const historicalPeriod = {
  startDate: Schema.NullOr(Schema.String),
  endDate: Schema.NullOr(Schema.String),
  apiKey: Schema.optional(Schema.String),
}

/** Usage and load of the caller's key, as Firecrawl's clients read them (see docs/api.md for the costing). */
const teamGroup = HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.get("creditUsage", "/v2/team/credit-usage")
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          data: Schema.Struct({
            remainingCredits: Schema.Number,
            planCredits: Schema.Number,
            creditsUsed: Schema.Number,
            ...billingPeriod,
          }),
        }),
      )
      .annotate(OpenApi.Summary, "Credits used and left this month (unlimited keys: 9007199254740991 left)"),
  )
  .add(
    HttpApiEndpoint.get("creditUsageHistorical", "/v2/team/credit-usage/historical")
      .setUrlParams(UsageQuery)
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          periods: Schema.Array(Schema.Struct({ ...historicalPeriod, creditsUsed: Schema.Number })),
        }),
      )
      .annotate(OpenApi.Summary, "Credits used per month, the last 12 months"),
  )
  .add(
    HttpApiEndpoint.get("tokenUsage", "/v2/team/token-usage")
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          data: Schema.Struct({
            remainingTokens: Schema.Number,
            planTokens: Schema.Number,
            tokensUsed: Schema.Number,
            ...billingPeriod,
          }),
        }),
      )
      .annotate(OpenApi.Summary, "Language-model tokens used this month"),
  )
  .add(
    HttpApiEndpoint.get("tokenUsageHistorical", "/v2/team/token-usage/historical")
      .setUrlParams(UsageQuery)
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          periods: Schema.Array(Schema.Struct({ ...historicalPeriod, tokensUsed: Schema.Number })),
        }),
      )
      .annotate(OpenApi.Summary, "Tokens used per month, the last 12 months"),
  )
  .add(
    HttpApiEndpoint.get("queueStatus", "/v2/team/queue-status")
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          jobsInQueue: Schema.Number,
          activeJobsInQueue: Schema.Number,
          waitingJobsInQueue: Schema.Number,
          maxConcurrency: Schema.Number,
          mostRecentSuccess: Schema.NullOr(Schema.String),
        }),
      )
      .annotate(OpenApi.Summary, "The key's pages waiting and in progress"),
  )
  // Firecrawl's v1 paths of the same answers, for its v1 clients; out of the v2 document.
  .add(HttpApiEndpoint.get("v1CreditUsage", "/v1/team/credit-usage").annotate(OpenApi.Exclude, true))
  .add(
    HttpApiEndpoint.get("v1CreditUsageHistorical", "/v1/team/credit-usage/historical")
      .setUrlParams(UsageQuery)
      .annotate(OpenApi.Exclude, true),
  )
  .add(HttpApiEndpoint.get("v1TokenUsage", "/v1/team/token-usage").annotate(OpenApi.Exclude, true))
  .add(
    HttpApiEndpoint.get("v1TokenUsageHistorical", "/v1/team/token-usage/historical")
      .setUrlParams(UsageQuery)
      .annotate(OpenApi.Exclude, true),
  )
  .add(HttpApiEndpoint.get("v1QueueStatus", "/v1/team/queue-status").annotate(OpenApi.Exclude, true))
  .add(HttpApiEndpoint.get("v1ConcurrencyCheck", "/v1/concurrency-check").annotate(OpenApi.Exclude, true))
  .add(
    HttpApiEndpoint.get("concurrencyCheck", "/v2/concurrency-check")
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), concurrency: Schema.Number, maxConcurrency: Schema.Number }),
      )
      .annotate(OpenApi.Summary, "The key's jobs in progress and how many it may have"),
  )
  .middleware(Authorization)

/** The admin key (`WEBDATA_ADMIN_KEY`), for the key-management routes. */
export class AdminAuthorization extends HttpApiMiddleware.Tag<AdminAuthorization>()("AdminAuthorization", {
  failure: Unauthorized,
  security: { bearer: HttpApiSecurity.bearer },
}) {}

export const KeyView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  source: Schema.Literal("environment", "file", "admin"),
  limits: Schema.String,
  flags: Schema.Array(Schema.String),
  createdAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String),
}).annotations({ identifier: "KeyView" })

/** A key for a caller that proves who it is with an identity provider's signed assertion (no key needed). */
const registrationGroup = HttpApiGroup.make("registration").add(
  HttpApiEndpoint.post("keyRegister", "/v2/keys/register")
    .setPayload(Schema.Struct({ assertion: Schema.String }))
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), key: Schema.String, data: KeyView }))
    .addError(errorBody(400, "No assertion"))
    .addError(errorBody(401, "The assertion is not a JWT of a trusted issuer, or does not verify"))
    .addError(errorBody(404, "Registration is off (no WEBDATA_KEY_ISSUERS)"))
    .addError(errorBody(429, "Too many registrations from the client address; `Retry-After` says when to try again"))
    .annotate(OpenApi.Summary, "Get a key with a signed identity assertion (a JWT of a trusted issuer)"),
)

const adminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("keyCreate", "/v2/admin/keys")
      .setPayload(
        Schema.Struct({
          name: Schema.String,
          limits: Schema.optional(Schema.Unknown),
          flags: Schema.optional(Schema.Array(Schema.String)),
        }),
      )
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), key: Schema.String, data: KeyView }))
      .addError(errorBody(400, "A bad name, limits or flags"))
      .addError(errorBody(404, "The admin API is off (no WEBDATA_ADMIN_KEY)"))
      .annotate(OpenApi.Summary, "Make an API key (the key is answered this once)"),
  )
  .add(
    HttpApiEndpoint.get("keyList", "/v2/admin/keys")
      .setUrlParams(
        Schema.Struct({
          offset: Schema.optional(Schema.NumberFromString),
          limit: Schema.optional(Schema.NumberFromString),
        }),
      )
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(KeyView) }))
      .annotate(OpenApi.Summary, "Every key: environment, keys file and admin-made"),
  )
  .add(
    HttpApiEndpoint.del("keyRevoke", "/v2/admin/keys/:id")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: KeyView }))
      .addError(errorBody(404, "Unknown key"))
      .addError(errorBody(409, "A key of the environment or the keys file (remove it there)"))
      .annotate(OpenApi.Summary, "Revoke a key: every process refuses it within 2 seconds"),
  )
  .middleware(AdminAuthorization)

/**
 * Firecrawl's v1 API, translated to the v2 services (`V1/`): kept for clients that still speak it, and left out of
 * the document, which describes v2. Bodies are read by the handlers.
 */
const v1JobEndpoints = <Prefix extends "crawl" | "batch">(prefix: Prefix, path: `/${string}`) =>
  [
    HttpApiEndpoint.get(`v1${prefix}Status`, `${path}/:id`).setPath(JobId).setUrlParams(JobPage),
    HttpApiEndpoint.del(`v1${prefix}Cancel`, `${path}/:id`).setPath(JobId),
    HttpApiEndpoint.get(`v1${prefix}Errors`, `${path}/:id/errors`).setPath(JobId),
    // The official SDK's v1 client asks for errors with DELETE.
    HttpApiEndpoint.del(`v1${prefix}ErrorsByDelete`, `${path}/:id/errors`).setPath(JobId),
  ] as const

const [v1CrawlStatus, v1CrawlCancel, v1CrawlErrors, v1CrawlErrorsByDelete] = v1JobEndpoints("crawl", "/v1/crawl")
const [v1BatchStatus, v1BatchCancel, v1BatchErrors, v1BatchErrorsByDelete] = v1JobEndpoints("batch", "/v1/batch/scrape")

const v1Group = HttpApiGroup.make("v1")
  .add(HttpApiEndpoint.post("v1Scrape", "/v1/scrape"))
  .add(HttpApiEndpoint.get("v1ScrapeById", "/v1/scrape/:id").setPath(JobId))
  .add(HttpApiEndpoint.post("v1Map", "/v1/map"))
  .add(HttpApiEndpoint.post("v1Crawl", "/v1/crawl"))
  .add(HttpApiEndpoint.get("v1CrawlActive", "/v1/crawl/active"))
  .add(HttpApiEndpoint.get("v1CrawlOngoing", "/v1/crawl/ongoing"))
  .add(v1CrawlStatus)
  .add(v1CrawlCancel)
  .add(v1CrawlErrors)
  .add(v1CrawlErrorsByDelete)
  .add(HttpApiEndpoint.post("v1BatchScrape", "/v1/batch/scrape"))
  .add(v1BatchStatus)
  .add(v1BatchCancel)
  .add(v1BatchErrors)
  .add(v1BatchErrorsByDelete)
  .add(HttpApiEndpoint.post("v1Search", "/v1/search"))
  .add(HttpApiEndpoint.post("v1Extract", "/v1/extract"))
  .add(HttpApiEndpoint.get("v1ExtractStatus", "/v1/extract/:id").setPath(JobId))
  .add(HttpApiEndpoint.post("v1LlmsTxt", "/v1/llmstxt"))
  .add(HttpApiEndpoint.get("v1LlmsTxtStatus", "/v1/llmstxt/:id").setPath(JobId))
  .middleware(Authorization)
  .annotate(OpenApi.Exclude, true)

export const HealthResponse = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  version: Schema.String,
  documentation_url: Schema.String,
})

const metaGroup = HttpApiGroup.make("meta")
  .add(HttpApiEndpoint.get("health", "/").addSuccess(HealthResponse).annotate(OpenApi.Summary, "Health check"))
  .add(
    HttpApiEndpoint.get("openapi", "/v2/openapi.json")
      .addSuccess(Schema.Unknown)
      .annotate(OpenApi.Summary, "This OpenAPI document"),
  )

/** One readiness check: whether the dependency answered, in how long, and why not. */
export const ReadinessCheck = Schema.Struct({
  status: Schema.Literal("ok", "failed"),
  durationMs: Schema.Number,
  error: Schema.optional(Schema.String),
}).annotations({ identifier: "ReadinessCheck" })

/** Probes for orchestrators and load balancers: no key, no body to send. */
const probeGroup = HttpApiGroup.make("probe")
  .add(
    HttpApiEndpoint.get("liveness", "/v2/health")
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), status: Schema.Literal("ok") }))
      .annotate(OpenApi.Summary, "Liveness: the process answers (nothing else is checked)"),
  )
  .add(
    HttpApiEndpoint.get("readiness", "/v2/ready")
      .addSuccess(
        Schema.Struct({
          success: Schema.Literal(true),
          checks: Schema.Record({ key: Schema.String, value: ReadinessCheck }),
        }),
      )
      .addError(errorBody(503, "A dependency did not answer (NOT_READY); `details.checks` says which"))
      .annotate(OpenApi.Summary, "Readiness: the job store answers and, with a browser engine, the browser runs"),
  )

const metricsGroup = HttpApiGroup.make("metrics")
  .add(
    HttpApiEndpoint.get("metrics", "/metrics")
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4" }).annotations({
          description: "The metrics in the Prometheus text exposition format",
        }),
      )
      .annotate(OpenApi.Summary, "Prometheus metrics (text exposition format 0.0.4)"),
  )
  .middleware(Authorization)

export class WebdataApi extends HttpApi.make("webdata")
  .add(metaGroup)
  .add(probeGroup)
  .add(metricsGroup)
  .add(scrapeGroup)
  .add(parseGroup)
  .add(crawlGroup)
  .add(batchGroup)
  .add(mapGroup)
  .add(searchGroup)
  .add(extractGroup)
  .add(agentGroup)
  .add(monitorGroup)
  .add(teamGroup)
  .add(registrationGroup)
  .add(adminGroup)
  .add(interactGroup)
  .add(publicGroup)
  .add(v1Group)
  .annotate(OpenApi.Title, "webdata API")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(
    OpenApi.Description,
    "Web data engine with a Firecrawl v2-compatible REST API. Point the official Firecrawl SDKs at this server's root URL.",
  )
  .annotate(OpenApi.Transform, withoutDecodeError) {}
