/**
 * When a worker may next fetch for a job or from a host: a job's `delay`, a host's robots.txt `Crawl-delay`, and a
 * host's back-off after `429`/`503` with `Retry-After`. The gates live in the job store (`passGates`, `holdGate`), so
 * every worker process keeps one pace together; tasks that come too early are deferred (no attempt burned).
 */
import type { Gate } from "./JobStore.js"

/** A `Retry-After` longer than this is read as this: a site must not park a crawl for days. */
export const MAX_BACKOFF_MS = 10 * 60 * 1000

export const jobGate = (jobId: string): string => `job ${jobId}`
export const hostGate = (host: string): string => `host ${host}`

/** The gates a task of `jobId` on `host` passes: the host's (spaced by its `Crawl-delay`) and the job's `delay`. */
export const taskGates = (
  task: { readonly jobId: string; readonly host: string },
  crawlDelayMs: number,
  delayMs: number,
): ReadonlyArray<Gate> => [
  { key: hostGate(task.host), spacingMs: crawlDelayMs },
  ...(delayMs > 0 ? [{ key: jobGate(task.jobId), spacingMs: delayMs }] : []),
]
