/**
 * The life of a monitor's checks: claiming a due monitor, starting its check as a job, and recording the check's end
 * with its summary, the webhook and the email.
 *
 * Exactly once, across any number of workers: a check is claimed by a compare-and-set on the monitor record that
 * stores the check's id (`pending`), so one worker wins; the check's job is created under that id, so a claim whose
 * claimer died is finished by the next worker that finds the monitor due again, without a second job. The end is
 * recorded by a compare-and-set on the check record from `running`, so only one caller sends its notifications.
 * Missed runs collapse: a claim moves the next run to the first one after now, however many were missed.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { MonitorTarget } from "../Domain/MonitorRequest.js"
import type { WebhookSpec } from "../Domain/Webhook.js"
import { RequestError } from "../Errors.js"
import { decodeSpec, encodeSpec, type MonitorSpec } from "../Jobs/JobSpec.js"
import { type Job, JobStore, newId, type StoredRecord, StoreError } from "../Jobs/JobStore.js"
import { Webhooks } from "../Jobs/Webhooks.js"
import { WorkQueue } from "../Jobs/WorkQueue.js"
import { Llm } from "../Llm/Llm.js"
import { seedTasks, targetIdOf, taskLimit } from "./CheckTasks.js"
import { renderCheckEmail } from "./Email.js"
import { Mailer } from "./Mailer.js"
import { asMonitor, getMonitor, isDue, type MonitorRecord, updateMonitor } from "./MonitorStore.js"
import {
  CHECK,
  type CheckPage,
  type CheckState,
  type CheckTrigger,
  EMPTY_SUMMARY,
  MONITOR,
  type MonitorState,
  type NotificationStatus,
  type PageStatus,
  type RemovedPage,
  summarize,
  TARGET_SEEN,
  type TargetResult,
  type TargetSeen,
  targetSeenId,
} from "./Records.js"
import { nextRun } from "./Schedule.js"

/** A running check is looked at this often, so that one whose end was not recorded (its worker died) is ended. */
export const CHECK_SWEEP_MS = 60_000
/** Due monitors claimed per sweep. */
const CLAIMS_PER_SWEEP = 100
/** Documents read per step when a check's pages are gathered. */
const PAGE_BATCH = 500
const DAY_MS = 24 * 60 * 60 * 1000

const decodeTargets = Schema.decodeUnknown(Schema.Array(MonitorTarget))

export const checkIsRunning = () =>
  new RequestError({ reason: "Conflict", code: "MONITOR_CHECK_RUNNING", message: "A monitor check is already running" })

/** The webhook spec of a monitor's webhook, with its events named as the outbox names them. */
export const webhookSpecOf = (state: MonitorState): WebhookSpec | undefined =>
  state.webhook === undefined
    ? undefined
    : {
        url: state.webhook.url,
        headers: state.webhook.headers ?? {},
        metadata: state.webhook.metadata ?? {},
        events: (state.webhook.events ?? ["monitor.page", "monitor.check.completed"]).map((event) =>
          event === "monitor.page" ? "page" : "check.completed",
        ),
      }

const withoutPending = ({ pending: _, ...state }: MonitorState): MonitorState => state

export const judgeModeOf = (state: MonitorState, hasModel: boolean): MonitorSpec["judge"] =>
  !state.judgeEnabled ? "off" : hasModel ? "model" : state.judgeRules !== undefined ? "rules" : "off"

export class MonitorChecks extends Context.Tag("@webdata/core/MonitorChecks")<
  MonitorChecks,
  {
    /** Starts the checks of the monitors due at `now`, and finishes claims whose claimer died. Returns how many. */
    readonly startDue: (now: number) => Effect.Effect<number, StoreError>
    /** Ends the running checks whose job has ended without their end being recorded. Returns how many. */
    readonly finishDue: (now: number) => Effect.Effect<number, StoreError>
    /** Starts a check now (`manual`); 409 while one runs. */
    readonly runNow: (monitor: MonitorRecord) => Effect.Effect<StoredRecord, RequestError | StoreError>
    /** Records the end of the check whose job has just ended (a no-op when it is recorded already). */
    readonly finish: (job: Job) => Effect.Effect<void, StoreError>
  }
