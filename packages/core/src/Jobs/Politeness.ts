/**
 * When a worker may next fetch for a job or from a host: a job's `delay`, a host's robots.txt `Crawl-delay`, and a
 * host's back-off after `429`/`503` with `Retry-After`. Tasks that come too early are deferred (no attempt burned).
 *
 * The gates live in the worker's memory: they pace one process. Several workers on one crawl each keep their own
 * pace (a shared pace would need the store; the job's `maxConcurrency` bounds the total meanwhile).
 */
import { LRUCache } from "lru-cache"

/** A `Retry-After` longer than this is read as this: a site must not park a crawl for days. */
export const MAX_BACKOFF_MS = 10 * 60 * 1000

export class Politeness {
  // Bounded: a crawl with external links meets many hosts; a forgotten gate only costs one early fetch.
  readonly #nextAt = new LRUCache<string, number>({ max: 10_000 })

  /**
   * Takes the gate `key` if it is open at `now` (it then stays closed for `spacingMs`) and answers undefined;
   * otherwise answers when it opens.
   */
  reserve(key: string, spacingMs: number, now: number): number | undefined {
    const next = this.#nextAt.get(key) ?? 0
    if (next > now) return next
    if (spacingMs > 0) this.#nextAt.set(key, now + spacingMs)
    return undefined
  }

  /** When the gate `key` opens, if it is closed at `now`. */
  closedUntil(key: string, now: number): number | undefined {
    const next = this.#nextAt.get(key) ?? 0
    return next > now ? next : undefined
  }

  /** Keeps the gate `key` closed for `ms` from `now` (never shortens it). */
  backOff(key: string, ms: number, now: number): void {
    const until = now + Math.min(ms, MAX_BACKOFF_MS)
    if ((this.#nextAt.get(key) ?? 0) < until) this.#nextAt.set(key, until)
  }
}

export const jobGate = (jobId: string): string => `job ${jobId}`
export const hostGate = (host: string): string => `host ${host}`
