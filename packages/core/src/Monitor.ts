/**
 * Monitors: pages, sites and searches checked on a schedule, each check comparing what it finds with the previous one
 * and saying what changed (Firecrawl's `/v2/monitor`). A monitor is a job-store record; its checks run as jobs
 * (`Monitor/Checks.ts`), started by every worker's sweep (`Monitor/Scheduler.ts`) or on demand.
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { checkIgnoreRobots } from "./Crawl.js"
import { decodeStrict } from "./Domain/Decode.js"
import {
  DEFAULT_RETENTION_DAYS,
  MonitorCreateRequest,
  type MonitorScheduleInput,
  MonitorTarget,
  type MonitorTargetInput,
  MonitorUpdateRequest,
} from "./Domain/MonitorRequest.js"
import { RequestError } from "./Errors.js"
import { JobStore, newId, type StoredRecord, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { checkWebhookTarget } from "./Jobs/Webhooks.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { MonitorChecks, webhookSpecOf } from "./Monitor/Checks.js"
import { targetTaskLimit } from "./Monitor/CheckTasks.js"
import { asMonitor, getMonitor, type MonitorRecord, putMonitor, updateMonitor } from "./Monitor/MonitorStore.js"
import {
  CHECK,
  type CheckPage,
  type CheckState,
  type CheckStatus,
  checkView,
  MONITOR,
  type MonitorState,
  monitorView,
  type PageStatus,
} from "./Monitor/Records.js"
import { nextRun, parseSchedule } from "./Monitor/Schedule.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import { availableEngines, unsupportedOption } from "./Scrape/Capabilities.js"

export type MonitorView = ReturnType<typeof monitorView>
export type CheckView = ReturnType<typeof checkView>
export type CheckDetailView = CheckView & { readonly pages: ReadonlyArray<CheckPage> }

export interface ListPage {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

export interface CheckPagesPage {
  readonly limit?: number | undefined
  readonly skip?: number | undefined
  readonly status?: PageStatus | undefined
}

export class Monitor extends Context.Tag("@webdata/core/Monitor")<
  Monitor,
  {
    /**
     * `mayIgnoreRobots`: the caller's key has the `ignoreRobotsTxt` flag, as for a crawl; decided now, the checks crawl
     * with the options stored.
     */
    readonly create: (
      input: unknown,
      owner: Owner,
      mayIgnoreRobots?: boolean,
    ) => Effect.Effect<MonitorView, RequestError | StoreError>
    readonly list: (owner: Owner, page?: ListPage) => Effect.Effect<ReadonlyArray<MonitorView>, StoreError>
    readonly get: (id: string, owner: Owner) => Effect.Effect<MonitorView, RequestError | StoreError>
    /** `mayIgnoreRobots`: as for `create`, for the targets the update sets. */
    readonly update: (
      id: string,
      input: unknown,
      owner: Owner,
      mayIgnoreRobots?: boolean,
    ) => Effect.Effect<MonitorView, RequestError | StoreError>
    /** Deletes the monitor with its checks; a running check is cancelled. */
    readonly delete: (id: string, owner: Owner) => Effect.Effect<void, RequestError | StoreError>
    /** Starts a check now; 409 while one runs. */
    readonly run: (id: string, owner: Owner) => Effect.Effect<CheckView, RequestError | StoreError>
    readonly checks: (
      id: string,
      owner: Owner,
      page?: ListPage & { readonly status?: CheckStatus | undefined },
    ) => Effect.Effect<ReadonlyArray<CheckView>, RequestError | StoreError>
    /** A check with a page of its pages; `nextSkip` when more follow. */
    readonly check: (
      id: string,
      checkId: string,
      owner: Owner,
      page?: CheckPagesPage,
    ) => Effect.Effect<{ readonly check: CheckDetailView; readonly nextSkip?: number }, RequestError | StoreError>
  }
>() {}

