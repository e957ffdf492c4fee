/**
 * The scrape service: one URL in, one Document out. Flow: capability check → cache (maxAge/minAge/lockdown; a hit is
 * served only if this process's URL guard allows its URLs) → fetch (URL guard on every hop) → decode → content
 * pipeline → cache write. The whole scrape is bounded by the
 * request's `timeout`, and interruption aborts the in-flight fetch.
 */
import { Context, Effect, Layer, Option } from "effect"
import { LRUCache } from "lru-cache"
import { v7 as uuidv7 } from "uuid"
import { ArtifactStore, fromDataUrl } from "./Artifacts/ArtifactStore.js"
import { CacheScope, partitionOf } from "./Cache/CacheScope.js"
import { type CachedPage, cacheKey, ScrapeCache } from "./Cache/ScrapeCache.js"
import { buildOptions, type TrackingContext, trackingOf, withChangeTracking } from "./ChangeTracking/ScrapeStep.js"
import { looksClientRendered } from "./Content/ClientRendered.js"
import type { Document } from "./Domain/Document.js"
import type { ScrapeOptions } from "./Domain/ScrapeOptions.js"
import { withScheme } from "./Domain/Url.js"
import { BrowserEngine, type RenderedPage, type ScreenshotRequest } from "./Engines/Browser.js"
import { Fetcher } from "./Engines/Fetcher.js"
import { type LlmError, RequestError, ScrapeError } from "./Errors.js"
import { ScrapeReplay } from "./Interact/ScrapeReplay.js"
import { JobStore } from "./Jobs/JobStore.js"
import { PROXY_RETRY_STATUSES, Proxies } from "./Net/Proxies.js"
import { retryAfterMs } from "./Net/RetryAfter.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import * as Metrics from "./Observability/Metrics.js"
import * as RequestLog from "./Observability/RequestLog.js"
import { FileParser } from "./Parse/FileParser.js"
import { readFile } from "./Parse/ReadFile.js"
import { lazyModule } from "./Process/LazyModule.js"
import { timeLimit } from "./Process/TimeLimit.js"
import type { PageContent, Provenance } from "./Scrape/BuildDocument.js"
import { availableEngines, browserOptionOf, unsupportedOption } from "./Scrape/Capabilities.js"
import { DocumentBuilder } from "./Scrape/DocumentBuilder.js"
import { makeLlmFormats, withLlmFormats } from "./Scrape/LlmFormats.js"
import { pdfCacheSuffix } from "./Scrape/PdfOutput.js"
import { LocalIndex, recordDocument } from "./Search/LocalIndex.js"

/** What `scrape` takes: the target as sent (it becomes `metadata.sourceURL`) and decoded scrape options. */
export type ScrapeInput = ScrapeOptions & {
  readonly url: string
  readonly zeroDataRetention?: boolean | undefined
  /** Who asks (the API key's owner digest, a job's owner): with `CacheScope` `key`, the cache partition it uses. */
  readonly owner?: string | null | undefined
  /** A job's scrape with the changeTracking format: who records the snapshot (default: the scrape itself). */
  readonly tracking?: TrackingContext | undefined
}

const LOCKDOWN_MAX_AGE_MS = 2 * 365 * 24 * 60 * 60 * 1000

/** A scrape's document with what a crawler needs besides it. */
export interface ScrapeOutcome {
  readonly document: Document
  /** The page's `Retry-After` (429, 503), in milliseconds from now. */
  readonly retryAfterMs?: number
}

export class Scrape extends Context.Tag("@webdata/core/Scrape")<
  Scrape,
  {
    readonly scrape: (input: ScrapeInput) => Effect.Effect<Document, ScrapeError | RequestError | LlmError>
    /** `scrape` with the fetch details that jobs act on (politeness). */
    readonly scrapeDetailed: (input: ScrapeInput) => Effect.Effect<ScrapeOutcome, ScrapeError | RequestError | LlmError>
  }
>() {}

export { retryAfterMs } from "./Net/RetryAfter.js"

/** The first invalid CSS selector of `includeTags` / `excludeTags`; the checker loads when a request first has some. */
const selectorsModule = lazyModule(() => import("./Content/Selectors.js"))

const invalidSelector = (input: ScrapeInput) =>
  (input.includeTags ?? []).length + (input.excludeTags ?? []).length === 0
    ? Effect.succeed(undefined)
    : Effect.map(
        selectorsModule,
        ({ findInvalidSelector }) =>
          findInvalidSelector("includeTags", input.includeTags ?? []) ??
          findInvalidSelector("excludeTags", input.excludeTags ?? []),
      )