>() {}

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const queue = yield* WorkQueue
  const webhooks = yield* Webhooks
  const mailer = Option.getOrUndefined(yield* Effect.serviceOption(Mailer))
  const hasModel = Option.isSome(yield* Effect.serviceOption(Llm))

  const putCheck = (
    id: string,
    owner: string | null,
    state: CheckState,
    now: number,
    expiresAt: number,
    expectedVersion?: number,
  ) =>
    store.putRecord({
      kind: CHECK,
      id,
      owner,
      parent: state.monitorId,
      label: state.status,
      ...(state.status === "running" ? { dueAt: now + CHECK_SWEEP_MS } : {}),
      value: state,
      now,
      expiresAt,
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
    })

  const retentionOf = (state: MonitorState) => state.retentionDays * DAY_MS

  /**
   * A scheduled run that found the previous check still running: recorded, and the run moves on (unless another
   * sweep moved it or claimed it first).
   */
  const skipOverlap = (monitor: MonitorRecord, now: number) =>
    Effect.gen(function* () {
      const { record, state } = monitor
      const skipped: CheckState = {
        monitorId: record.id,
        status: "skipped_overlap",
        trigger: "scheduled",
        scheduledFor: state.nextRunAt,
        startedAt: null,
        finishedAt: now,
        summary: EMPTY_SUMMARY,
        targetResults: null,
        notificationStatus: null,
        error: `The check ${state.currentCheckId} was still running.`,
        removed: [],
      }
      const moved = yield* updateMonitor(store, record.id, (current) =>
        isDue(current.state, now) &&
        current.state.pending === undefined &&
        current.state.currentCheckId === state.currentCheckId
          ? Option.some({ ...current.state, nextRunAt: nextRun(current.state.schedule, now) ?? null })
          : Option.none(),
      )
      if (Option.isSome(moved)) yield* putCheck(newId(), record.owner, skipped, now, now + retentionOf(state))
    })

  /** The spec of a check of the monitor as it is now. */
  const specOf = (id: string, state: MonitorState) =>
    Effect.map(
      decodeTargets(state.targets).pipe(
        Effect.mapError(
          (error) =>
            new StoreError({
              reason: "InvalidData",
              message: `Monitor ${id}'s targets do not decode: ${error.message}`,
            }),
        ),
      ),
      (targets): MonitorSpec => ({
        kind: "monitor",
        monitorId: id,
        targets,
        goal: state.goal,
        judge: judgeModeOf(state, hasModel),
        ...(state.judgeRules !== undefined ? { judgeRules: state.judgeRules } : {}),
        retentionDays: state.retentionDays,
      }),
    )

  /** Makes the job and record of a claimed check (again, after a claimer that died: both writes are idempotent). */
  const startClaimed = (monitor: MonitorRecord) =>
    Effect.gen(function* () {
      const { record, state } = monitor
      const pending = state.pending
      if (pending === undefined) return Option.none<StoredRecord>()
      const now = Date.now()
      const expiresAt = now + retentionOf(state)
      const spec = yield* specOf(record.id, state)
      const webhook = webhookSpecOf(state)
      if (Option.isNone(yield* store.getJob(pending.checkId)))
        yield* store.createJob(
          {
            id: pending.checkId,
            kind: "monitor",
            owner: record.owner,
            options: encodeSpec(spec),
            limit: taskLimit(spec),
            ...(webhook !== undefined ? { webhook } : {}),
            zeroDataRetention: false,
            createdAt: now,
            expiresAt,
          },
          seedTasks(spec),
        )
      const running: CheckState = {
        monitorId: record.id,
        status: "running",
        trigger: pending.trigger,
        scheduledFor: pending.scheduledFor,
        startedAt: now,
        finishedAt: null,
        summary: EMPTY_SUMMARY,
        targetResults: null,
        notificationStatus: null,
        error: null,
        removed: [],
      }
      // A claimer that died after this write left the record: it is kept as it is.
      yield* putCheck(pending.checkId, record.owner, running, now, expiresAt, 0)
      yield* updateMonitor(store, record.id, (current) =>
        current.state.pending?.checkId === pending.checkId
          ? Option.some({ ...withoutPending(current.state), currentCheckId: pending.checkId })
          : Option.none(),
      )
      yield* queue.notify({ jobId: pending.checkId, kind: "monitor" })
      // The job may have ended already (a claimer that died after its last page): its end is recorded now.
      const job = yield* store.getJob(pending.checkId)
      if (Option.isSome(job) && job.value.status !== "scraping") yield* finish(job.value)
      return yield* store.getRecord(CHECK, pending.checkId)
    })

  /** Whether the monitor's current check is still running. */
  const currentRuns = (state: MonitorState) =>
    state.currentCheckId === null
      ? Effect.succeed(false)
      : Effect.map(store.getJob(state.currentCheckId), (job) => Option.isSome(job) && job.value.status === "scraping")

  /**
   * Claims the monitor's check by a compare-and-set; none when another claim won. A scheduled claim stands while the
   * run is still due, whatever else was written since the sweep read the monitor (the last check's end, a rename):
   * requiring the version read let every sweep of a round lose to such a write, and the run waited for the next sweep.
   * A manual claim stands on the version its caller found idle.
   */
  const claim = (monitor: MonitorRecord, trigger: CheckTrigger, now: number) =>
    updateMonitor(store, monitor.record.id, (current) => {
      const stands =
        trigger === "scheduled" ? isDue(current.state, now) : current.record.version === monitor.record.version
      if (!stands) return Option.none()
      const { state } = current
      const pending = state.pending ?? {
        checkId: newId(),
        trigger,
        scheduledFor: trigger === "scheduled" ? state.nextRunAt : null,
        claimedAt: now,
      }
      return Option.some({
        ...state,
        pending: { ...pending, claimedAt: now },
        lastRunAt: now,
        nextRunAt: pending.trigger === "scheduled" ? (nextRun(state.schedule, now) ?? null) : state.nextRunAt,
      })
    })

  const startOne = (monitor: MonitorRecord, now: number) =>
    Effect.gen(function* () {
      if (monitor.state.pending === undefined && (yield* currentRuns(monitor.state))) {
        yield* skipOverlap(monitor, now)
        return false
      }
      const claimed = yield* claim(monitor, "scheduled", now)
      if (Option.isNone(claimed)) return false
      yield* startClaimed(claimed.value)
      return true
    }).pipe(
      Effect.catchTag("StoreError", (error) =>
        error.reason === "InvalidData"
          ? Effect.as(Effect.logWarning(`Monitor ${monitor.record.id}: its check could not start`, error), false)
          : Effect.fail(error),
      ),
    )

  const startDue = Effect.fn("MonitorChecks.startDue")(function* (now: number) {
    const due = yield* store.dueRecords(MONITOR, now, CLAIMS_PER_SWEEP)
    let started = 0
    for (const record of due) if (yield* startOne(asMonitor(record), now)) started += 1
    return started
  })

  const runNow = Effect.fn("MonitorChecks.runNow")(function* (monitor: MonitorRecord) {
    if (monitor.state.pending !== undefined || (yield* currentRuns(monitor.state))) return yield* checkIsRunning()
    const claimed = yield* claim(monitor, "manual", Date.now())
    if (Option.isNone(claimed)) return yield* checkIsRunning()
    const check = yield* startClaimed(claimed.value)
    if (Option.isNone(check))
      return yield* new StoreError({ reason: "QueryFailed", message: "The check's record was not written" })
    return check.value
  })

  /** Every page the check's job recorded. */
  const pagesOf = (job: Job) =>
    Effect.gen(function* () {
      const pages: Array<CheckPage> = []
      for (let skip = 0; ; skip += PAGE_BATCH) {
        const batch = yield* store.documents(job.id, { skip, limit: PAGE_BATCH })
        for (const entry of batch) pages.push(entry.document as CheckPage)
        if (batch.length < PAGE_BATCH) return pages
      }
    })

  /** Crawl pages the last check saw that this one did not reach; what each crawl and search target saw now. */
  const compareTargets = (
    monitor: MonitorRecord | undefined,
    spec: MonitorSpec,
    pages: ReadonlyArray<CheckPage>,
    job: Job,
  ) =>
    Effect.gen(function* () {
      const removed: Array<RemovedPage> = []
      const seen: Array<{ readonly targetId: string; readonly urls: ReadonlyArray<string> }> = []
      if (monitor === undefined || job.status !== "completed") return { removed, seen }
      for (const [index, target] of spec.targets.entries()) {
        if (target.type === "scrape") continue
        const targetId = targetIdOf(target, index)
        const mine = pages.filter((page) => page.targetId === targetId)
        const previous = yield* store.getRecord(TARGET_SEEN, targetSeenId(monitor.record.id, targetId))
        const before = Option.match(previous, {
          onNone: () => [],
          onSome: (record) => (record.value as TargetSeen).urls,
        })
        if (target.type === "crawl") {
          const now = new Set(mine.map((page) => page.url))
          for (const url of before) if (!now.has(url)) removed.push({ id: newId(), targetId, url })
          seen.push({ targetId, urls: [...now] })
        } else seen.push({ targetId, urls: [...new Set([...before, ...mine.map((page) => page.url)])] })
      }
      return { removed, seen }
    })

  const targetResultsOf = (spec: MonitorSpec, pages: ReadonlyArray<CheckPage>, removed: ReadonlyArray<RemovedPage>) =>
    spec.targets.map((target, index): TargetResult => {
      const targetId = targetIdOf(target, index)
      const mine = pages.filter((page) => page.targetId === targetId)
      const errors = mine.filter((page) => page.status === "error")
      return {
        targetId,
        type: target.type,
        pages: mine.length + removed.filter((page) => page.targetId === targetId).length,
        ...(mine.length > 0 && errors.length === mine.length ? { error: errors[0]?.error ?? "Every page failed" } : {}),
      }
    })

  const email = (monitor: MonitorRecord, check: StoredRecord, state: CheckState, pages: ReadonlyArray<CheckPage>) =>
    Effect.gen(function* () {
      const settings = monitor.state.notification?.email
      const recipients = settings?.recipients ?? []
      if (settings?.enabled !== true || recipients.length === 0) return undefined
      if (mailer === undefined) return { email: "not_configured" } satisfies NotificationStatus
      const { summary } = state
      if (summary.changed + summary.new + summary.removed + summary.error === 0)
        return { email: "nothing_to_send" } satisfies NotificationStatus
      const message = renderCheckEmail({
        monitor: { id: monitor.record.id, name: monitor.state.name, goal: monitor.state.goal },
        check: {
          id: check.id,
          status: state.status,
          ...(state.finishedAt !== null ? { finishedAt: new Date(state.finishedAt).toISOString() } : {}),
          summary,
        },
        pages: [...pages, ...state.removed.map((page) => ({ url: page.url, status: "removed" as const }))],
        includeDiffs: settings.includeDiffs === true,
      })
      return yield* mailer.send({ to: recipients, ...message }).pipe(
        Effect.as({ email: "sent" } satisfies NotificationStatus),
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`Monitor ${monitor.record.id}: the email of check ${check.id} failed`, error), {
            email: "failed",
            emailError: error.message,
          } satisfies NotificationStatus),
        ),
      )
    })

  const finish = Effect.fn("MonitorChecks.finish")(function* (job: Job): Effect.fn.Return<void, StoreError> {
    const found = yield* store.getRecord(CHECK, job.id)
    if (Option.isNone(found)) return
    const check = found.value
    const state = check.value as CheckState
    if (state.status !== "running") return
    const monitor = Option.getOrUndefined(yield* getMonitor(store, state.monitorId))
    const decoded = yield* Effect.option(decodeSpec(job.options))
    const spec = Option.isSome(decoded) && decoded.value.kind === "monitor" ? decoded.value : undefined
    const pages = yield* pagesOf(job)
    const { removed, seen } =
      spec === undefined ? { removed: [], seen: [] } : yield* compareTargets(monitor, spec, pages, job)
    const statuses: Array<PageStatus> = [...pages.map((page) => page.status), ...removed.map(() => "removed" as const)]
    const summary = summarize(statuses)
    const now = Date.now()
    const status: CheckState["status"] =
      job.status === "completed" ? (summary.error > 0 ? "partial" : "completed") : "failed"
    const subscribed =
      monitor !== undefined && webhookSpecOf(monitor.state)?.events.includes("check.completed") === true
    const ended: CheckState = {
      ...state,
      status,
      finishedAt: now,
      summary,
      targetResults: spec === undefined ? null : targetResultsOf(spec, pages, removed),
      notificationStatus: { webhook: subscribed ? "queued" : "not_subscribed" },
      error: job.status === "completed" ? null : (job.error ?? `The check was ${job.status}.`),
      removed,
    }
    const written = yield* putCheck(check.id, check.owner, ended, now, check.expiresAt ?? job.expiresAt, check.version)
    // Another caller recorded the end first, and sends the notifications.
    if (Option.isNone(written) || monitor === undefined) return
    for (const target of seen)
      yield* store.putRecord({
        kind: TARGET_SEEN,
        id: targetSeenId(monitor.record.id, target.targetId),
        owner: monitor.record.owner,
        parent: monitor.record.id,
        value: { urls: target.urls } satisfies TargetSeen,
        now,
      })
    const hook = webhookSpecOf(monitor.state)
    if (hook !== undefined)
      yield* webhooks.send({
        spec: hook,
        jobKind: "monitor",
        jobId: check.id,
        event: "check.completed",
        success: summary.error === 0 && status !== "failed",
        data: [{ monitorId: monitor.record.id, checkId: check.id, status, summary }],
        ...(ended.error !== null ? { error: ended.error } : {}),
      })
    const mailed = yield* email(monitor, written.value, ended, pages)
    if (mailed !== undefined)
      yield* putCheck(
        check.id,
        check.owner,
        { ...ended, notificationStatus: { ...ended.notificationStatus, ...mailed } },
        Date.now(),
        check.expiresAt ?? job.expiresAt,
      )
    yield* updateMonitor(store, monitor.record.id, (current) =>
      Option.some({
        ...current.state,
        lastCheckSummary: summary,
        currentCheckId: current.state.currentCheckId === check.id ? null : current.state.currentCheckId,
      }),
    )
  })

  const finishDue = Effect.fn("MonitorChecks.finishDue")(function* (now: number) {
    const due = yield* store.dueRecords(CHECK, now, CLAIMS_PER_SWEEP)
    let finished = 0
    for (const check of due) {
      const job = yield* store.getJob(check.id)
      if (Option.isSome(job) && job.value.status !== "scraping") {
        yield* finish(job.value)
        finished += 1
        continue
      }
      const state = check.value as CheckState
      // Still running: looked at again later; a check whose job is gone (expired, purged) has failed.
      const next: CheckState = Option.isSome(job)
        ? state
        : { ...state, status: "failed", finishedAt: now, error: "The check's job no longer exists." }
      yield* putCheck(check.id, check.owner, next, now, check.expiresAt ?? now, check.version)
    }
    return finished
  })

  // A check's end is recorded and announced whole, whoever calls it (a sweep is interrupted when its worker stops): an
  // email cut short would be lost.
  return MonitorChecks.of({ startDue, finishDue, runNow, finish: (job) => Effect.uninterruptible(finish(job)) })
})

export const layer: Layer.Layer<MonitorChecks, never, JobStore | WorkQueue | Webhooks> = Layer.effect(
  MonitorChecks,
  make,
)
