/**
 * Fake search providers on 127.0.0.1, each speaking its real API's wire format (shaped after the providers' public
 * documentation), so that the real provider modules run against them unchanged:
 *
 * - SearXNG, `GET /search?format=json&categories=general|news|images&pageno=N`: `{ results, unresponsive_engines }`;
 * - Brave, `GET /res/v1/web|news|images/search?count&offset` with `X-Subscription-Token`: web `{ type: "search",
 *   web: { results } }` (no `web` key when nothing is found), news and images `{ results }`; descriptions carry
 *   `<strong>` around the query's words and entities, as Brave's do;
 * - DuckDuckGo, `POST /html/` with a form: an HTML page of `div.result`s (an ad first, redirect links through
 *   `//duckduckgo.com/l/?uddg=…`), and a "Next" form whose hidden fields must be posted back for the next page;
 * - Serper, `POST /search|/news|/images` with a JSON body and `X-API-KEY`: `{ organic }`, `{ news }`, `{ images }`.
 *
 * Each serves a corpus of results per source and pages through it honestly (`pageno`; `count`/`offset`; the next
 * form's `s`; `num`/`page`). Queries are read roughly: `site:`, `-site:` and `filetype:pdf` filter the corpus, other
 * words match every item. Every request is recorded; `reply` can answer any request instead of the corpus (an error
 * status, a body, a delay):
 *
 * ```ts
 * const searxng = await startFakeSearxng({ corpus: { web: sampleItems("web", 30) } })
 * // Searxng.make({ baseUrl: searxng.baseUrl }) …
 * expect(searxng.requests[0]?.query.pageno).toBe("1")
 * await searxng.close()
 * ```
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export type FakeSource = "web" | "news" | "images"

/** One result of the corpus; each fake writes it in its provider's format. */
export interface CorpusItem {
  /** The page (for an image, the page showing it). */
  readonly url: string
  readonly title: string
  readonly description?: string
  /** News: when it was published (ISO 8601). */
  readonly date?: string
  /** News: the publisher's name; images: the site's. */
  readonly source?: string
  /** Images: the image; news: its picture. */
  readonly imageUrl?: string
  readonly imageWidth?: number
  readonly imageHeight?: number
}

export type SearchCorpus = Partial<Record<FakeSource, ReadonlyArray<CorpusItem>>>

export interface RecordedSearchRequest {
  readonly method: string
  /** The path without the query (`/search`, `/res/v1/web/search`, `/html/`). */
  readonly path: string
  /** The URL's query parameters. */
  readonly query: Readonly<Record<string, string>>
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The fields of a form body (DuckDuckGo). */
  readonly form: Readonly<Record<string, string>>
  /** A JSON body (Serper); undefined when there is none or it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: a request body as the client sent it, for tests to inspect freely.
  readonly json: any
  /** The source asked for (from the path, or SearXNG's category). */
  readonly source: FakeSource | undefined
  /** The words searched for, operators included. */
  readonly q: string | undefined
  /** `Date.now()` when the request arrived. */
  readonly at: number
}

/**
 * A scripted answer: a status with a body (JSON unless a string; without one, the provider's own error body), a
 * body with status 200, the corpus answer late (`{ delayMs }`), or no answer until the server closes.
 */
export type FakeSearchReply =
  | {
      readonly status: number
      readonly body?: unknown
      readonly headers?: Readonly<Record<string, string>>
      readonly delayMs?: number
    }
  | { readonly json: unknown; readonly delayMs?: number }
  | { readonly text: string; readonly contentType?: string; readonly delayMs?: number }
  | { readonly delayMs: number }
  | { readonly hang: true }

export interface FakeSearchOptions {
  readonly corpus?: SearchCorpus
  /** Answers a request instead of the corpus; undefined lets the corpus answer. `index` counts from 0. */
  readonly reply?: (request: RecordedSearchRequest, index: number) => FakeSearchReply | undefined
  /** Results a page for SearXNG and DuckDuckGo (default 10); Brave and Serper page by the request's count. */
  readonly pageSize?: number
  /** Brave and Serper: the key expected; any other gets the provider's refusal. */
  readonly apiKey?: string
}