/** How long a host whose pages JavaScript renders is sent to the browser without trying plain HTTP first. */
const CLIENT_RENDERED_HOST_TTL_MS = 30 * 60_000

const isHtml = (page: CachedPage) => page.contentType === undefined || /html/i.test(page.contentType)

/** What the document says about requests of its page the URL guard refused. */
const blockedWarning = (urls: ReadonlyArray<string>) =>
  `The URL guard blocked ${urls.length} request${urls.length === 1 ? "" : "s"} of this page: ${urls
    .slice(0, 5)
    .map((url) => (url.length > 200 ? `${url.slice(0, 200)}…` : url))
    .join(", ")}${urls.length > 5 ? ", …" : ""}`

/** The screenshot format's settings, when it was asked for. */
const screenshotOf = (input: ScrapeInput): ScreenshotRequest | undefined => {
  const format = input.formats.find((candidate) => candidate.type === "screenshot")
  return format === undefined
    ? undefined
    : { fullPage: format.fullPage ?? false, quality: format.quality, viewport: format.viewport }
}

export const make = Effect.gen(function* () {
  const fetcher = yield* Fetcher
  const browser = yield* Effect.serviceOption(BrowserEngine)
  const engines = yield* availableEngines
  const cache = yield* ScrapeCache
  const builder = yield* DocumentBuilder
  const guard = yield* UrlGuard
  const scope = yield* CacheScope
  const proxies = Option.getOrUndefined(yield* Effect.serviceOption(Proxies))
  const artifacts = Option.getOrUndefined(yield* Effect.serviceOption(ArtifactStore))
  const replays = Option.getOrUndefined(yield* Effect.serviceOption(ScrapeReplay))
  const parser = yield* Effect.serviceOption(FileParser)
  const searchIndex = Option.getOrUndefined(yield* Effect.serviceOption(LocalIndex))
  /** A `data:` URL of the browser's, as the artifact store's URL when there is one. */
  const stored = (url: string): Effect.Effect<string> => {
    const artifact = artifacts === undefined ? undefined : fromDataUrl(url)
    return artifact === undefined || artifacts === undefined ? Effect.succeed(url) : artifacts.put(artifact)
  }
  // Where saved browser profiles and change-tracking snapshots live; engines built without a job store have neither.
  const jobStore = yield* Effect.serviceOption(JobStore)
  const llmFormats = yield* makeLlmFormats
  // The content pipeline on a page; a failure inside it is the page's problem (a 500), never a crash. Then what a
  // model answers (summary, json), if asked.
  const build = (input: ScrapeInput, page: PageContent, provenance: Provenance) =>
    withLlmFormats(llmFormats, (options, extras) => builder.build(options, page, provenance, extras))(
      input,
      page,
      input.owner ?? null,
    )

  const fromCache = (key: string, input: ScrapeInput): Effect.Effect<Option.Option<CachedPage>> => {
    // Caller-specific headers may change the page, so such requests neither read nor write the shared cache.
    if (input.headers !== undefined && Object.keys(input.headers).length > 0) return Effect.succeedNone
    // A page asked of the browser must not be answered with the HTML of a plain fetch.
    if (browserOptionOf(input) !== undefined) return Effect.succeedNone
    // Change tracking compares the page as it is now.
    if (trackingOf(input) !== undefined) return Effect.succeedNone
    const now = Date.now()
    const minAge = input.minAge
    const maxAge = input.lockdown ? LOCKDOWN_MAX_AGE_MS : input.maxAge
    if (minAge === undefined && maxAge === 0) return Effect.succeedNone
    return cache.get(key).pipe(
      Effect.map(
        Option.filter((page) => (minAge !== undefined ? now - page.cachedAt >= minAge : now - page.cachedAt <= maxAge)),
      ),
      Effect.tap((found) => Metrics.cacheRead(Option.isSome(found))),
    )
  }

  /** Hosts whose pages turned out to be rendered by JavaScript: their next pages go to the browser at once. */
  const clientRenderedHosts = new LRUCache<string, true>({ max: 10_000, ttl: CLIENT_RENDERED_HOST_TTL_MS })
  const hostOf = (url: string) => URL.parse(url)?.host ?? url

  const fetchPage = Effect.fn("Scrape.fetch")(function* (
    url: string,
    input: ScrapeInput,
    inBrowser: boolean,
    firstProxy?: string,
  ) {
    const hasHeaders = input.headers !== undefined && Object.keys(input.headers).length > 0
    const profile = input.profile
    const saved =
      profile !== undefined && Option.isSome(jobStore)
        ? yield* jobStore.value.getProfile(input.owner ?? null, profile.name).pipe(Effect.orDie)
        : Option.none()
    const get = (through: string | undefined): Effect.Effect<RenderedPage, ScrapeError> => {
      const request = {
        url,
        headers: input.headers ?? {},
        timeoutMs: input.timeout,
        skipTlsVerification: input.skipTlsVerification ?? !hasHeaders,
        proxy: through,
      }
      return inBrowser && Option.isSome(browser)
        ? browser.value.render({
            ...request,
            waitForMs: input.waitFor,
            screenshot: screenshotOf(input),
            actions: input.actions,
            mobile: input.mobile,
            location: input.location,
            blockAds: input.blockAds,
            ...(Option.isSome(saved) ? { storageState: saved.value } : {}),
            // For the profile, and for a session that continues this scrape.
            keepState: true,
          })
        : fetcher.fetch(request)
    }
    let proxy = firstProxy
    let fetched = yield* get(proxy)
    // `auto`: a site that refuses this client is asked again through a proxy (before its answer is read or parsed).
    if (input.proxy === "auto" && proxy === undefined && PROXY_RETRY_STATUSES.has(fetched.status)) {
      proxy = proxies?.next()
      if (proxy !== undefined) fetched = yield* get(proxy)
    }
    // The page's cookies and storage go back into the profile (as an interact session's do when it ends).
    if (
      profile?.saveChanges !== false &&
      profile !== undefined &&
      fetched.storageState !== undefined &&
      Option.isSome(jobStore)
    )
      yield* jobStore.value.putProfile(input.owner ?? null, profile.name, fetched.storageState).pipe(Effect.orDie)
    const content = yield* readFile(
      { bytes: fetched.body, contentType: fetched.contentType, name: fetched.url },
      input,
      parser,
    )
    const page: CachedPage = { url: fetched.url, statusCode: fetched.status, ...content, cachedAt: Date.now() }
    const retryAfter =
      fetched.status === 429 || fetched.status === 503
        ? retryAfterMs(fetched.headers["retry-after"], Date.now())
        : undefined
    return {
      page,
      retryAfter,
      screenshot: fetched.screenshot,
      actions: fetched.actions,
      viaHttp: !(inBrowser && Option.isSome(browser)),
      proxied: proxy !== undefined,
      storageState: fetched.storageState,
      blockedUrls: fetched.blockedUrls ?? [],
    }
  })

  const scrape = Effect.fn("Scrape.scrape")(function* (input: ScrapeInput) {
    const problem = unsupportedOption(input, engines)
    if (problem !== undefined) return yield* problem
    const badSelector = yield* invalidSelector(input)
    if (badSelector !== undefined)
      return yield* new RequestError({ reason: "Validation", code: "BAD_REQUEST", message: badSelector.message })
    const tracking = trackingOf(input)
    if (tracking !== undefined && Option.isNone(jobStore))
      return yield* new RequestError({
        reason: "Unsupported",
        code: "SCRAPE_UNSUPPORTED_FORMAT",
        message: "The changeTracking format needs a job store to keep the pages' snapshots in.",
      })
    if (tracking !== undefined && input.zeroDataRetention === true)
      return yield* new RequestError({
        reason: "Unsupported",
        code: "SCRAPE_ZDR_CHANGE_TRACKING",
        message:
          "The changeTracking format keeps a snapshot of the page to compare the next scrape with, which zero data retention forbids.",
      })
    const scrapeId = uuidv7()
    const url = withScheme(input.url)
    yield* RequestLog.note({ host: hostOf(url) })
    const key = cacheKey(url, partitionOf(scope, input.owner)) + pdfCacheSuffix(input.parsers)
    const cached = yield* fromCache(key, input)
    if (Option.isSome(cached)) {
      // The cache is shared with processes that may allow more (a worker with private addresses allowed): a copy is
      // served only for URLs this process would fetch, the requested one and the one the copy came from.
      yield* guard.checkTarget(url)
      if (cached.value.url !== url) yield* guard.checkTarget(cached.value.url)
      const document = yield* build(input, cached.value, {
        sourceURL: input.url,
        scrapeId,
        cacheState: "hit",
        cachedAt: new Date(cached.value.cachedAt).toISOString(),
      })
      // Indexed for this caller too: the copy may have been fetched by another key, or without markdown.
      yield* recordDocument(searchIndex, input.owner ?? null, document, { zeroDataRetention: input.zeroDataRetention })
      yield* Metrics.pageScraped("cache")
      const outcome: ScrapeOutcome = { document }
      return outcome
    }
    if (input.minAge !== undefined || input.lockdown)
      return yield* new RequestError({
        reason: "NotFound",
        code: input.lockdown ? "SCRAPE_LOCKDOWN_CACHE_MISS" : "SCRAPE_NO_CACHED_DATA",
        message: `No cached data is available for ${input.url}${input.minAge !== undefined ? ` that is at least ${input.minAge} ms old` : ""}.`,
      })
    // Plain HTTP unless the request needs the browser (the capability check let it through only with one) or the
    // host's pages are rendered by JavaScript; a page that turns out to be a JavaScript shell is loaded again in it.
    const hasBrowser = Option.isSome(browser)
    const inBrowser = hasBrowser && (browserOptionOf(input) !== undefined || clientRenderedHosts.has(hostOf(url)))
    let fetched = yield* fetchPage(url, input, inBrowser, input.proxy === "basic" ? proxies?.next() : undefined)
    if (hasBrowser && fetched.viaHttp && isHtml(fetched.page) && looksClientRendered(fetched.page.body)) {
      clientRenderedHosts.set(hostOf(url), true)
      fetched = yield* fetchPage(url, input, true, fetched.proxied ? proxies?.next() : undefined)
    }
    const { page, retryAfter } = fetched
    const screenshot = fetched.screenshot === undefined ? undefined : yield* stored(fetched.screenshot)
    const actions =
      fetched.actions === undefined
        ? undefined
        : {
            ...fetched.actions,
            screenshots: yield* Effect.forEach(fetched.actions.screenshots, stored),
            pdfs: yield* Effect.forEach(fetched.actions.pdfs, stored),
          }
    const hasHeaders = input.headers !== undefined && Object.keys(input.headers).length > 0
    // Error pages are not cached: a later visit should see the site recovered. Neither are pages seen with the
    // caller's headers or profile: they may be that caller's alone.
    if (
      input.storeInCache &&
      !input.zeroDataRetention &&
      !hasHeaders &&
      input.profile === undefined &&
      page.statusCode < 500 &&
      page.statusCode !== 429
    )
      yield* cache.set(key, page)
    const prepared = buildOptions(input)
    const built = yield* build(prepared.options, page, {
      sourceURL: input.url,
      scrapeId,
      cacheState: "miss",
      engine: fetched.viaHttp ? "http" : "browser",
    })
    if (replays !== undefined)
      yield* replays.remember(scrapeId, {
        owner: input.owner ?? null,
        url: page.url,
        mobile: input.mobile,
        location: input.location,
        headers: input.headers,
        storageState: fetched.storageState,
      })
    const blocked = fetched.blockedUrls
    const assembled = {
      ...built,
      ...(blocked.length > 0 ? { warning: blockedWarning(blocked) } : {}),
      ...(screenshot !== undefined ? { screenshot } : {}),
      ...(actions !== undefined ? { actions } : {}),
    }
    const document =
      tracking === undefined
        ? assembled
        : yield* withChangeTracking(jobStore, tracking, assembled, {
            url,
            owner: input.owner ?? null,
            addedJson: prepared.addedJson,
            context: input.tracking ?? { writer: scrapeId },
          }).pipe(Effect.orDie)
    // Fetched pages feed the local search index.
    yield* recordDocument(searchIndex, input.owner ?? null, document, {
      zeroDataRetention: input.zeroDataRetention,
      personal: hasHeaders || input.profile !== undefined || (input.actions?.length ?? 0) > 0,
    })
    yield* Metrics.pageScraped("fetch")
    const outcome: ScrapeOutcome = { document, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) }
    return outcome
  })

  const scrapeDetailed = (input: ScrapeInput) =>
    timeLimit(
      scrape(input),
      input.timeout,
      () =>
        new ScrapeError({
          reason: "Timeout",
          url: input.url,
          message: `The scrape of ${input.url} timed out after ${input.timeout} ms before completing.`,
        }),
    )

  return {
    scrapeDetailed,
    scrape: (input: ScrapeInput) => Effect.map(scrapeDetailed(input), (outcome) => outcome.document),
  }
})

/** The scrape service over a Fetcher, a ScrapeCache, a DocumentBuilder and the URL guard. */
export const layer: Layer.Layer<Scrape, never, Fetcher | ScrapeCache | DocumentBuilder | UrlGuard | CacheScope> =
  Layer.effect(Scrape, make)
