/**
 * The map service: a site's URLs, fast and without a search backend (Firecrawl self-hosted has only the sitemap).
 * Sources, reported in this order: the start page, the site's sitemaps (`SiteFiles.sitemapUrls`), and a breadth-first
 * walk of links from the start page a few levels down within a page budget. The walk honours robots.txt, and the
 * pages it fetched give their title and description (and are dropped when they answer 404 or 410). Scope and URL
 * identity are `Map/Scope.ts`; `search` ranks with `Map/Relevance.ts`.
 *
 * The whole map is bounded in time: by the request's `timeout` (a map that found nothing by then fails with
 * `MapError` "Timeout"), else by `DEFAULT_BUDGET_MS`, after which it answers with what it found. Every fetch has its
 * own budget within that, and the Fetcher caps sizes, so a hostile site cannot hold it longer.
 */
import { Clock, Context, Duration, Effect, Either, Layer, Option } from "effect"
import { getDomain } from "tldts"
import { decodeBody } from "./Content/Charset.js"
import type { extractHtml } from "./Content/ExtractHtml.js"
import { disallowAll } from "./Crawl/Robots.js"
import { fetchRobots, sitemapUrls } from "./Crawl/SiteFiles.js"
import { MAX_MAP_LIMIT, type MapRequest } from "./Domain/MapRequest.js"
import { withScheme } from "./Domain/Url.js"
import { type FetchedPage, Fetcher } from "./Engines/Fetcher.js"
import { MapError, RequestError, type ScrapeError } from "./Errors.js"
import { rankByRelevance } from "./Map/Relevance.js"
import { type MapScope, makeMapScope } from "./Map/Scope.js"
import { STEPS_PER_TURN, yieldToEventLoop } from "./Process/EventLoop.js"
import { lazyModule } from "./Process/LazyModule.js"

export interface MapLink {
  readonly url: string
  readonly title?: string
  readonly description?: string
}

export interface MapResult {
  readonly links: ReadonlyArray<MapLink>
  readonly warning?: string
}

export class MapService extends Context.Tag("@webdata/core/Map")<
  MapService,
  { readonly map: (request: MapRequest) => Effect.Effect<MapResult, MapError | RequestError | ScrapeError> }
>() {}

/** Without a `timeout`, a map answers with what it found after this long. */
export const DEFAULT_BUDGET_MS = 30_000
/** Pages the link walk fetches at most (the start page included). */
export const MAX_PAGES = 100
/** Link hops from the start page whose pages are fetched; links found on the deepest ones are reported unvisited. */
export const MAX_FETCH_DEPTH = 2
const CONCURRENCY = 8
/** Budget of one page, robots.txt or sitemap fetch, within the map's own. */
const FILE_TIMEOUT_MS = 10_000
/** Bytes of a page's HTML that are parsed: the parse is synchronous, so it is bounded on hostile pages. */
const MAX_HTML_BYTES = 2 * 1024 * 1024

interface PageDetails {
  readonly title?: string
  readonly description?: string
}

/** What visiting one page of the walk gave. */
interface Visit extends PageDetails {
  /** The URL fetched (as reported). */
  readonly url: string
  readonly depth: number
  /** The URL after redirects, when the page answered. */
  readonly finalUrl?: string
  /** The page's absolute links, unfiltered. */
  readonly links: ReadonlyArray<string>
  /** It answered 404 or 410: not reported. */
  readonly gone: boolean
  /** The fetch failed (network, timeout, refused address). */
  readonly failure?: ScrapeError
  /** Not fetched: a robots.txt rule refused it, or the robots.txt could not be read (server error, unreachable). */
  readonly blocked?: "rule" | "unreadable"
}

/** What a map has found so far; it stays readable when the time budget interrupts the work. */
interface Findings {
  /** The start URL, or where it redirected to when that is another site. */
  base: string
  scope: MapScope
  /** Walk levels in discovery order; a hole is a visit that had not finished. */
  readonly levels: Array<Array<Visit | undefined>>
  sitemap: ReadonlyArray<string>
}

