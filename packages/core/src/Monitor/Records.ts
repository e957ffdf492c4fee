/**
 * What the store keeps of monitors, as job-store records: the monitor (its definition and schedule state), its checks
 * (one record each; a check's pages are the documents of the check's job, whose id is the check's), and per target
 * what the last check saw (a crawl's pages, a search's results). Times are epoch ms; the API shows them as ISO text.
 */
import type { JudgeRules, MonitorNotification, MonitorTargetInput, MonitorWebhook } from "../Domain/MonitorRequest.js"

export const MONITOR = "monitor"
export const CHECK = "monitor-check"
export const TARGET_SEEN = "monitor-target"

export interface Summary {
  readonly totalPages: number
  readonly same: number
  readonly changed: number
  readonly new: number
  readonly removed: number
  readonly error: number
}

export const EMPTY_SUMMARY: Summary = { totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 }

export type CheckTrigger = "scheduled" | "manual"

/** A claimed check whose job is not created yet: finished by whoever claims the monitor next if its claimer died. */
export interface PendingCheck {
  readonly checkId: string
  readonly trigger: CheckTrigger
  readonly scheduledFor: number | null
  readonly claimedAt: number
}

export interface MonitorState {
  readonly name: string
  readonly schedule: { readonly cron: string; readonly timezone: string }
  /** As sent (encoded), each with its `id`. */
  readonly targets: ReadonlyArray<MonitorTargetInput & { readonly id: string }>
  readonly webhook?: MonitorWebhook
  readonly notification?: MonitorNotification
  readonly retentionDays: number
  readonly goal: string | null
  readonly judgeEnabled: boolean
  readonly judgeRules?: JudgeRules
  readonly status: "active" | "paused"
  readonly nextRunAt: number | null
  readonly lastRunAt: number | null
  readonly currentCheckId: string | null
  readonly lastCheckSummary?: Summary
  readonly pending?: PendingCheck
}

export const CHECK_STATUSES = ["queued", "running", "completed", "failed", "partial", "skipped_overlap"] as const
export type CheckStatus = (typeof CHECK_STATUSES)[number]

export interface NotificationStatus {
  readonly webhook?: "queued" | "not_subscribed"
  readonly email?: "sent" | "failed" | "not_configured" | "nothing_to_send"
  readonly emailError?: string
}

/** What a check says about one target once it has ended. */
export interface TargetResult {
  readonly targetId: string
  readonly type: "scrape" | "crawl" | "search"
  readonly pages: number
  readonly error?: string
}

/** A page the check did not visit and reports as gone: a crawl page the crawl no longer reached. */
export interface RemovedPage {
  readonly id: string
  readonly targetId: string
  readonly url: string
}

export interface CheckState {
  readonly monitorId: string
  readonly status: CheckStatus
  readonly trigger: CheckTrigger
  readonly scheduledFor: number | null
  readonly startedAt: number | null
  readonly finishedAt: number | null
  readonly summary: Summary
  readonly targetResults: ReadonlyArray<TargetResult> | null
  readonly notificationStatus: NotificationStatus | null
  readonly error: string | null
  readonly removed: ReadonlyArray<RemovedPage>
}

export const PAGE_STATUSES = ["same", "new", "changed", "removed", "error"] as const
export type PageStatus = (typeof PAGE_STATUSES)[number]

export interface Judgment {
  readonly meaningful: boolean
  readonly confidence: "high" | "medium" | "low"
  readonly reason: string
  readonly meaningfulChanges: ReadonlyArray<{
    readonly type: "added" | "removed" | "changed"
    readonly before: string | null
    readonly after: string | null
    readonly reason: string
  }>
}

/** One page of a check (a document of the check's job), in Firecrawl's `MonitorCheckPage` shape. */
export interface CheckPage {
  readonly id: string
  readonly targetId: string
  readonly url: string
  readonly status: PageStatus
  readonly previousScrapeId: string | null
  readonly currentScrapeId: string | null
  readonly statusCode: number | null
  readonly error: string | null
  readonly metadata: Record<string, unknown> | null
  readonly judgment: Judgment | null
  readonly diff: { readonly text?: string; readonly json?: unknown } | null
  readonly snapshot: { readonly json: unknown } | null
  readonly createdAt: string
}

/** What a crawl or search target saw in its last check. */
export interface TargetSeen {
  readonly urls: ReadonlyArray<string>
}

export const targetSeenId = (monitorId: string, targetId: string) => `${monitorId}/${targetId}`

export const summarize = (statuses: ReadonlyArray<PageStatus>): Summary => {
  const counts = { ...EMPTY_SUMMARY, totalPages: statuses.length }
  for (const status of statuses) counts[status] += 1
  return counts
}

const iso = (time: number | null | undefined) =>
  time === null || time === undefined ? null : new Date(time).toISOString()

/** A monitor in Firecrawl's `Monitor` shape. */
export const monitorView = (
  record: { readonly id: string; readonly createdAt: number; readonly updatedAt: number },
  state: MonitorState,
) => ({
  id: record.id,
  name: state.name,
  status: state.status,
  schedule: state.schedule,
  nextRunAt: state.status === "active" ? iso(state.nextRunAt) : null,
  lastRunAt: iso(state.lastRunAt),
  currentCheckId: state.currentCheckId,
  targets: state.targets,
  ...(state.webhook !== undefined ? { webhook: state.webhook } : {}),
  ...(state.notification !== undefined ? { notification: state.notification } : {}),
  retentionDays: state.retentionDays,
  estimatedCreditsPerMonth: null,
  ...(state.lastCheckSummary !== undefined ? { lastCheckSummary: state.lastCheckSummary } : {}),
  goal: state.goal,
  judgeEnabled: state.judgeEnabled,
  ...(state.judgeRules !== undefined ? { judgeRules: state.judgeRules } : {}),
  createdAt: new Date(record.createdAt).toISOString(),
  updatedAt: new Date(record.updatedAt).toISOString(),
})

/** A check in Firecrawl's `MonitorCheck` shape. */
export const checkView = (
  record: { readonly id: string; readonly createdAt: number; readonly updatedAt: number },
  state: CheckState,
) => ({
  id: record.id,
  monitorId: state.monitorId,
  status: state.status,
  trigger: state.trigger,
  scheduledFor: iso(state.scheduledFor),
  startedAt: iso(state.startedAt),
  finishedAt: iso(state.finishedAt),
  estimatedCredits: null,
  reservedCredits: null,
  actualCredits: null,
  billingStatus: "not_applicable",
  summary: state.summary,
  targetResults: state.targetResults,
  notificationStatus: state.notificationStatus,
  error: state.error,
  createdAt: new Date(record.createdAt).toISOString(),
  updatedAt: new Date(record.updatedAt).toISOString(),
})