export interface FakeSearch {
  /** The base URL to configure the provider with (Brave's includes `/res/v1`, DuckDuckGo's is the `/html/` page). */
  readonly baseUrl: string
  /** Every request received, in order. */
  readonly requests: Array<RecordedSearchRequest>
  readonly close: () => Promise<void>
}

/** A 429 with `Retry-After` in seconds. */
export const rateLimited = (retryAfterSeconds: number): FakeSearchReply => ({
  status: 429,
  headers: { "retry-after": String(retryAfterSeconds) },
})

const HOSTS = ["example.com", "docs.example.org", "github.com", "arxiv.org", "blog.example.net"] as const

/**
 * `count` distinct items for `source`, on five hosts in turn (`example.com`, `docs.example.org`, `github.com`,
 * `arxiv.org`, `blog.example.net`), titled `<Source> result <n>` from 1; news have dates, images image URLs and sizes.
 */
export const sampleItems = (source: FakeSource, count: number, from = 1): Array<CorpusItem> =>
  Array.from({ length: count }, (_, i) => sampleItem(source, from + i))

const sampleItem = (source: FakeSource, n: number): CorpusItem => {
  const host = HOSTS[(n - 1) % HOSTS.length] as string
  const base = {
    url: `https://${host}/${source}/${n}`,
    title: `${source[0]?.toUpperCase()}${source.slice(1)} result ${n}`,
  }
  switch (source) {
    case "web":
      return { ...base, description: `About result ${n} & more` }
    case "news":
      return {
        ...base,
        description: `News item ${n}`,
        date: new Date(Date.UTC(2025, 0, 1 + (n % 28))).toISOString(),
        source: host,
        imageUrl: `https://img.${host}/news/${n}.jpg`,
      }
    case "images":
      return {
        ...base,
        description: `Image ${n}`,
        source: host,
        imageUrl: `https://img.${host}/full/${n}.png`,
        imageWidth: 800 + n,
        imageHeight: 600 + n,
      }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared plumbing

interface Answer {
  readonly status: number
  readonly body: string
  readonly contentType: string
  readonly headers?: Readonly<Record<string, string>>
}

const jsonAnswer = (body: unknown, status = 200, headers?: Readonly<Record<string, string>>): Answer => ({
  status,
  body: JSON.stringify(body),
  contentType: "application/json; charset=utf-8",
  ...(headers !== undefined ? { headers } : {}),
})

const htmlAnswer = (body: string, status = 200): Answer => ({ status, body, contentType: "text/html; charset=utf-8" })

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const send = (response: ServerResponse, answer: Answer) => {
  if (response.destroyed) return
  response.writeHead(answer.status, { "content-type": answer.contentType, ...answer.headers })
  response.end(answer.body)
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** How one provider reads a request and answers it from the corpus, and what its errors look like. */
interface Dialect {
  readonly sourceOf: (request: Omit<RecordedSearchRequest, "source" | "q">) => FakeSource | undefined
  readonly queryOf: (request: Omit<RecordedSearchRequest, "source" | "q">) => string | undefined
  readonly answer: (request: RecordedSearchRequest, options: FakeSearchOptions) => Answer
  /** The provider's own body for an error status. */
  readonly errorBody: (status: number) => Answer
}

const scripted = (
  reply: FakeSearchReply,
  dialect: Dialect,
  request: RecordedSearchRequest,
  options: FakeSearchOptions,
) => {
  if ("status" in reply) {
    if (reply.body === undefined) {
      const own = dialect.errorBody(reply.status)
      return { ...own, headers: { ...own.headers, ...reply.headers } }
    }
    return typeof reply.body === "string"
      ? {
          status: reply.status,
          body: reply.body,
          contentType: "text/plain; charset=utf-8",
          ...(reply.headers ? { headers: reply.headers } : {}),
        }
      : jsonAnswer(reply.body, reply.status, reply.headers)
  }
  if ("json" in reply) return jsonAnswer(reply.json)
  if ("text" in reply)
    return { status: 200, body: reply.text, contentType: reply.contentType ?? "text/html; charset=utf-8" }
  return dialect.answer(request, options)
}

const startFake = async (dialect: Dialect, options: FakeSearchOptions, basePath: string): Promise<FakeSearch> => {
  const requests: Array<RecordedSearchRequest> = []
  const server = createServer((incoming, response) => {
    void (async () => {
      const url = new URL(incoming.url ?? "/", "http://fake")
      const body = await readBody(incoming)
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(incoming.headers))
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
      const contentType = headers["content-type"] ?? ""
      const raw = {
        method: incoming.method ?? "GET",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        body,
        form: contentType.includes("application/x-www-form-urlencoded")
          ? Object.fromEntries(new URLSearchParams(body))
          : {},
        json: contentType.includes("application/json") ? parseJson(body) : undefined,
        at: Date.now(),
      }
      const recorded: RecordedSearchRequest = { ...raw, source: dialect.sourceOf(raw), q: dialect.queryOf(raw) }
      requests.push(recorded)
      const reply = options.reply?.(recorded, requests.length - 1)
      if (reply !== undefined && "hang" in reply) return
      if (reply?.delayMs !== undefined) await sleep(reply.delayMs)
      send(
        response,
        reply === undefined ? dialect.answer(recorded, options) : scripted(reply, dialect, recorded, options),
      )
    })().catch((error: unknown) => {
      if (!response.headersSent) send(response, jsonAnswer({ error: `fake search failed: ${String(error)}` }, 500))
    })
  })
  const listening = await listenOnLoopback(server)
  return { baseUrl: `${listening.url}${basePath}`, requests, close: listening.close }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading queries

interface Operators {
  readonly sites: ReadonlyArray<string>
  readonly excluded: ReadonlyArray<string>
  readonly pdf: boolean
  /** The other words. */
  readonly words: ReadonlyArray<string>
}

/** `site:`, `-site:`, `filetype:pdf` and words, read the rough way engines do (parentheses and `OR` ignored). */
export const operatorsOf = (q: string): Operators => {
  const tokens = q
    .replace(/[()]/g, " ")
    .split(/\s+/)
    .filter((token) => token !== "" && token !== "OR")
  const valued = (prefix: string) =>
    tokens.filter((token) => token.toLowerCase().startsWith(prefix)).map((token) => token.slice(prefix.length))
  return {
    sites: valued("site:"),
    excluded: valued("-site:"),
    pdf: tokens.some((token) => token.toLowerCase() === "filetype:pdf"),
    words: tokens.filter((token) => !/^-?(?:site|filetype):/i.test(token)),
  }
}

const onSite = (url: string, site: string): boolean => {
  const host = new URL(url).hostname.toLowerCase()
  const domain = site.toLowerCase().replace(/^www\./, "")
  return host === domain || host.endsWith(`.${domain}`)
}

/** The corpus items the query's operators admit, in corpus order. */
export const matching = (items: ReadonlyArray<CorpusItem>, q: string): Array<CorpusItem> => {
  const operators = operatorsOf(q)
  return items.filter(
    (item) =>
      (operators.sites.length === 0 || operators.sites.some((site) => onSite(item.url, site))) &&
      !operators.excluded.some((site) => onSite(item.url, site)) &&
      (!operators.pdf || new URL(item.url).pathname.toLowerCase().endsWith(".pdf")),
  )
}

const itemsFor = (options: FakeSearchOptions, source: FakeSource | undefined, q: string | undefined) =>
  source === undefined ? [] : matching(options.corpus?.[source] ?? [], q ?? "")

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;")

/** Escaped text with the query's words wrapped in `tag`, as engines highlight them. */
const highlight = (text: string, words: ReadonlyArray<string>, tag: string): string => {
  const escaped = escapeHtml(text)
  const terms = words.map((word) => escapeHtml(word).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).filter((w) => w !== "")
  if (terms.length === 0) return escaped
  return escaped.replace(new RegExp(`\\b(${terms.join("|")})\\b`, "gi"), `<${tag}>$1</${tag}>`)
}

const positiveInt = (value: unknown, fallback: number): number => {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value
  return typeof number === "number" && Number.isInteger(number) ? number : fallback
}

// ---------------------------------------------------------------------------------------------------------------
// SearXNG

const SEARXNG_CATEGORIES: Readonly<Record<string, FakeSource>> = { general: "web", news: "news", images: "images" }

const searxngResult = (source: FakeSource, item: CorpusItem, position: number) => {
  const parsed = new URL(item.url)
  const common = {
    url: item.url,
    title: item.title,
    content: item.description ?? "",
    engine: "fakeengine",
    parsed_url: [parsed.protocol.slice(0, -1), parsed.host, parsed.pathname, "", parsed.search.slice(1), ""],
    engines: ["fakeengine"],
    positions: [position],
    score: 1 / position,
    category: source === "web" ? "general" : source,
  }
  switch (source) {
    case "web":
      return { ...common, template: "default.html", publishedDate: null, thumbnail: "" }
    case "news":
      return {
        ...common,
        template: "default.html",
        publishedDate: item.date ?? null,
        thumbnail: item.imageUrl ?? "",
        img_src: item.imageUrl ?? "",
      }
    case "images":
      return {
        ...common,
        template: "images.html",
        img_src: item.imageUrl ?? "",
        thumbnail_src: item.imageUrl !== undefined ? `${item.imageUrl}?thumb=1` : "",
        // Engines write it both ways.
        resolution:
          item.imageWidth !== undefined && item.imageHeight !== undefined
            ? position % 2 === 0
              ? `${item.imageWidth}x${item.imageHeight}`
              : `${item.imageWidth} x ${item.imageHeight}`
            : "",
        img_format: "png",
        source: item.source ?? "",
        publishedDate: null,
      }
  }
}

const searxng: Dialect = {
  sourceOf: (request) =>
    request.path.endsWith("/search") ? SEARXNG_CATEGORIES[request.query.categories ?? "general"] : undefined,
  queryOf: (request) => request.query.q,
  answer: (request, options) => {
    if (!request.path.endsWith("/search")) return htmlAnswer("<h1>Not Found</h1>", 404)
    // An instance without json in search.formats answers 403.
    if (request.query.format !== "json") return htmlAnswer("<h1>Forbidden</h1>", 403)
    const size = options.pageSize ?? 10
    const pageno = Math.max(1, positiveInt(request.query.pageno, 1))
    const items = itemsFor(options, request.source, request.q)
    const page = items.slice((pageno - 1) * size, pageno * size)
    return jsonAnswer({
      query: request.q ?? "",
      number_of_results: items.length,
      results: page.map((item, i) => searxngResult(request.source ?? "web", item, (pageno - 1) * size + i + 1)),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    })
  },
  errorBody: (status) => htmlAnswer(`<h1>${status}</h1>`, status),
}

/** A fake SearXNG instance; `baseUrl` is its root (the provider adds `/search`). */
export const startFakeSearxng = (options: FakeSearchOptions = {}): Promise<FakeSearch> =>
  startFake(searxng, options, "")

// ---------------------------------------------------------------------------------------------------------------
// Brave

const BRAVE_ENDPOINTS: ReadonlyArray<readonly [string, FakeSource, number]> = [
  ["/web/search", "web", 20],
  ["/news/search", "news", 50],
  ["/images/search", "images", 200],
]

const braveEndpoint = (path: string) => BRAVE_ENDPOINTS.find(([suffix]) => path.endsWith(suffix))

const braveError = (status: number, code: string, detail: string): Answer =>
  jsonAnswer(
    {
      type: "ErrorResponse",
      error: { id: randomBytes(16).toString("hex"), status, code, detail, meta: {} },
      time: Math.floor(Date.now() / 1000),
    },
    status,
  )

const metaUrl = (url: string) => {
  const parsed = new URL(url)
  return { scheme: parsed.protocol.slice(0, -1), netloc: parsed.host, hostname: parsed.hostname, path: parsed.pathname }
}

const braveResult = (source: FakeSource, item: CorpusItem, words: ReadonlyArray<string>) => {
  const common = {
    title: highlight(item.title, words, "strong"),
    url: item.url,
    description: highlight(item.description ?? "", words, "strong"),
    meta_url: metaUrl(item.url),
  }
  switch (source) {
    case "web":
      return {
        ...common,
        type: "search_result",
        is_source_local: false,
        is_source_both: false,
        family_friendly: true,
        language: "en",
        profile: { name: new URL(item.url).hostname, url: item.url, long_name: new URL(item.url).hostname },
        ...(item.date !== undefined ? { page_age: item.date, age: "January 1, 2025" } : {}),
      }
    case "news":
      return {
        ...common,
        type: "news_result",
        age: "2 hours ago",
        page_age: item.date ?? "2025-01-01T00:00:00",
        breaking: false,
        ...(item.imageUrl !== undefined ? { thumbnail: { src: item.imageUrl } } : {}),
      }
    case "images":
      return {
        type: "image_result",
        title: escapeHtml(item.title),
        url: item.url,
        source: item.source ?? new URL(item.url).hostname,
        page_fetched: "2025-01-01T00:00:00Z",
        thumbnail: { src: `https://imgs.search.brave.com/thumb/${encodeURIComponent(item.imageUrl ?? item.url)}` },
        properties: {
          url: item.imageUrl,
          placeholder: "https://imgs.search.brave.com/placeholder",
          ...(item.imageWidth !== undefined ? { width: item.imageWidth } : {}),
          ...(item.imageHeight !== undefined ? { height: item.imageHeight } : {}),
        },
        meta_url: metaUrl(item.url),
        confidence: "high",
      }
  }
}

const brave: Dialect = {
  sourceOf: (request) => braveEndpoint(request.path)?.[1],
  queryOf: (request) => request.query.q,
  answer: (request, options) => {
    const endpoint = braveEndpoint(request.path)
    if (endpoint === undefined) return braveError(404, "NOT_FOUND", "Resource not found")
    if (options.apiKey !== undefined && request.headers["x-subscription-token"] !== options.apiKey)
      return braveError(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.")
    const [, source, maxCount] = endpoint
    const count = positiveInt(request.query.count, source === "images" ? 50 : 20)
    const offset = positiveInt(request.query.offset, 0)
    if (count < 1 || count > maxCount || offset < 0 || offset > 9 || (request.q ?? "").trim() === "")
      return braveError(422, "VALIDATION", "Unable to validate request parameter(s)")
    const items = itemsFor(options, source, request.q)
    const start = source === "images" ? 0 : offset * count
    const page = items.slice(start, start + count)
    const words = operatorsOf(request.q ?? "").words
    const results = page.map((item) => braveResult(source, item, words))
    const query = {
      original: request.q,
      show_strict_warning: false,
      is_navigational: false,
      more_results_available: start + count < items.length,
    }
    if (source === "web")
      return jsonAnswer({
        type: "search",
        query,
        mixed: { type: "mixed", main: results.map((_, index) => ({ type: "web", index, all: false })) },
        ...(results.length > 0 ? { web: { type: "search", results, family_friendly: true } } : {}),
      })
    return jsonAnswer({ type: source, query, results })
  },
  errorBody: (status) =>
    status === 429
      ? braveError(429, "RATE_LIMITED", "Request rate limit exceeded for plan.")
      : status === 401 || status === 403
        ? braveError(status, "UNAUTHORIZED", "Not authorized.")
        : braveError(status, "INTERNAL", "Something went wrong."),
}

/** A fake Brave Search API; `baseUrl` ends in `/res/v1`, as the real one does. */
export const startFakeBrave = (options: FakeSearchOptions = {}): Promise<FakeSearch> =>
  startFake(brave, options, "/res/v1")

// ---------------------------------------------------------------------------------------------------------------
// DuckDuckGo

/** The page DuckDuckGo answers (with HTTP 202) to a client it takes for a bot. */
export const DUCKDUCKGO_CAPTCHA_PAGE = `<!DOCTYPE html>
<html lang="en-US"><head><title>DuckDuckGo</title></head>
<body>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet&amp;ti=1" method="POST">
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
<div class="anomaly-modal__instructions">Select all squares containing a duck:</div>
</div></div>
</form>
</body></html>`

const duckResult = (item: CorpusItem, words: ReadonlyArray<string>, direct: boolean) => {
  const href = direct
    ? item.url
    : `//duckduckgo.com/l/?uddg=${encodeURIComponent(item.url)}&rut=${randomBytes(16).toString("hex")}`
  const host = new URL(item.url).hostname
  return `<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="${escapeHtml(href)}">${highlight(item.title, words, "b")}</a>
    </h2>
    <div class="result__extras"><div class="result__extras__url">
      <span class="result__icon"><img class="result__icon__img" src="//external-content.duckduckgo.com/ip3/${host}.ico" /></span>
      <a class="result__url" href="${escapeHtml(href)}">${escapeHtml(host)}</a>
    </div></div>
    <a class="result__snippet" href="${escapeHtml(href)}">${highlight(item.description ?? "", words, "b")}</a>
    <div class="clear"></div>
  </div>
</div>`
}

const DUCK_AD = `<div class="result results_links results_links_deep result--ad ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=bing&amp;u3=https%3A%2F%2Fads.example%2Fbuy">Buy things now</a>
    </h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Sponsored link to ads.example</a>
    <div class="badge--ad">Ad</div>
  </div>
</div>`

const duckNavForm = (label: "Next" | "Previous", fields: Readonly<Record<string, string>>) =>
  `<div class="nav-link">
<form action="/html/" method="post">
  <input type="submit" class='btn btn--alt' value="${label}" />
${Object.entries(fields)
  .map(([name, value]) => `  <input type="hidden" name="${name}" value="${escapeHtml(value)}" />`)
  .join("\n")}
</form>
</div>`

/** Paging state each fake DuckDuckGo page hands out, checked when posted back. */
const duckTokens = new Set<string>()

const duckPage = (q: string, results: string, nav: string) => `<!DOCTYPE html>
<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"><title>${escapeHtml(q)} at DuckDuckGo</title></head>
<body>
<div id="header"><form name="x" class="header__form" action="/html/" method="post" id="search_form">
  <input type="text" name="q" class="search__input" value="${escapeHtml(q)}" />
</form></div>
<div><div id="links" class="results">
${results}
${nav}
</div></div>
</body></html>`

const duckduckgo = (direct: boolean): Dialect => ({
  sourceOf: (request) => (/\/html\/?$/.test(request.path) ? "web" : undefined),
  queryOf: (request) => request.form.q ?? request.query.q,
  answer: (request, options) => {
    if (!/\/html\/?$/.test(request.path)) return htmlAnswer("Not found", 404)
    const q = request.q ?? ""
    if (q.trim() === "") return htmlAnswer(duckPage("", "", ""), 200)
    const start = positiveInt(request.form.s, 0)
    // A later page must post back the previous page's form, token included.
    if (start > 0 && !duckTokens.has(request.form.vqd ?? "")) return htmlAnswer("Invalid request", 400)
    const size = options.pageSize ?? 10
    const items = itemsFor(options, "web", q)
    const page = items.slice(start, start + size)
    const words = operatorsOf(q).words
    const results =
      page.length === 0
        ? `<div class="result result--no-result"><div class="no-results">No results.</div></div>`
        : [...(start === 0 ? [DUCK_AD] : []), ...page.map((item) => duckResult(item, words, direct))].join("\n")
    const vqd = `4-${randomBytes(12).toString("hex")}`
    duckTokens.add(vqd)
    const state = (s: number) => ({
      q,
      s: String(s),
      nextParams: "",
      v: "l",
      o: "json",
      dc: String(s + 1),
      api: "d.js",
      vqd,
      kl: request.form.kl ?? "wt-wt",
    })
    const nav = [
      ...(start > 0 ? [duckNavForm("Previous", state(Math.max(0, start - size)))] : []),
      ...(start + size < items.length ? [duckNavForm("Next", state(start + size))] : []),
    ].join("\n")
    return htmlAnswer(duckPage(q, results, nav))
  },
  errorBody: (status) =>
    status === 202 ? htmlAnswer(DUCKDUCKGO_CAPTCHA_PAGE, 202) : htmlAnswer(`<h1>Error ${status}</h1>`, status),
})

/**
 * A fake DuckDuckGo HTML page; `baseUrl` is its `/html/` endpoint. Result links go through DuckDuckGo's redirect
 * unless `directLinks`; the first page starts with an ad.
 */
export const startFakeDuckDuckGo = (options: FakeSearchOptions & { readonly directLinks?: boolean } = {}) =>
  startFake(duckduckgo(options.directLinks ?? false), options, "/html/")

// ---------------------------------------------------------------------------------------------------------------
// Serper

const SERPER_PATHS: Readonly<Record<string, FakeSource>> = { "/search": "web", "/news": "news", "/images": "images" }

const serperResult = (source: FakeSource, item: CorpusItem, position: number) => {
  const host = new URL(item.url).hostname
  switch (source) {
    case "web":
      return {
        title: item.title,
        link: item.url,
        snippet: item.description ?? "",
        position,
        ...(item.date !== undefined ? { date: item.date } : {}),
      }
    case "news":
      return {
        title: item.title,
        link: item.url,
        snippet: item.description ?? "",
        date: item.date ?? "1 day ago",
        source: item.source ?? host,
        ...(item.imageUrl !== undefined ? { imageUrl: item.imageUrl } : {}),
        position,
      }
    case "images":
      return {
        title: item.title,
        imageUrl: item.imageUrl,
        imageWidth: item.imageWidth,
        imageHeight: item.imageHeight,
        thumbnailUrl: `https://encrypted-tbn0.gstatic.com/images?q=tbn:${position}`,
        thumbnailWidth: 200,
        thumbnailHeight: 150,
        source: item.source ?? host,
        domain: host,
        link: item.url,
        googleUrl: `https://www.google.com/imgres?imgurl=${encodeURIComponent(item.imageUrl ?? "")}`,
        position,
      }
  }
}

const SERPER_LISTS: Readonly<Record<FakeSource, string>> = { web: "organic", news: "news", images: "images" }

const serperError = (status: number, message: string): Answer => jsonAnswer({ message, statusCode: status }, status)

const serper: Dialect = {
  sourceOf: (request) => SERPER_PATHS[request.path],
  queryOf: (request) => (typeof request.json?.q === "string" ? request.json.q : undefined),
  answer: (request, options) => {
    const source = request.source
    if (source === undefined || request.method !== "POST") return serperError(404, "Not found.")
    if (options.apiKey !== undefined && request.headers["x-api-key"] !== options.apiKey)
      return serperError(403, "Unauthorized.")
    const body = request.json
    if (typeof body?.q !== "string" || body.q.trim() === "") return serperError(400, "Query is required.")
    const num = positiveInt(body.num, 10)
    const page = positiveInt(body.page, 1)
    if (num < 1 || num > 100 || page < 1) return serperError(400, "Invalid num or page.")
    const items = itemsFor(options, source, body.q)
    const slice = items.slice((page - 1) * num, page * num)
    return jsonAnswer({
      searchParameters: {
        q: body.q,
        ...(body.gl !== undefined ? { gl: body.gl } : {}),
        ...(body.hl !== undefined ? { hl: body.hl } : {}),
        ...(body.location !== undefined ? { location: body.location } : {}),
        ...(body.tbs !== undefined ? { tbs: body.tbs } : {}),
        type: source === "web" ? "search" : source,
        num,
        page,
        engine: "google",
      },
      [SERPER_LISTS[source]]: slice.map((item, i) => serperResult(source, item, (page - 1) * num + i + 1)),
      ...(source === "web" ? { relatedSearches: [] } : {}),
      credits: 1,
    })
  },
  errorBody: (status) =>
    serperError(
      status,
      status === 429 ? "Too many requests." : status === 401 || status === 403 ? "Unauthorized." : "Server error.",
    ),
}

/** A fake Serper API; `baseUrl` is its root (`/search`, `/news`, `/images` under it). */
export const startFakeSerper = (options: FakeSearchOptions = {}): Promise<FakeSearch> => startFake(serper, options, "")
