/**
 * What a check's tasks do besides what every job's task does (robots, politeness, the scrape, retries and link
 * discovery stay in `Jobs/TaskRunner.ts`): the scrape options of a target's pages, the comparison of each page with
 * the target's previous snapshot, the judgment of what changed, the expansion of a search target into its results,
 * and the `monitor.page` webhook.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { buildOptions } from "../ChangeTracking/ScrapeStep.js"
import { type ChangeTrackingRequest, trackChanges } from "../ChangeTracking/Track.js"
import type { Document } from "../Domain/Document.js"
import type { Format } from "../Domain/Formats.js"
import { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { MonitorSpec } from "../Jobs/JobSpec.js"
import {
  type Job,
  JobStore,
  type NewDelivery,
  type NewTask,
  type StoreError,
  type Task,
  type TaskError,
} from "../Jobs/JobStore.js"
import { jobDelivery } from "../Jobs/Webhooks.js"
import { SearchProvider } from "../Search/SearchProvider.js"
import { DEFAULT_SEARCH_RESULTS, pageTask, seenTask, type TaskTarget, targetIdOf } from "./CheckTasks.js"
import { makeJudge } from "./Judge.js"
import {
  type CheckPage,
  type Judgment,
  type PageStatus,
  TARGET_SEEN,
  type TargetSeen,
  targetSeenId,
} from "./Records.js"

const DAY_MS = 24 * 60 * 60 * 1000
const defaultScrapeOptions = Schema.decodeSync(ScrapeOptions)({})

/** Google's `tbs` recency filter of each search window. */
const SEARCH_WINDOW_TBS = {
  "5m": "qdr:n5",
  "15m": "qdr:n15",
  "1h": "qdr:h",
  "6h": "qdr:h6",
  "24h": "qdr:d",
  "7d": "qdr:w",
}

/** The change tracking of a target's pages: the target's own `changeTracking` format, else a git diff; its own tag. */
export const trackingRequestOf = (spec: MonitorSpec, task: TaskTarget): ChangeTrackingRequest => {
  const own =
    task.target.type === "search"
      ? undefined
      : task.target.scrapeOptions?.formats.find(
          (format): format is ChangeTrackingRequest => format.type === "changeTracking",
        )
  const modes = own?.modes !== undefined && own.modes.length > 0 ? own.modes : (["git-diff"] as const)
  return {
    ...(own ?? {}),
    type: "changeTracking",
    modes,
    tag: `monitor:${spec.monitorId}:${targetIdOf(task.target, task.index)}`,
  }
}

/** The scrape options of a target's page: its own, fresh (no cache), with markdown, and json when its mode needs it. */
export const scrapeOptionsOf = (spec: MonitorSpec, task: TaskTarget): ScrapeOptions => {
  const own = task.target.type === "search" ? defaultScrapeOptions : (task.target.scrapeOptions ?? defaultScrapeOptions)
  const formats: Array<Format> = own.formats.filter((format) => format.type !== "changeTracking")
  if (!formats.some((format) => format.type === "markdown")) formats.push({ type: "markdown" })
  if (task.target.type === "crawl" && !formats.some((format) => format.type === "links"))
    formats.push({ type: "links" })
  const withTracking = buildOptions({ ...own, formats: [...formats, trackingRequestOf(spec, task)] }).options
  return {
    ...withTracking,
    formats: withTracking.formats.filter((format) => format.type !== "changeTracking"),
    maxAge: 0,
  }
}

const basePage = (task: Task, target: TaskTarget) => ({
  id: task.id,
  targetId: targetIdOf(target.target, target.index),
  url: task.url,
  createdAt: new Date().toISOString(),
})

/** A page the check could not read. */
export const errorPage = (task: Task, target: TaskTarget, error: TaskError): CheckPage => ({
  ...basePage(task, target),
  status: "error",
  previousScrapeId: null,
  currentScrapeId: null,
  statusCode: null,
  error: error.message,
  metadata: { code: error.code },
  judgment: null,
  diff: null,
  snapshot: null,
})

/** A search result an earlier check reported. */
export const seenPage = (task: Task, target: TaskTarget): CheckPage => ({
  ...basePage(task, target),
  url: task.key.slice(task.key.indexOf(" seen ") + " seen ".length),
  status: "same",
  previousScrapeId: null,
  currentScrapeId: null,
  statusCode: null,
  error: null,
  metadata: { searchStatus: "already_seen" },
  judgment: null,
  diff: null,
  snapshot: null,
})

export class CheckSteps extends Context.Tag("@webdata/core/CheckSteps")<
  CheckSteps,
  {
    /** The page of a scraped document: compared with its snapshot (which it replaces) and judged. */
    readonly page: (
      job: Job,
      spec: MonitorSpec,
      task: Task,
      target: TaskTarget,
      document: Document,
    ) => Effect.Effect<CheckPage, StoreError>
    /** A search target's results as tasks: pages to read (new results) and results already reported. */
    readonly search: (
      job: Job,
      spec: MonitorSpec,
      target: TaskTarget,
    ) => Effect.Effect<{ readonly tasks: ReadonlyArray<NewTask> } | { readonly error: TaskError }, StoreError>
    /** The page's event for the monitor's webhook, queued by the commit that records the page; none without one. */
    readonly pageDelivery: (job: Job, spec: MonitorSpec, page: CheckPage) => NewDelivery | undefined
  }
