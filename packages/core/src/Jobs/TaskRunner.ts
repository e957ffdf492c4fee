/**
 * One leased task, start to end: robots.txt, politeness, the scrape, retries, link discovery, and the one commit
 * that records the page with the links it found (`completeTask`). That commit also queues the page's webhook event
 * and, when it ends the job, the job's `completed` event: a receiver never hears of a page the store does not hold,
 * and a process killed after the commit loses no event. An extract's answer and a check's end are announced after
 * the commit, from what every page recorded.
 */

import { Cache, Context, Duration, Effect, Either, Layer, Option, Ref, Schema } from "effect"
import { LRUCache } from "lru-cache"
import { AgentSteps } from "../Agent/AgentSteps.js"
import { type LinkFilter, makeLinkFilter } from "../Crawl/LinkFilter.js"
import { allowAll, type RobotsRules } from "../Crawl/Robots.js"
import { sitemapUrls } from "../Crawl/SiteFiles.js"
import { dedupKey, normalizeUrl } from "../Crawl/UrlKey.js"
import type { Document } from "../Domain/Document.js"
import { hasFormat } from "../Domain/Formats.js"
import { decodeMapRequest } from "../Domain/MapRequest.js"
import { MonitorCrawlOptions } from "../Domain/MonitorRequest.js"
import { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { withScheme } from "../Domain/Url.js"
import { Fetcher } from "../Engines/Fetcher.js"
import { mapError } from "../ErrorCodes.js"
import type { LlmError, RequestError, ScrapeError } from "../Errors.js"
import { EXTRACT_TIMED_OUT, readExtract } from "../Extract/ExtractResult.js"
import { pageRecord, pageScrapeOptions, pageTaskOf, taskKind } from "../Extract/ExtractTasks.js"
import { isSiteTask, llmsPageRecord, sitePageTasks } from "../LlmsTxt/Tasks.js"
import { MapService } from "../Map.js"
import { CheckSteps, errorPage, scrapeOptionsOf, seenPage } from "../Monitor/CheckSteps.js"
import { MonitorChecks } from "../Monitor/Checks.js"
import { pageTask as monitorPageTask, targetOfTask } from "../Monitor/CheckTasks.js"
import type { CheckPage } from "../Monitor/Records.js"
import { underJob } from "../Observability/JobTrace.js"
import { STEPS_PER_TURN, yieldToEventLoop } from "../Process/EventLoop.js"
import { Scrape, type ScrapeOutcome } from "../Scrape.js"
import { SearchProvider } from "../Search/SearchProvider.js"
import { webResults } from "../Search.js"
import { CREDITS_PER_PAGE } from "../Tenants/Costing.js"
import { Usage } from "../Tenants/Usage.js"
import { type CrawlSpec, decodeSpec, type ExtractSpec, type JobSpec, type LlmsTxtSpec } from "./JobSpec.js"
import {
  type Job,
  JobStore,
  type NewTask,
  type StoreError,
  type Task,
  type TaskDeliveries,
  type TaskError,
  type TaskOutcome,
} from "./JobStore.js"
import { hostGate, MAX_BACKOFF_MS, taskGates } from "./Politeness.js"
import { RobotsCache } from "./RobotsCache.js"
import { announce, jobDelivery, Webhooks } from "./Webhooks.js"

/** Attempts of a task before its failure is final (Firecrawl retries transient failures 3 times in all). */
export const MAX_ATTEMPTS = 3
/** `Retry-After` deferrals of one task before its answer is taken as final. */
const MAX_DEFERRALS = 5
/** robots.txt `Crawl-delay` is honoured up to this; longer values would stall a crawl for hours. */
const MAX_CRAWL_DELAY_MS = 30_000
const SITEMAP_TIMEOUT_MS = 30_000
const UNKNOWN_TARGET: TaskError = { code: "MONITOR_TARGET_UNKNOWN", message: "The task names no target of its check." }
const defaultScrapeOptions = Schema.decodeSync(ScrapeOptions)({})
const defaultMonitorCrawler = Schema.decodeSync(MonitorCrawlOptions)({})

/** How a crawl (or a monitor's crawl target) follows links: its rules, its seed, and the task of a link. */
interface CrawlContext {
  readonly url: string
  readonly crawler: CrawlSpec["crawler"]
  readonly headers: Record<string, string> | undefined
  readonly filter: LinkFilter
  readonly seedKey: string
  /**
   * Links (as pages give them) whose proposal this process has seen committed. Most of a page's links point at pages
   * the crawl already has (navigation, pagination); the store would ignore them again, so they are neither filtered
   * nor sent. Filled only once a page's commit is recorded: a page run again after a lost lease proposes them again.
   */
  readonly proposed: Set<string>
  readonly taskOf: (url: string, depth: number) => NewTask
}

/** What a worker keeps about a job while it runs its tasks: the spec, and the link rules of what it crawls. */
interface JobContext {
  readonly job: Job
  readonly spec: JobSpec
  /** A crawl's. */
  readonly crawl?: CrawlContext
  /** A monitor check's, by the index of its crawl targets. */
  readonly crawlTargets?: ReadonlyMap<number, CrawlContext>
}

const dedupOptions = (crawler: CrawlSpec["crawler"]) => ({
  ignoreQueryParameters: crawler.ignoreQueryParameters,
  deduplicateSimilarURLs: crawler.deduplicateSimilarURLs,
})

/** The frontier entry of a link the filter accepted. */
export const frontierTask = (spec: Pick<CrawlSpec, "crawler">, url: string, depth: number): NewTask => {
  const normalized = normalizeUrl(url, dedupOptions(spec.crawler))
  return {
    url: normalized,
    key: dedupKey(normalized, dedupOptions(spec.crawler)),
    depth,
    host: new URL(normalized).host,
  }
}

const crawlContext = (
  url: string,
  crawler: CrawlSpec["crawler"],
  headers: Record<string, string> | undefined,
  taskOf: (url: string, depth: number) => NewTask,
): CrawlContext => ({
  url,
  crawler,
  headers,
  filter: makeLinkFilter(url, crawler),
  seedKey: taskOf(url, 0).key,
  proposed: new Set(),
  taskOf,
})

const contextOf = (job: Job, spec: JobSpec): JobContext => {
  if (spec.kind === "crawl")
    return {
      job,
      spec,
      crawl: crawlContext(spec.url, spec.crawler, spec.scrapeOptions.headers, (url, depth) =>
        frontierTask(spec, url, depth),
      ),
    }
  if (spec.kind !== "monitor") return { job, spec }
  const crawlTargets = new Map<number, CrawlContext>()
  for (const [index, target] of spec.targets.entries())
    if (target.type === "crawl") {
      const crawler = target.crawlOptions ?? defaultMonitorCrawler
      crawlTargets.set(
        index,
        crawlContext(withScheme(target.url), crawler, target.scrapeOptions?.headers, (url, depth) =>
          monitorPageTask(index, target, url, depth),
        ),
      )
    }
  return { job, spec, crawlTargets }
}

/** Links a crawl remembers as proposed at most; past it, links are filtered and sent as before. */
const MAX_PROPOSED = 100_000

/** Remembers a recorded page's links as proposed, up to the bound. */
const remember = (crawl: CrawlContext | undefined, links: ReadonlyArray<string>) => {
  if (crawl === undefined) return
  for (const link of links) {
    if (crawl.proposed.size >= MAX_PROPOSED) return
    crawl.proposed.add(link)
  }
}

/** The crawl the task belongs to, if it is a crawl's page. */
const crawlOf = (context: JobContext, task: Task): CrawlContext | undefined => {
  if (context.crawl !== undefined || context.spec.kind !== "monitor") return context.crawl
  const target = targetOfTask(context.spec, task)
  return target === undefined ? undefined : context.crawlTargets?.get(target.index)
}

// Whole milliseconds: stores keep times as integers (Postgres refuses a fraction in a bigint).
const backoffMs = (attempts: number): number => Math.round(1000 * 2 ** attempts * (0.75 + Math.random() / 2))

const isThrottled = (status: number): boolean => status === 429 || status === 503
const isServerTrouble = (status: number): boolean => status === 429 || status >= 500

export class TaskRunner extends Context.Tag("@webdata/core/TaskRunner")<
  TaskRunner,
  {
    /** Runs the task held in `lease` (the worker keeps the lease fresh in it) to its recorded end. */
    readonly run: (lease: Ref.Ref<Task>) => Effect.Effect<void, StoreError>
  }
>() {}

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const scraper = yield* Scrape
  const robots = yield* RobotsCache
  const webhooks = yield* Webhooks
  const fetcher = yield* Fetcher
  const mapper = yield* MapService
  const search = yield* Effect.serviceOption(SearchProvider)
  const agent = yield* AgentSteps
  const checkSteps = yield* CheckSteps
  const checks = yield* MonitorChecks
  const usage = yield* Usage
  // Retry-After deferrals per task; bounded, since a task deferred here may end on another worker or be cancelled.
  const deferrals = new LRUCache<string, number>({ max: 10_000 })

  /** Ends a job that cannot run (its stored options are unusable): failed, announced, its tasks never leased again. */
  const abandon = (job: Job, reason: string) =>
    store.failJob(job.id, reason, Date.now()).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.void,
          onSome: (failed) => announce(webhooks, failed, "failed", [], reason),
        }),
      ),
      Effect.zipRight(Effect.logWarning(`Job ${job.id} failed: ${reason}`)),
      Effect.as(Option.none<JobContext>()),
    )

  const contexts = yield* Cache.make({
    capacity: 1000,
    timeToLive: Duration.minutes(10),
    lookup: (jobId: string) =>
      store.getJob(jobId).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.succeed(Option.none<JobContext>()),
            onSome: (job) =>
              decodeSpec(job.options).pipe(
                Effect.flatMap((spec) => Effect.try(() => contextOf(job, spec))),
                Effect.map(Option.some),
                Effect.catchAll((error) => abandon(job, `its stored options cannot be used: ${error.message}`)),
              ),
          }),
        ),
      ),
  })

  /** The webhook events the commit of a task's end queues: the page's, and the job's end when it is the last. */
  const deliveriesOf = (context: JobContext, task: Task, outcome: TaskOutcome): TaskDeliveries | undefined => {
    const { job, spec } = context
    // An extract announces its answer, once, when its last page is recorded; it has no page events. An llms.txt
    // generation has no webhook.
    if (spec.kind === "extract" || spec.kind === "llmstxt") return undefined
    // A check's pages go to the monitor's webhook; its end is recorded, and announced, after its last page's commit.
    if (spec.kind === "monitor")
      return outcome.document === undefined
        ? undefined
        : { page: checkSteps.pageDelivery(job, spec, outcome.document as CheckPage) }
    const page =
      outcome.document !== undefined
        ? jobDelivery(job, "page", [outcome.document])
        : outcome.error !== undefined
          ? jobDelivery(job, "page", [{ metadata: { sourceURL: task.url } }], outcome.error.message)
          : undefined
    return { page, completed: jobDelivery(job, "completed") }
  }

  /**
   * Records the task's end with its webhook events; then records the end of a check or an extract it finished.
   * Uninterruptible: the worker stops a job's tasks once it sees the job ended, which may be before the commit that
   * ended it has answered, and what follows the commit (the usage, the check's end, the extract's answer) would be lost.
   */
  // Untraced, as are `discover` and `answered`: they run for every page inside the task's span, and a span costs
  // ~15 µs of CPU (measured), several percent of a small page's.
  const complete = Effect.fnUntraced(function* (context: JobContext, lease: Ref.Ref<Task>, outcome: TaskOutcome) {
    const task = yield* Ref.get(lease)
    deferrals.delete(task.id)
    const deliveries = deliveriesOf(context, task, outcome)
    const last = yield* admitAllButLastSlice(task, outcome)
    const result = yield* store.completeTask(task, { ...last, ...(deliveries !== undefined ? { deliveries } : {}) })
    if (!result.recorded) return false
    if (outcome.document !== undefined) yield* usage.charge(context.job.owner, { credits: CREDITS_PER_PAGE })
    if (deliveries?.page !== undefined || (result.finished && deliveries?.completed !== undefined)) yield* webhooks.wake
    if (!result.finished || Option.isNone(result.job)) return true
    if (context.spec.kind === "monitor") yield* checks.finish(result.job.value)
    else if (context.spec.kind === "extract") yield* announceExtract(result.job.value)
    return true
  }, Effect.uninterruptible)

  /**
   * Admits the links of a page that found thousands (a seed with a 50 000-URL sitemap) in slices of `STEPS_PER_TURN`,
   * each its own commit with a turn of the event loop after it, and leaves the last slice to the page's own commit:
   * one commit of them all held the process 0.3-0.5 s (in memory, SQLite). Repeating a slice is harmless: a page run
   * again after a lost lease proposes its links again, and the store admits each key once.
   */
  const admitAllButLastSlice = Effect.fnUntraced(function* (task: Task, outcome: TaskOutcome) {
    const { discovered } = outcome
    if (discovered.length <= STEPS_PER_TURN) return outcome
    let from = 0
    for (; discovered.length - from > STEPS_PER_TURN; from += STEPS_PER_TURN) {
      yield* store.addTasks(task.jobId, discovered.slice(from, from + STEPS_PER_TURN), outcome.now)
      yield* yieldToEventLoop
    }
    return { ...outcome, discovered: discovered.slice(from) }
  })

  /** `extract.completed` with the merged answer, or `extract.failed` when no page gave anything. */
  const announceExtract = (job: Job) =>
    readExtract(store, job).pipe(
      Effect.flatMap(({ outcome }) =>
        outcome.status === "completed"
          ? announce(webhooks, job, "completed", [
              { data: outcome.data, sources: outcome.sources, warnings: outcome.warnings },
            ])
          : announce(webhooks, job, "failed", [], outcome.error ?? "The extract failed."),
      ),
      Effect.catchAll((error) => Effect.logWarning(`Extract ${job.id}: its answer could not be read`, error)),
    )

  /** The URLs of a site, by map; a failure as a task's error. */
  const mapLinks = (request: Parameters<typeof decodeMapRequest>[0]) =>
    decodeMapRequest(request).pipe(
      Effect.flatMap(mapper.map),
      Effect.map((result): ReadonlyArray<string> => result.links.map((link) => link.url)),
      Effect.mapError(mapError),
      Effect.either,
    )

  /** Ends a task that found pages: its error, or the page tasks admitted in the same commit. */
  const completeFound = (
    context: JobContext,
    lease: Ref.Ref<Task>,
    found: Either.Either<ReadonlyArray<NewTask>, TaskError>,
  ) =>
    complete(
      context,
      lease,
      Either.isLeft(found)
        ? { now: Date.now(), error: found.left, discovered: [], robotsBlocked: [] }
        : { now: Date.now(), discovered: found.right, robotsBlocked: [] },
    )

  /** An extract's wildcard or search task: the pages it stands for become page tasks in the same commit. */
  const expandExtract = Effect.fn("TaskRunner.expandExtract")(function* (
    context: JobContext,
    lease: Ref.Ref<Task>,
    spec: ExtractSpec,
    task: Task,
  ) {
    const found: Either.Either<ReadonlyArray<string>, TaskError> = taskKind(task) === "expand"
      ? yield* mapLinks({
          url: task.url,
          limit: spec.pageLimit,
          includeSubdomains: spec.includeSubdomains,
          allowExternalLinks: spec.allowExternalLinks,
          sitemap: spec.ignoreSitemap ? "skip" : "include",
        })
      : yield* webResults(search, task.url.replace(/^search:/, ""), 5, context.job.owner).pipe(
          Effect.map((results) => results.map((result) => result.url)),
          Effect.mapError((error) => ({
            code: error.reason === "Unsupported" ? "SEARCH_NOT_CONFIGURED" : "SEARCH_FAILED",
            message: error.message,
          })),
          Effect.either,
        )
    yield* completeFound(
      context,
      lease,
      Either.map(found, (urls) => urls.flatMap((url) => pageTaskOf(url) ?? [])),
    )
  })

  /** An llms.txt job's map: the pages its file lists become page tasks in the same commit. */
  const mapSite = Effect.fn("TaskRunner.mapSite")(function* (
    context: JobContext,
    lease: Ref.Ref<Task>,
    spec: LlmsTxtSpec,
    task: Task,
  ) {
    const found = yield* mapLinks({ url: task.url, limit: spec.maxUrls, includeSubdomains: false })
    yield* completeFound(
      context,
      lease,
      Either.map(found, (links) => sitePageTasks(spec.url, links, spec.maxUrls)),
    )
  })

  /** Robots rules of a URL's origin, or none when it is no crawl's page or the crawl ignores robots.txt. */
  const rulesFor = (crawl: CrawlContext | undefined, url: string) =>
    crawl === undefined || crawl.crawler.ignoreRobotsTxt ? Effect.succeed(undefined) : robots.rulesFor(url)

  /** The links of a crawled page (and, for the seed, its sitemaps) the crawl admits, split by robots.txt. */
  const discover = Effect.fnUntraced(function* (context: JobContext, task: Task, document: Document) {
    const crawl = crawlOf(context, task)
    if (crawl === undefined) return { discovered: [], robotsBlocked: [], proposed: [] }
    const { crawler, filter } = crawl
    const candidates: Array<{ url: string; from: string; depth: number }> = []
    if (crawler.sitemap !== "only")
      for (const link of document.links ?? [])
        if (!crawl.proposed.has(link)) candidates.push({ url: link, from: task.url, depth: task.depth })
    if (task.key === crawl.seedKey && crawler.sitemap !== "skip") {
      const seedRules = yield* rulesFor(crawl, crawl.url)
      const listed = yield* sitemapUrls(crawl.url, seedRules ?? allowAll, {
        limit: crawler.limit,
        timeoutMs: SITEMAP_TIMEOUT_MS,
        ...(crawl.headers !== undefined ? { headers: crawl.headers } : {}),
      }).pipe(Effect.provideService(Fetcher, fetcher))
      for (const url of listed) candidates.push({ url, from: crawl.url, depth: -1 })
    }
    const discovered: Array<NewTask> = []
    const robotsBlocked: Array<string> = []
    const proposed: Array<string> = []
    const seen = new Set<string>()
    // One look-up per origin, not per link: a page's links mostly share one, and the cache's look-up is an effect of
    // its own (a page of 4 500 links spent ~30 % of its main-thread time in Effect's runtime on them, profiled).
    const rulesByOrigin = new Map<string, RobotsRules>()
    for (const [index, candidate] of candidates.entries()) {
      // A seed's sitemaps can list 50 000 URLs per sitemap: the event loop gets a turn every so often.
      if (index > 0 && index % STEPS_PER_TURN === 0) yield* yieldToEventLoop
      if (!filter(candidate.url, { fromUrl: candidate.from, depth: candidate.depth }).follow) continue
      const next = crawl.taskOf(new URL(candidate.url, candidate.from).href, candidate.depth + 1)
      if (seen.has(next.key)) continue
      seen.add(next.key)
      let rules: RobotsRules | undefined
      if (!crawler.ignoreRobotsTxt) {
        const origin = new URL(next.url).origin
        rules = rulesByOrigin.get(origin)
        if (rules === undefined) {
          rules = yield* robots.rulesFor(next.url)
          rulesByOrigin.set(origin, rules)
        }
      }
      if (rules !== undefined && !rules.isAllowed(next.url)) robotsBlocked.push(next.url)
      else {
        discovered.push(next)
        proposed.push(candidate.url)
      }
    }
    return { discovered, robotsBlocked, proposed }
  })

  const scrapeOptions = (context: JobContext & { readonly spec: Exclude<JobSpec, { kind: "agent" }> }, task: Task) => {
    const { spec } = context
    if (spec.kind === "monitor") {
      const target = targetOfTask(spec, task)
      return target === undefined ? defaultScrapeOptions : scrapeOptionsOf(spec, target)
    }
    const options = spec.kind === "extract" ? pageScrapeOptions(spec) : spec.scrapeOptions
    return context.crawl !== undefined && !hasFormat(options.formats, "links")
      ? { ...options, formats: [...options.formats, { type: "links" as const }] }
      : options
  }

  const scrapeInput = (context: JobContext & { readonly spec: Exclude<JobSpec, { kind: "agent" }> }, task: Task) => {
    const options = scrapeOptions(context, task)
    return {
      ...options,
      url: task.url,
      zeroDataRetention: context.job.zeroDataRetention,
      owner: context.job.owner,
      // A page scraped again (its first lease was lost) compares with what the job's first attempt compared with.
      ...(hasFormat(options.formats, "changeTracking") ? { tracking: { writer: context.job.id } } : {}),
    }
  }

  /** The final failure of a task: a check records it as one of its pages, other jobs as an error. */
  const giveUp = (context: JobContext, lease: Ref.Ref<Task>, error: TaskError) =>
    Effect.gen(function* () {
      const task = yield* Ref.get(lease)
      const target = context.spec.kind === "monitor" ? targetOfTask(context.spec, task) : undefined
      const outcome = target !== undefined ? { document: errorPage(task, target, error) } : { error }
      yield* complete(context, lease, { now: Date.now(), ...outcome, discovered: [], robotsBlocked: [] })
    })

  /** A failed scrape: another attempt later when it may pass, else the task's recorded error. */
  const failed = Effect.fn("TaskRunner.failed")(function* (
    context: JobContext,
    lease: Ref.Ref<Task>,
    error: ScrapeError | RequestError | LlmError,
  ) {
    const task = yield* Ref.get(lease)
    const { code, message } = mapError(error)
    const retryable =
      (error._tag === "ScrapeError" && error.isRetryable) ||
      (error._tag === "LlmError" && (error.reason === "Unavailable" || error.reason === "Timeout"))
    if (retryable && task.attempts + 1 < MAX_ATTEMPTS) {
      yield* store.retryTask(task, { notBefore: Date.now() + backoffMs(task.attempts), error: { code, message } })
      return
    }
    yield* giveUp(context, lease, { code, message })
  })

  /** A page answered: defer or retry a throttled or failing server, else record the page with its links. */
  const answered = Effect.fnUntraced(function* (context: JobContext, lease: Ref.Ref<Task>, outcome: ScrapeOutcome) {
    const task = yield* Ref.get(lease)
    const { document } = outcome
    const status = document.metadata.statusCode
    const now = Date.now()
    if (isThrottled(status) && outcome.retryAfterMs !== undefined) {
      const deferred = deferrals.get(task.id) ?? 0
      if (deferred < MAX_DEFERRALS) {
        deferrals.set(task.id, deferred + 1)
        const opensAt = yield* store.holdGate(hostGate(task.host), now + Math.min(outcome.retryAfterMs, MAX_BACKOFF_MS))
        yield* store.deferTask(task, opensAt)
        return
      }
    } else if (isServerTrouble(status) && task.attempts + 1 < MAX_ATTEMPTS) {
      yield* store.retryTask(task, {
        notBefore: now + backoffMs(task.attempts),
        error: { code: "SCRAPE_SITE_ERROR", message: `The server answered ${status}` },
      })
      return
    }
    const { discovered, robotsBlocked, proposed } = yield* discover(context, task, document)
    /** Records the page with its links; once recorded, the crawl remembers them as proposed. */
    const record = (page: TaskOutcome["document"]) =>
      Effect.map(
        complete(context, lease, { now: Date.now(), document: page, discovered, robotsBlocked }),
        (recorded) => {
          if (recorded) remember(crawlOf(context, task), proposed)
        },
      )
    if (context.spec.kind === "monitor") {
      const target = targetOfTask(context.spec, task)
      if (target === undefined) return yield* giveUp(context, lease, UNKNOWN_TARGET)
      return yield* record(yield* checkSteps.page(context.job, context.spec, task, target, document))
    }
    // An error page is no page of a site's llms.txt.
    if (context.spec.kind === "llmstxt" && status >= 400)
      return yield* giveUp(context, lease, { code: "SCRAPE_SITE_ERROR", message: `The server answered ${status}` })
    if (context.spec.kind === "extract") return yield* record(pageRecord(document))
    if (context.spec.kind === "llmstxt") return yield* record(llmsPageRecord(context.spec, document))
    if (context.spec.kind !== "agent" && !hasFormat(context.spec.scrapeOptions.formats, "links")) delete document.links
    yield* record(document)
  })

  const runTask = Effect.fn("TaskRunner.run")(function* (lease: Ref.Ref<Task>) {
    const task = yield* Ref.get(lease)
    const found = yield* contexts.get(task.jobId)
    if (Option.isNone(found)) return
    const context = found.value
    // Lease expiries count as attempts too: a page whose worker died each time (a crash, an OOM) is given up on
    // rather than crash the next worker in a loop.
    if (task.attempts >= MAX_ATTEMPTS) {
      const message = `Gave up on ${task.url} after ${task.attempts} attempts: the worker running it stopped each time.`
      return yield* giveUp(context, lease, { code: "SCRAPE_RETRY_LIMIT", message })
    }
    const spec = context.spec
    if (spec.kind === "agent") return yield* agent.step(context.job, spec, lease)
    if (spec.kind === "extract" && spec.deadline !== undefined && Date.now() > spec.deadline) {
      yield* abandon(context.job, EXTRACT_TIMED_OUT)
      return
    }
    if (spec.kind === "extract" && taskKind(task) !== "page") return yield* expandExtract(context, lease, spec, task)
    if (spec.kind === "llmstxt" && isSiteTask(task)) return yield* mapSite(context, lease, spec, task)
    if (spec.kind === "monitor") {
      const target = targetOfTask(spec, task)
      if (target === undefined) return yield* giveUp(context, lease, UNKNOWN_TARGET)
      if (target.role === "seen")
        return yield* complete(context, lease, {
          now: Date.now(),
          document: seenPage(task, target),
          discovered: [],
          robotsBlocked: [],
        })
      if (target.role === "search") {
        const found = yield* checkSteps.search(context.job, spec, target)
        return yield* "error" in found
          ? giveUp(context, lease, found.error)
          : complete(context, lease, { now: Date.now(), discovered: found.tasks, robotsBlocked: [] })
      }
    }
    const rules = yield* rulesFor(crawlOf(context, task), task.url)
    if (rules !== undefined && !rules.isAllowed(task.url)) {
      yield* complete(context, lease, { now: Date.now(), discovered: [], robotsBlocked: [task.url] })
      return
    }
    const crawlDelayMs = Math.min((rules?.crawlDelaySeconds() ?? 0) * 1000, MAX_CRAWL_DELAY_MS)
    const closed = yield* store.passGates(taskGates(task, crawlDelayMs, context.job.delayMs ?? 0), Date.now())
    if (Option.isSome(closed)) {
      yield* store.deferTask(task, closed.value)
      return
    }
    const result = yield* Effect.either(scraper.scrapeDetailed(scrapeInput({ ...context, spec }, task)))
    if (Either.isLeft(result)) yield* failed(context, lease, result.left)
    else yield* answered(context, lease, result.right)
  })

  /** The task in the trace of the request that started its job (the job's context is cached: no extra read). */
  const run = (lease: Ref.Ref<Task>) =>
    Effect.flatMap(Ref.get(lease), (task) =>
      Effect.flatMap(contexts.get(task.jobId), (found) =>
        Option.isSome(found) ? runTask(lease).pipe(underJob(found.value.job.options)) : runTask(lease),
      ),
    )

  return { run }
})

export const layer: Layer.Layer<
  TaskRunner,
  never,
  JobStore | Scrape | RobotsCache | Webhooks | Fetcher | MapService | AgentSteps | CheckSteps | MonitorChecks | Usage
> = Layer.effect(TaskRunner, make)