const isHtml = (page: FetchedPage): boolean => {
  if (page.contentType !== undefined) return /html/i.test(page.contentType)
  const head = new TextDecoder().decode(page.body.subarray(0, 64)).trimStart()
  return head.startsWith("<")
}

const text = (value: string | ReadonlyArray<string> | undefined): string | undefined => {
  const trimmed = typeof value === "string" ? value.trim() : undefined
  return trimmed === "" ? undefined : trimmed
}

/** Links, title and description of a fetched page: metadata and links only, no markdown. */
const readPage = (extract: typeof extractHtml, url: string, depth: number, page: FetchedPage): Visit => {
  const answered = { url, depth, finalUrl: page.url, links: [] as ReadonlyArray<string> }
  if (page.status < 200 || page.status >= 300) return { ...answered, gone: page.status === 404 || page.status === 410 }
  if (!isHtml(page)) return { ...answered, gone: false }
  try {
    const html = decodeBody(page.body.subarray(0, MAX_HTML_BYTES), page.contentType)
    const { metadata, links } = extract(html, {
      url: page.url,
      onlyMainContent: false,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: false,
      formats: { markdown: false, html: false, links: true, images: false },
    })
    const title = text(metadata.title)
    const description = text(metadata.description)
    return {
      ...answered,
      links: links ?? [],
      gone: false,
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
    }
  } catch {
    // A page the parser chokes on contributes nothing but its URL.
    return { ...answered, gone: false }
  }
}

const details = (visit: Visit): PageDetails => ({
  ...(visit.title !== undefined ? { title: visit.title } : {}),
  ...(visit.description !== undefined ? { description: visit.description } : {}),
})

const otherSite = (a: string, b: string): boolean =>
  new URL(a).host.replace(/^www\./, "") !== new URL(b).host.replace(/^www\./, "")

/** The entries of the answer, in source order, deduplicated (keeping a title when one of the duplicates has it). */
/** The links found, in the order found; a turn of the event loop every `STEPS_PER_TURN` URLs (50 000 take ~0.5 s). */
const collect = Effect.fnUntraced(function* (request: MapRequest, findings: Findings) {
  const { scope } = findings
  let steps = 0
  const pause = () => (++steps % STEPS_PER_TURN === 0 ? yieldToEventLoop : Effect.void)
  const entries = new Map<string, MapLink>()
  // With `sitemap: "only"` the sitemap decides which URLs exist; fetched pages only lend their titles.
  const grows = request.sitemap !== "only"
  const add = (url: string | undefined, extra: PageDetails = {}, grow = grows) => {
    if (url === undefined) return
    const key = scope.key(url)
    const existing = entries.get(key)
    if (existing === undefined ? grow : existing.title === undefined && extra.title !== undefined)
      entries.set(key, { url: existing?.url ?? url, ...extra })
  }
  const fromSeed = { fromUrl: findings.base, depth: -1 }
  const visits = findings.levels.flat().filter((visit): visit is Visit => visit !== undefined)
  const seedVisit = visits[0]
  // The start URL is reported unless nothing is known of it (its fetch failed, or nothing could be fetched).
  if (seedVisit !== undefined && seedVisit.failure === undefined && seedVisit.blocked !== "unreadable")
    add(scope.admit(findings.base, fromSeed))
  for (const url of findings.sitemap) {
    add(scope.admit(url, fromSeed), {}, true)
    yield* pause()
  }
  const gone = new Set<string>()
  for (const visit of visits) {
    if (visit.gone) gone.add(scope.key(visit.url))
    // Only pages that answered have something to add; the others were reported as links already.
    if (visit.finalUrl === undefined || visit.gone) continue
    add(scope.admit(visit.url, fromSeed), details(visit))
    add(scope.admit(visit.finalUrl, fromSeed), details(visit))
    const context = { fromUrl: visit.finalUrl, depth: visit.depth }
    for (const link of visit.links) {
      add(scope.admit(link, context))
      yield* pause()
    }
  }
  for (const key of gone) entries.delete(key)
  return [...entries.values()]
})

