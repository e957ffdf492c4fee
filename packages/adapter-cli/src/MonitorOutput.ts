/** How the monitor commands print monitors, checks and pages: lists as tab-separated rows, a monitor as fields. */
import type { MonitorCheck, MonitorCheckDetail, MonitorView } from "@webdata/core/engine"
import { oneLine } from "./FollowRun.js"
import { plural } from "./RunJob.js"

type Target = MonitorView["targets"][number]
type CheckPage = MonitorCheckDetail["pages"][number]

/** Counts worth reading first; those of none are left out. */
const COUNTED = ["changed", "new", "removed", "error", "same"] as const

/** `3 pages: 1 changed, 2 same`. */
export const summaryText = (summary: MonitorCheck["summary"]): string => {
  const counts = COUNTED.filter((status) => summary[status] > 0).map((status) => `${summary[status]} ${status}`)
  return `${plural(summary.totalPages, "page")}${counts.length > 0 ? `: ${counts.join(", ")}` : ""}`
}

const scheduleText = (monitor: MonitorView) => `${monitor.schedule.cron} (${monitor.schedule.timezone})`

/** A row of `monitor list`: id, status, schedule, next run, name. */
export const monitorRow = (monitor: MonitorView): string =>
  [monitor.id, monitor.status, scheduleText(monitor), monitor.nextRunAt ?? "-", monitor.name].join("\t")

const targetText = (target: Target): string => {
  switch (target.type) {
    case "scrape":
      return `scrape ${target.urls.join(" ")}`
    case "crawl":
      return `crawl ${target.url}${target.crawlOptions?.limit !== undefined ? ` (limit ${target.crawlOptions.limit})` : ""}`
    case "search":
      return `search ${target.queries.map((query) => JSON.stringify(query)).join(" ")}`
  }
}

/** `monitor get`: the monitor's fields, one a line. */
export const monitorLines = (monitor: MonitorView): ReadonlyArray<string> => {
  const recipients = monitor.notification?.email?.recipients ?? []
  return [
    `id: ${monitor.id}`,
    `name: ${monitor.name}`,
    `status: ${monitor.status}`,
    `schedule: ${scheduleText(monitor)}`,
    `next run: ${monitor.nextRunAt ?? "-"}`,
    `last run: ${monitor.lastRunAt ?? "-"}`,
    ...monitor.targets.map((target) => `target: ${targetText(target)}`),
    ...(monitor.webhook !== undefined ? [`webhook: ${monitor.webhook.url}`] : []),
    ...(recipients.length > 0 ? [`email: ${recipients.join(", ")}`] : []),
    ...(monitor.goal ? [`goal: ${oneLine(monitor.goal)}`] : []),
    ...(monitor.lastCheckSummary !== undefined ? [`last check: ${summaryText(monitor.lastCheckSummary)}`] : []),
  ]
}

/** A row of `monitor checks`: id, status, trigger, when it started (or was made), what it found. */
export const checkRow = (check: MonitorCheck): string =>
  [check.id, check.status, check.trigger, check.startedAt ?? check.createdAt, summaryText(check.summary)].join("\t")

/** `Check <id> completed: 3 pages: 1 changed, 2 same`, with the check's error when it has one. */
export const checkHeadline = (check: MonitorCheck): string =>
  `Check ${check.id} ${check.status}: ${summaryText(check.summary)}${check.error ? ` (${oneLine(check.error)})` : ""}`

/** A page: its status, its URL, and its error when it has one. */
export const pageRow = (page: CheckPage): string =>
  [page.status, page.url, ...(page.error ? [oneLine(page.error)] : [])].join("\t")
