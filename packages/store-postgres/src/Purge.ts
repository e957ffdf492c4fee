/** `purgeExpired`: what expired, and what only shortened the store's answers, goes. */
import type { JobStoreShape } from "@webdata/core/jobs"
import { Effect } from "effect"
import * as Counters from "./Counters.js"
import { changes, type Db } from "./Db.js"

export const make = ({ sql, transaction, locks }: Db): Pick<JobStoreShape, "purgeExpired"> => ({
  purgeExpired: (now, options = {}) =>
    transaction(
      Effect.gen(function* () {
        // One purge at a time (workers each run one every minute); see Locks for the order of the rest.
        yield* locks.purge
        // The job rows first: deleting one waits for the writers that hold it and keeps later ones out, so nothing
        // adds to a job's tasks, documents or errors once its rows below are deleted.
        const expired = yield* sql<{ readonly id: string }>`DELETE FROM jobs WHERE expires_at <= ${now} RETURNING id`
        const ids = expired.map((job) => job.id)
        const ofJobs = (table: "tasks" | "documents" | "job_errors" | "robots_blocked" | "deliveries") =>
          ids.length === 0
            ? Effect.succeed(0)
            : changes(sql`DELETE FROM ${sql(table)} WHERE job_id = ANY (${ids}::text[])`)
        const tasks = yield* ofJobs("tasks")
        const documents = yield* ofJobs("documents")
        const errors = yield* ofJobs("job_errors")
        yield* ofJobs("robots_blocked")
        const deliveries = yield* ofJobs("deliveries")
        // Open gates say nothing any more; a gate a pass holds right now is skipped (it is not stale).
        yield* sql`
          DELETE FROM gates WHERE key IN (SELECT key FROM gates WHERE opens_at <= ${now} FOR UPDATE SKIP LOCKED)`
        const scrapes = yield* changes(sql`DELETE FROM scrapes WHERE expires_at <= ${now}`)
        // Records being written or deleted right now are skipped, like held gates: the next purge takes them.
        const records = yield* changes(sql`
          DELETE FROM records WHERE (kind, id) IN (
            SELECT kind, id FROM records WHERE expires_at <= ${now} FOR UPDATE SKIP LOCKED
          )`)
        const counters = yield* changes(Counters.purged(sql, now))
        const cache =
          options.cacheBefore === undefined
            ? 0
            : yield* changes(sql`DELETE FROM scrape_cache WHERE cached_at < ${options.cacheBefore}`)
        const indexed =
          options.indexBefore === undefined
            ? 0
            : yield* changes(sql`DELETE FROM search_index WHERE scraped_at < ${options.indexBefore}`)
        return { jobs: ids.length, tasks, documents, errors, scrapes, cache, indexed, deliveries, records, counters }
      }),
    ),
})