const DEFAULT_LIMIT = 25
const MAX_LIMIT = 100
/** Pages one check may read at most: a monitor runs every few minutes, and each check is one job among others. */
export const MAX_CHECK_PAGES = 10_000
/** Pages read per step when a check's pages are filtered by status. */
const SCAN_BATCH = 500

const decodeCreate = decodeStrict(MonitorCreateRequest)
const decodeUpdate = decodeStrict(MonitorUpdateRequest)
const encodeTargets = Schema.encode(Schema.Array(MonitorTarget))

const notFound = () => new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Monitor not found" })
const invalid = (message: string) => new RequestError({ reason: "Validation", code: "BAD_REQUEST", message })

const limitOf = (limit: number | undefined) => Math.min(MAX_LIMIT, Math.max(1, Math.trunc(limit ?? DEFAULT_LIMIT)))
const offsetOf = (offset: number | undefined) => Math.max(0, Math.trunc(offset ?? 0))

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const checks = yield* MonitorChecks
  const config = yield* JobsConfig
  const queue = yield* WorkQueue
  const guard = yield* UrlGuard
  const engines = yield* availableEngines

  const scheduleOf = (input: MonitorScheduleInput) => {
    const parsed = parseSchedule(input, config.monitorMinIntervalMs)
    return parsed.ok ? Effect.succeed(parsed.schedule) : Effect.fail(invalid(parsed.message))
  }

  /** The targets as stored: each with an id (unique within the monitor) and what this engine can scrape. */
  const targetsOf = (targets: ReadonlyArray<MonitorTarget>, mayIgnoreRobots: boolean) =>
    Effect.gen(function* () {
      const ids = new Set<string>()
      const withIds: Array<MonitorTarget> = []
      for (const target of targets) {
        const id = target.id ?? newId()
        if (ids.has(id)) return yield* invalid(`Two targets have the id ${id}`)
        ids.add(id)
        if (target.type === "crawl")
          yield* checkIgnoreRobots(config, target.crawlOptions?.ignoreRobotsTxt === true, mayIgnoreRobots)
        if (target.type !== "search" && target.scrapeOptions !== undefined) {
          const problem = unsupportedOption(target.scrapeOptions, engines)
          if (problem !== undefined) return yield* problem
        }
        withIds.push({ ...target, id })
      }
      const pages = withIds.reduce((sum, target) => sum + targetTaskLimit(target), 0)
      if (pages > MAX_CHECK_PAGES)
        return yield* invalid(
          `The targets add up to ${pages} pages per check; a monitor reads at most ${MAX_CHECK_PAGES} (lower crawl limits, or split it).`,
        )
      const encoded = yield* encodeTargets(withIds).pipe(Effect.mapError((error) => invalid(error.message)))
      return encoded as ReadonlyArray<MonitorTargetInput & { readonly id: string }>
    })

  /**
   * Rules that span fields: a search target needs a goal to judge results by, unless judging is turned off (`judge`:
   * what the request says, or the monitor had).
   */
  const checkGoal = (state: MonitorState, judge: boolean | undefined) => {
    const searches = state.targets.some((target) => target.type === "search")
    return searches && judge !== false && (state.goal ?? "").trim() === ""
      ? Effect.fail(invalid("A monitor with a search target needs a non-empty `goal`, unless `judgeEnabled` is false."))
      : Effect.void
  }

  const owned = (id: string, owner: Owner) =>
    Effect.flatMap(getMonitor(store, id), (found) =>
      Option.isSome(found) && found.value.record.owner === owner
        ? Effect.succeed(found.value)
        : Effect.fail(notFound()),
    )

  const view = ({ record, state }: MonitorRecord) => monitorView(record, state)

  const create = Effect.fn("Monitor.create")(function* (input: unknown, owner: Owner, mayIgnoreRobots = false) {
    const request = yield* decodeCreate(input)
    yield* queue.admit
    const schedule = yield* scheduleOf(request.schedule)
    const now = yield* Clock.currentTimeMillis
    const goal = request.goal ?? null
    const state: MonitorState = {
      name: request.name,
      schedule,
      targets: yield* targetsOf(request.targets, mayIgnoreRobots),
      ...(request.webhook !== undefined ? { webhook: request.webhook } : {}),
      ...(request.notification !== undefined ? { notification: request.notification } : {}),
      retentionDays: request.retentionDays ?? DEFAULT_RETENTION_DAYS,
      goal,
      judgeEnabled: request.judgeEnabled ?? (goal ?? "").trim() !== "",
      ...(request.judgeRules !== undefined ? { judgeRules: request.judgeRules } : {}),
      status: "active",
      nextRunAt: nextRun(schedule, now) ?? null,
      lastRunAt: null,
      currentCheckId: null,
    }
    yield* checkGoal(state, request.judgeEnabled)
    yield* checkWebhookTarget(guard, webhookSpecOf(state))
    const written = yield* putMonitor(store, newId(), owner, state, now, 0)
    if (Option.isNone(written)) return yield* invalid("The monitor could not be created; try again.")
    return view(written.value)
  })

  const list = Effect.fn("Monitor.list")(function* (owner: Owner, page: ListPage = {}) {
    const records = yield* store.listRecords({
      kind: MONITOR,
      owner,
      offset: offsetOf(page.offset),
      limit: limitOf(page.limit),
    })
    return records.map((record) => view(asMonitor(record)))
  })

  const get = Effect.fn("Monitor.get")(function* (id: string, owner: Owner) {
    return view(yield* owned(id, owner))
  })

  const update = Effect.fn("Monitor.update")(function* (
    id: string,
    input: unknown,
    owner: Owner,
    mayIgnoreRobots = false,
  ) {
    const request = yield* decodeUpdate(input)
    const current = yield* owned(id, owner)
    const schedule = request.schedule !== undefined ? yield* scheduleOf(request.schedule) : undefined
    const targets = request.targets !== undefined ? yield* targetsOf(request.targets, mayIgnoreRobots) : undefined
    const now = yield* Clock.currentTimeMillis
    const change = (state: MonitorState): MonitorState => {
      const { webhook: _webhook, judgeRules: _rules, notification: _notification, ...rest } = state
      const webhook = request.webhook === undefined ? state.webhook : (request.webhook ?? undefined)
      const notification = request.notification === undefined ? state.notification : (request.notification ?? undefined)
      const judgeRules = request.judgeRules === undefined ? state.judgeRules : (request.judgeRules ?? undefined)
      const goal = request.goal !== undefined ? request.goal : state.goal
      const status = request.status ?? state.status
      // A new schedule, or a monitor that resumes, runs next at its schedule's next time from now.
      const rescheduled = schedule !== undefined || (status === "active" && state.status === "paused")
      const nextSchedule = schedule ?? state.schedule
      return {
        ...rest,
        ...(request.name !== undefined ? { name: request.name } : {}),
        schedule: nextSchedule,
        ...(targets !== undefined ? { targets } : {}),
        ...(webhook !== undefined ? { webhook } : {}),
        ...(notification !== undefined ? { notification } : {}),
        ...(request.retentionDays !== undefined ? { retentionDays: request.retentionDays } : {}),
        goal,
        judgeEnabled:
          request.judgeEnabled ?? (request.goal !== undefined ? (goal ?? "").trim() !== "" : state.judgeEnabled),
        ...(judgeRules !== undefined ? { judgeRules } : {}),
        status,
        nextRunAt: rescheduled ? (nextRun(nextSchedule, now) ?? null) : state.nextRunAt,
      }
    }
    const proposed = change(current.state)
    yield* checkGoal(proposed, request.judgeEnabled ?? current.state.judgeEnabled)
    yield* checkWebhookTarget(guard, webhookSpecOf(proposed))
    const written = yield* updateMonitor(store, id, (found) =>
      found.record.owner === owner ? Option.some(change(found.state)) : Option.none(),
    )
    if (Option.isNone(written)) return yield* notFound()
    return view(written.value)
  })

  const remove = Effect.fn("Monitor.delete")(function* (id: string, owner: Owner) {
    const current = yield* owned(id, owner)
    const running = current.state.pending?.checkId ?? current.state.currentCheckId
    yield* store.deleteRecord(MONITOR, id)
    if (running !== null) yield* store.cancelJob(running, Date.now())
  })

  const run = Effect.fn("Monitor.run")(function* (id: string, owner: Owner) {
    yield* queue.admit
    const record = yield* checks.runNow(yield* owned(id, owner))
    return checkView(record, record.value as CheckState)
  })

  const listChecks = Effect.fn("Monitor.checks")(function* (
    id: string,
    owner: Owner,
    page: ListPage & { readonly status?: CheckStatus | undefined } = {},
  ) {
    yield* owned(id, owner)
    const records = yield* store.listRecords({
      kind: CHECK,
      parent: id,
      ...(page.status !== undefined ? { label: page.status } : {}),
      offset: offsetOf(page.offset),
      limit: limitOf(page.limit),
    })
    return records.map((record) => checkView(record, record.value as CheckState))
  })

  /** The check's pages from `skip` on (its job's documents, then the pages it reports removed), filtered by status. */
  const pagesOf = (record: StoredRecord, state: CheckState, page: CheckPagesPage) =>
    Effect.gen(function* () {
      const skip = offsetOf(page.skip)
      const limit = limitOf(page.limit)
      const removed: ReadonlyArray<CheckPage> = state.removed.map((entry) => ({
        id: entry.id,
        targetId: entry.targetId,
        url: entry.url,
        status: "removed",
        previousScrapeId: null,
        currentScrapeId: null,
        statusCode: null,
        error: null,
        metadata: null,
        judgment: null,
        diff: null,
        snapshot: null,
        createdAt: new Date(state.finishedAt ?? record.updatedAt).toISOString(),
      }))
      const matches = (candidate: CheckPage) => page.status === undefined || candidate.status === page.status
      // Without a filter the pages are read where they are; with one, read in order until the page is full.
      const wanted = skip + limit + 1
      const found: Array<CheckPage> = []
      if (page.status === undefined) {
        const documents = yield* store.documents(record.id, { skip, limit: limit + 1 })
        found.push(...documents.map((entry) => entry.document as CheckPage))
        const count = yield* store.countDocuments(record.id)
        const fromRemoved = Math.max(0, skip - count)
        found.push(...removed.slice(fromRemoved, fromRemoved + limit + 1 - found.length))
        return { pages: found.slice(0, limit), more: found.length > limit }
      }
      for (let from = 0; found.length < wanted; from += SCAN_BATCH) {
        const batch = yield* store.documents(record.id, { skip: from, limit: SCAN_BATCH })
        found.push(...batch.map((entry) => entry.document as CheckPage).filter(matches))
        if (batch.length < SCAN_BATCH) break
      }
      found.push(...removed.filter(matches))
      return { pages: found.slice(skip, skip + limit), more: found.length > skip + limit }
    })

  const check = Effect.fn("Monitor.check")(function* (
    id: string,
    checkId: string,
    owner: Owner,
    page: CheckPagesPage = {},
  ) {
    yield* owned(id, owner)
    const found = yield* store.getRecord(CHECK, checkId)
    if (Option.isNone(found) || found.value.parent !== id)
      return yield* new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Monitor check not found" })
    const record = found.value
    const state = record.value as CheckState
    const { pages, more } = yield* pagesOf(record, state, page)
    const detail: CheckDetailView = { ...checkView(record, state), pages }
    return { check: detail, ...(more ? { nextSkip: offsetOf(page.skip) + limitOf(page.limit) } : {}) }
  })

  return Monitor.of({ create, list, get, update, delete: remove, run, checks: listChecks, check })
})

export const layer: Layer.Layer<Monitor, never, JobStore | MonitorChecks | JobsConfig | WorkQueue | UrlGuard> =
  Layer.effect(Monitor, make)