>() {}

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const provider = yield* Effect.serviceOption(SearchProvider)
  const judge = yield* makeJudge

  const page = Effect.fn("CheckSteps.page")(function* (
    job: Job,
    spec: MonitorSpec,
    task: Task,
    target: TaskTarget,
    document: Document,
  ) {
    const request = trackingRequestOf(spec, target)
    const { result, previous } = yield* trackChanges(store, request, document, {
      owner: job.owner,
      url: task.url,
      writer: job.id,
      ttlMs: spec.retentionDays * DAY_MS,
      now: Date.now(),
    })
    const modes = request.modes ?? []
    const jsonMode = modes.includes("json")
    const gitMode = modes.includes("git-diff")
    const changed = result.changeStatus === "changed"
    const isSearch = target.target.type === "search"
    const toJudge = (changed && !isSearch) || (isSearch && result.changeStatus === "new")
    const judgment: Judgment | null = toJudge
      ? yield* judge.judge({
          goal: spec.goal,
          mode: spec.judge,
          rules: spec.judgeRules,
          url: task.url,
          status: changed ? "changed" : "new",
          diff: result.diff?.text,
          content: document.markdown,
          owner: job.owner,
        })
      : null
    // A new search result the judge found beside the goal is not an alert (Firecrawl's `ignored`).
    const ignored = isSearch && judgment !== null && !judgment.meaningful
    const status: PageStatus = ignored ? "same" : result.changeStatus
    const text = result.diff?.text
    // Mixed modes: the markdown diff with the changed fields; git-diff alone: with its parsed form; json alone: fields.
    const diff = !changed
      ? null
      : {
          ...(gitMode && text !== undefined ? { text } : {}),
          json: jsonMode ? (result.json ?? {}) : (result.diff?.json ?? { files: [] }),
        }
    return {
      ...basePage(task, target),
      status,
      previousScrapeId: Option.match(previous, { onNone: () => null, onSome: (snapshot) => snapshot.scrapeId || null }),
      currentScrapeId: document.metadata.scrapeId ?? null,
      statusCode: document.metadata.statusCode,
      error: null,
      metadata: {
        ...(document.metadata.title !== undefined ? { title: document.metadata.title } : {}),
        previousScrapeAt: result.previousScrapeAt,
        ...(isSearch ? { searchStatus: ignored ? "ignored" : status === "new" ? "alert" : "watching" } : {}),
      },
      judgment,
      diff,
      snapshot: jsonMode ? { json: document.json ?? null } : null,
    } satisfies CheckPage
  })

  const search = Effect.fn("CheckSteps.search")(function* (job: Job, spec: MonitorSpec, target: TaskTarget) {
    if (target.target.type !== "search") return { tasks: [] }
    if (Option.isNone(provider))
      return { error: { code: "SEARCH_NOT_CONFIGURED", message: "No search provider is configured (WEBDATA_SEARCH)." } }
    const settings = target.target
    const limit = settings.maxResults ?? DEFAULT_SEARCH_RESULTS
    const answers = yield* Effect.forEach(
      settings.queries,
      (query) =>
        Effect.either(
          provider.value.search({
            source: "web",
            query,
            limit,
            timeoutMs: 30_000,
            owner: job.owner,
            includeDomains: settings.includeDomains,
            excludeDomains: settings.excludeDomains,
            tbs: SEARCH_WINDOW_TBS[settings.searchWindow ?? "24h"],
          }),
        ),
      { concurrency: 3 },
    )
    const failures = answers.flatMap((answer) => (answer._tag === "Left" ? [answer.left] : []))
    if (failures.length === answers.length && failures[0] !== undefined)
      return { error: { code: "SEARCH_FAILED", message: failures[0].message } }
    const seen = Option.match(
      yield* store.getRecord(TARGET_SEEN, targetSeenId(spec.monitorId, targetIdOf(settings, target.index))),
      {
        onNone: () => new Set<string>(),
        onSome: (record) => new Set((record.value as TargetSeen).urls),
      },
    )
    const tasks = new Map<string, NewTask>()
    for (const answer of answers) {
      if (answer._tag === "Left") continue
      for (const hit of answer.right.hits) {
        if (tasks.size >= limit) break
        try {
          const next = seen.has(hit.url)
            ? seenTask(target.index, hit.url)
            : pageTask(target.index, settings, hit.url, 1)
          if (!tasks.has(next.key)) tasks.set(next.key, next)
        } catch {
          // A result that is not an absolute URL is not a page to watch.
        }
      }
    }
    return { tasks: [...tasks.values()] }
  })

  const pageDelivery = (job: Job, spec: MonitorSpec, page: CheckPage) =>
    jobDelivery(
      job,
      "page",
      [
        {
          monitorId: spec.monitorId,
          checkId: job.id,
          url: page.url,
          status: page.status,
          previousScrapeId: page.previousScrapeId,
          currentScrapeId: page.currentScrapeId,
          error: page.error,
          isMeaningful: page.judgment?.meaningful ?? null,
          judgment: page.judgment,
          diff: page.diff,
        },
      ],
      page.error ?? undefined,
    )

  return CheckSteps.of({ page, search, pageDelivery })
})

export const layer: Layer.Layer<CheckSteps, never, JobStore> = Layer.effect(CheckSteps, make)
