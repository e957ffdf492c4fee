/**
 * The fairness rule of `leaseTasks`, shared by every store: jobs are visited least recently served first, and each
 * first gets at most an equal share of the request, so one huge crawl cannot take every free slot while a small
 * batch waits; slots left over (jobs with less work than their share) then go to jobs that have more. A job never
 * gets more than its free `maxConcurrency` slots.
 */
import { Effect } from "effect"

export interface LeaseCandidate {
  readonly id: string
  readonly maxConcurrency: number | undefined
}

export interface FairLeaseOps<T, E, R> {
  /** Live (unexpired) leases the job holds now. Asked only for jobs with a `maxConcurrency`. */
  readonly liveLeases: (jobId: string) => Effect.Effect<number, E, R>
  /** Leases up to `n` due tasks of the job at once (so a later call does not see them as due). */
  readonly take: (jobId: string, n: number) => Effect.Effect<ReadonlyArray<T>, E, R>
}

export interface FairLeaseResult<T> {
  readonly tasks: ReadonlyArray<T>
  /** Ids of the jobs that got at least one task, in the order they were served. */
  readonly served: ReadonlyArray<string>
}

/** Leases up to `max` tasks from `jobs` (given least recently served first). */
export const fairLease = <T, E, R>(
  jobs: ReadonlyArray<LeaseCandidate>,
  max: number,
  ops: FairLeaseOps<T, E, R>,
): Effect.Effect<FairLeaseResult<T>, E, R> =>
  Effect.gen(function* () {
    const tasks: Array<T> = []
    const served: Array<string> = []
    if (max <= 0 || jobs.length === 0) return { tasks, served }
    const share = Math.ceil(max / jobs.length)
    // Jobs that filled their share and may have more to give, with their slots left.
    const more = new Map<string, number>()
    for (const job of jobs) {
      const remaining = max - tasks.length
      if (remaining === 0) break
      const capacity =
        job.maxConcurrency === undefined
          ? Number.POSITIVE_INFINITY
          : Math.max(0, job.maxConcurrency - (yield* ops.liveLeases(job.id)))
      const want = Math.min(share, capacity, remaining)
      if (want === 0) continue
      const got = yield* ops.take(job.id, want)
      if (got.length > 0) served.push(job.id)
      tasks.push(...got)
      if (got.length === want && capacity > want) more.set(job.id, capacity - want)
    }
    for (const [jobId, capacity] of more) {
      const remaining = max - tasks.length
      if (remaining === 0) break
      tasks.push(...(yield* ops.take(jobId, Math.min(capacity, remaining))))
    }
    return { tasks, served }
  })
