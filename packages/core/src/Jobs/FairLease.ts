/**
 * The fairness rule of `leaseTasks`, shared by every store, on two levels: owners (tenants) first, then their jobs.
 * Each owner with due work first gets an equal share of the request, split among its jobs, so a tenant who starts a
 * hundred crawls cannot take every free slot while another tenant's one crawl waits, and within a tenant one huge
 * crawl cannot starve a small batch. Slots left over (owners or jobs with less work than their share) then go to
 * the jobs that have more, so a lone tenant still gets every slot. A job never gets more than its free
 * `maxConcurrency` slots.
 */
import { Effect } from "effect"

export interface LeaseCandidate {
  readonly id: string
  /** The job's owner (the tenant it is fair across); `null` is an owner like any other. */
  readonly owner: string | null
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
  /** Ids of the jobs that got at least one task, in the order they were first served. */
  readonly served: ReadonlyArray<string>
}

/**
 * The jobs grouped by owner, owners least recently served first. An owner was last served when its most recently
 * served job was, which is its last job in `jobs`: ranking owners by their first job instead would serve a tenant
 * with many jobs again and again (each of its jobs in turn) before a tenant with one, whenever `max` is small.
 */
const byOwner = (jobs: ReadonlyArray<LeaseCandidate>): ReadonlyArray<ReadonlyArray<LeaseCandidate>> => {
  const owners = new Map<string | null, { last: number; readonly jobs: Array<LeaseCandidate> }>()
  jobs.forEach((job, index) => {
    const owner = owners.get(job.owner)
    if (owner === undefined) owners.set(job.owner, { last: index, jobs: [job] })
    else {
      owner.last = index
      owner.jobs.push(job)
    }
  })
  return Array.from(owners.values())
    .sort((a, b) => a.last - b.last)
    .map((owner) => owner.jobs)
}

/**
 * Leases up to `max` tasks from `jobs`: every job with a task due now (fewer for an owner with many is fine, as long
 * as every owner with due work has its least recently served jobs here), given least recently served first.
 */
export const fairLease = <T, E, R>(
  jobs: ReadonlyArray<LeaseCandidate>,
  max: number,
  ops: FairLeaseOps<T, E, R>,
): Effect.Effect<FairLeaseResult<T>, E, R> =>
  Effect.gen(function* () {
    const tasks: Array<T> = []
    const served: Array<string> = []
    if (max <= 0 || jobs.length === 0) return { tasks, served }
    // Slots each job may still get: its free `maxConcurrency` slots, 0 once it had fewer due tasks than asked.
    const room = new Map<string, number>()
    /** Leases up to `limit` tasks of `job` within its room and the request; returns how many. */
    const serve = (job: LeaseCandidate, limit: number) =>
      Effect.gen(function* () {
        const free =
          room.get(job.id) ??
          (job.maxConcurrency === undefined
            ? Number.POSITIVE_INFINITY
            : Math.max(0, job.maxConcurrency - (yield* ops.liveLeases(job.id))))
        const want = Math.min(free, limit, max - tasks.length)
        if (want === 0) {
          room.set(job.id, free)
          return 0
        }
        const got = yield* ops.take(job.id, want)
        if (got.length > 0 && !served.includes(job.id)) served.push(job.id)
        tasks.push(...got)
        room.set(job.id, got.length < want ? 0 : free - got.length)
        return got.length
      })
    const owners = byOwner(jobs)
    const ownerShare = Math.ceil(max / owners.length)
    for (const ownerJobs of owners) {
      const jobShare = Math.ceil(ownerShare / ownerJobs.length)
      let left = ownerShare
      for (const job of ownerJobs) {
        if (left === 0 || tasks.length === max) break
        left -= yield* serve(job, Math.min(jobShare, left))
      }
    }
    // Work-conserving: what the shares left goes to the jobs that have more, least recently served owners first.
    for (const job of owners.flat()) {
      if (tasks.length === max) break
      yield* serve(job, Number.POSITIVE_INFINITY)
    }
    return { tasks, served }
  })