/** Firecrawl's hint when a map of a deep URL finds (almost) nothing: the registrable domain to map instead. */
const baseDomainHint = (seed: string): string | undefined => {
  const url = new URL(seed)
  const domain = getDomain(url.hostname, { allowPrivateDomains: true })
  const atRoot = url.pathname === "/" && (domain === null || url.hostname.replace(/^www\./, "") === domain)
  return atRoot ? undefined : `${domain ?? url.hostname}${url.port ? `:${url.port}` : ""}`
}

const warningFor = (request: MapRequest, seed: string, found: number, timedOut: boolean): string | undefined => {
  const hint = found <= 1 && request.limit !== 1 ? baseDomainHint(seed) : undefined
  const parts = [
    ...(hint !== undefined
      ? [`Only ${found} result(s) found. For broader coverage, try mapping the base domain: ${hint}`]
      : []),
    ...(timedOut && request.timeout !== undefined
      ? [`The map reached its timeout of ${request.timeout} ms; the links found until then are returned.`]
      : []),
  ]
  return parts.length > 0 ? parts.join(" ") : undefined
}

// The HTML pipeline loads with the first map, not with the engine (a crawl worker parses on content threads).
const htmlPipeline = lazyModule(() => import("./Content/ExtractHtml.js"))

export const make = Effect.gen(function* () {
  const fetcher = yield* Fetcher

  /** Fills `findings`: the start page, then the sitemaps and the link walk side by side. */
  const discover = (request: MapRequest, findings: Findings, deadline: number) =>
    Effect.gen(function* () {
      const headers = request.headers ?? {}
      const fileTimeout = Effect.map(Clock.currentTimeMillis, (now) =>
        Math.max(1, Math.min(FILE_TIMEOUT_MS, deadline - now)),
      )
      // One robots.txt per origin, fetched once even when several pages of that origin ask at the same time.
      const robotsFor = yield* Effect.cachedFunction((origin: string) =>
        Effect.flatMap(fileTimeout, (timeoutMs) => fetchRobots(origin, { timeoutMs, headers })),
      )
      const politeness = request.delay !== undefined ? Duration.seconds(request.delay) : undefined

      const visit = (url: string, depth: number) =>
        Effect.gen(function* () {
          if (!request.ignoreRobotsTxt) {
            const robots = yield* robotsFor(new URL(url).origin)
            if (!robots.isAllowed(url)) {
              const blocked = robots === disallowAll ? "unreadable" : "rule"
              return { url, depth, links: [], gone: false, blocked } satisfies Visit
            }
          }
          if (politeness !== undefined && depth > 0) yield* Effect.sleep(politeness)
          const timeoutMs = yield* fileTimeout
          const fetched = yield* Effect.either(fetcher.fetch({ url, headers, timeoutMs, skipTlsVerification: true }))
          return Either.isLeft(fetched)
            ? ({ url, depth, links: [], gone: false, failure: fetched.left } satisfies Visit)
            : readPage((yield* htmlPipeline).extractHtml, url, depth, fetched.right)
        }).pipe(Effect.withSpan("Map.visit", { attributes: { url, depth } }))

      const seedVisit = yield* visit(findings.base, 0)
      findings.levels.push([seedVisit])
      // A start page that redirects to another site maps that site, as Firecrawl does.
      if (seedVisit.finalUrl !== undefined && otherSite(seedVisit.finalUrl, findings.base)) {
        findings.base = seedVisit.finalUrl
        findings.scope = makeMapScope(seedVisit.finalUrl, request)
      }

      const sitemaps = Effect.gen(function* () {
        const robots = yield* robotsFor(new URL(findings.base).origin)
        const timeoutMs = yield* fileTimeout
        // Scope filtering comes after, so ask for more than the limit.
        const limit = Math.min(MAX_MAP_LIMIT, 4 * request.limit)
        findings.sitemap = yield* sitemapUrls(findings.base, robots, { timeoutMs, headers, limit })
      })

      const walk = Effect.gen(function* () {
        const maxDepth = Math.min(MAX_FETCH_DEPTH, request.maxDiscoveryDepth ?? MAX_FETCH_DEPTH)
        const { scope } = findings
        const scheduled = new Set([scope.key(findings.base), scope.key(seedVisit.finalUrl ?? findings.base)])
        const found = new Set<string>()
        let pages = 1
        for (let depth = 1; depth <= maxDepth && pages < MAX_PAGES && found.size < request.limit; depth++) {
          const next: string[] = []
          for (const page of findings.levels[depth - 1] ?? []) {
            if (page === undefined) continue
            const context = { fromUrl: page.finalUrl ?? page.url, depth: page.depth }
            for (const link of page.links) {
              const url = scope.admit(link, context)
              if (url === undefined) continue
              const key = scope.key(url)
              found.add(key)
              if (scheduled.has(key) || pages + next.length >= MAX_PAGES) continue
              scheduled.add(key)
              next.push(url)
            }
          }
          if (next.length === 0) return
          const level: Array<Visit | undefined> = next.map(() => undefined)
          findings.levels.push(level)
          yield* Effect.forEach(
            next,
            (url, index) =>
              Effect.map(visit(url, depth), (result) => {
                level[index] = result
              }),
            { concurrency: politeness !== undefined ? 1 : CONCURRENCY, discard: true },
          )
          pages += next.length
        }
      })

      const sources = [...(request.sitemap !== "skip" ? [sitemaps] : []), ...(request.sitemap !== "only" ? [walk] : [])]
      yield* Effect.all(sources, { concurrency: "unbounded", discard: true })
    }).pipe(Effect.provideService(Fetcher, fetcher))

  const map = Effect.fn("Map.map")(function* (request: MapRequest) {
    const seed = yield* Effect.try({
      try: () => new URL(withScheme(request.url)).href,
      catch: () => new RequestError({ reason: "Validation", code: "BAD_REQUEST", message: "Invalid URL" }),
    })
    const scope = yield* Effect.try({
      try: () => makeMapScope(seed, request),
      catch: (error) =>
        new RequestError({
          reason: "Validation",
          code: "BAD_REQUEST",
          message: error instanceof Error ? error.message : String(error),
        }),
    })
    const budgetMs = request.timeout ?? DEFAULT_BUDGET_MS
    const deadline = (yield* Clock.currentTimeMillis) + budgetMs
    const findings: Findings = { base: seed, scope, levels: [], sitemap: [] }
    const finished = yield* discover(request, findings, deadline).pipe(Effect.timeoutOption(Duration.millis(budgetMs)))
    const timedOut = Option.isNone(finished)
    const links = yield* collect(request, findings)

    if (links.length === 0) {
      if (timedOut && request.timeout !== undefined)
        return yield* new MapError({
          reason: "Timeout",
          message: `The map operation timed out after ${request.timeout} ms before finding any link on ${seed}.`,
        })
      const seedVisit = findings.levels[0]?.[0]
      if (seedVisit?.blocked === "unreadable")
        return yield* new MapError({
          reason: "Failed",
          message: `Could not map ${seed}: its robots.txt could not be read (server error or unreachable)`,
        })
      const failure = seedVisit?.failure
      // The same failure has the same code as a scrape's (SCRAPE_BLOCKED_ADDRESS, SCRAPE_DNS_RESOLUTION_ERROR).
      if (failure?.reason === "BlockedAddress" || failure?.reason === "DnsResolution") return yield* failure
      if (failure !== undefined)
        return yield* new MapError({ reason: "Failed", message: `Could not map ${seed}: ${failure.message}` })
    }

    const search = request.search?.trim()
    const ranked = search ? rankByRelevance(links, search) : links
    const answer = ranked.slice(0, request.limit)
    const warning = warningFor(request, seed, answer.length, timedOut)
    return { links: answer, ...(warning !== undefined ? { warning } : {}) } satisfies MapResult
  })

  return { map }
})

export const layer: Layer.Layer<MapService, never, Fetcher> = Layer.effect(MapService, make)
