/** Task leases: claiming due tasks fairly across jobs, renewing, giving back, and ending the leases of gone workers. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { fairLease, type JobStoreShape, type Task, type TaskError } from "@webdata/core/jobs"
import { Array as Arr, Effect, Option, Order } from "effect"
import { changes, type Db } from "./Db.js"
import * as News from "./News.js"
import { type CountRow, type Int8, type TaskRow, toCount, toTask } from "./Rows.js"

type Leases = Pick<
  JobStoreShape,
  "leaseTasks" | "pendingWork" | "leaseHolders" | "expireLeases" | "renewLease" | "retryTask" | "deferTask"
>

/** The live (unexpired) leases of the job `jobId` names (a parameter or a column), counted on `tasks_live`. */
const liveLeases = (sql: SqlClient.SqlClient, jobId: Fragment | string, now: number) =>
  sql<CountRow>`SELECT count(*) FROM tasks WHERE job_id = ${jobId} AND status = 'leased' AND lease_until > ${now}`

/**
 * The jobs a lease may serve: running, with a task due now, and below their `maxConcurrency` (checked again under the
 * lease lock). Every owner with such a job is here, with its `max` least recently served ones (an owner never gets
 * more slots than that, and each job at least one); no `LIMIT` on the whole list, which with one tenant's many jobs
 * first in line would hide another tenant's. Owners come one after the other, least recently served first (an
 * owner's last service is its most recently served job's), each one's jobs least recently served first: the order
 * `fairLease` reads.
 */
export const candidates = (sql: SqlClient.SqlClient, now: number, max: number) =>
  sql<{ readonly id: string; readonly owner: string | null; readonly max_concurrency: number | null }>`
    SELECT id, owner, max_concurrency FROM (
      SELECT due.*, max(due.turn) OVER (PARTITION BY due.owner) AS owner_turn,
        row_number() OVER (PARTITION BY due.owner ORDER BY due.turn) AS rank
      FROM (
        SELECT j.id, j.owner, j.max_concurrency, row_number() OVER (ORDER BY j.lease_turn, j.created_at, j.id) AS turn
        FROM jobs j
        WHERE j.status = 'scraping'
          AND EXISTS (
            SELECT 1 FROM tasks t WHERE t.job_id = j.id AND t.status IN ('pending', 'leased') AND t.due_at <= ${now}
          )
          AND (j.max_concurrency IS NULL OR (${liveLeases(sql, sql`j.id`, now)}) < j.max_concurrency)
      ) due
    ) ranked
    WHERE rank <= ${max}
    ORDER BY owner_turn, turn`

export interface Claim {
  readonly jobId: string
  readonly worker: string
  readonly now: number
  readonly leaseUntil: number
  readonly max: number
}

/**
 * Leases up to `max` due tasks of a job to `worker`, earliest due first, then in admission order. Tasks that another
 * transaction holds are skipped, not waited for: concurrent claims never take the same task and never block.
 * `was_due` keeps the order the tasks were claimed in (`RETURNING` has none).
 */
export const claim = (sql: SqlClient.SqlClient, { jobId, worker, now, leaseUntil, max }: Claim) =>
  sql<TaskRow & { readonly was_due: Int8 }>`
    WITH due AS (
      SELECT seq, due_at FROM tasks
      WHERE job_id = ${jobId} AND status IN ('pending', 'leased') AND due_at <= ${now}
      ORDER BY due_at, seq
      LIMIT ${max}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE tasks t SET
      attempts = t.attempts + (t.status = 'leased')::int4,
      status = 'leased', lease_owner = ${worker}, lease_until = ${leaseUntil}, due_at = ${leaseUntil}
    FROM due WHERE t.seq = due.seq
    RETURNING t.*, due.due_at AS was_due`

/**
 * What `leaseTasks` would find at `now`, in one statement (one snapshot), on the lease's partial indexes: the range of
 * `tasks_due` (open tasks only) up to `now` against `jobs_runnable` (running jobs only), and each running job's first
 * pending task after `now`, which the walk of `tasks_due` reaches past at most the job's live leases.
 */
export const pendingWork = (sql: SqlClient.SqlClient, now: number) =>
  sql<{ readonly due: Int8; readonly next_due: Int8 | null }>`
    SELECT
      (
        SELECT count(*) FROM jobs j JOIN tasks t ON t.job_id = j.id
        WHERE j.status = 'scraping' AND t.status IN ('pending', 'leased') AND t.due_at <= ${now}
      ) AS due,
      (
        SELECT min(next.due_at) FROM jobs j
        CROSS JOIN LATERAL (
          SELECT t.due_at FROM tasks t
          WHERE t.job_id = j.id AND t.status = 'pending' AND t.due_at > ${now}
          ORDER BY t.due_at
          LIMIT 1
        ) next
        WHERE j.status = 'scraping'
      ) AS next_due`

const claimOrder = Order.mapInput(
  Order.tuple(Order.number, Order.number),
  (row: TaskRow & { readonly was_due: Int8 }) => [Number(row.was_due), Number(row.seq)] as const,
)

export const make = ({ sql, run, transaction, locks, notify }: Db): Leases => {
  /** Puts a leased task back in the queue (retry or defer), if the caller still holds its lease. */
  const release = (task: Task, notBefore: number, attempt: 0 | 1, error?: TaskError) =>
    run(
      Effect.map(
        changes(sql`
          UPDATE tasks SET status = 'pending', lease_owner = NULL, lease_until = NULL,
            not_before = ${notBefore}, due_at = ${notBefore}, attempts = attempts + ${attempt},
            error_code = coalesce(${error?.code ?? null}, error_code),
            error_message = coalesce(${error?.message ?? null}, error_message)
          WHERE id = ${task.id} AND status = 'leased'
            AND lease_owner = ${task.leaseOwner ?? null} AND lease_until = ${task.leaseUntil ?? null}`),
        (changed) => changed > 0,
      ),
    )

  return {
    leaseTasks: ({ worker, now, leaseMs, max }) =>
      max <= 0
        ? Effect.succeed([])
        : transaction(
            Effect.gen(function* () {
              const jobs = yield* candidates(sql, now, max)
              yield* locks.leases(jobs.filter((job) => job.max_concurrency !== null).map((job) => job.id))
              const leaseUntil = now + leaseMs
              const { tasks, served } = yield* fairLease(
                jobs.map((job) => ({ id: job.id, owner: job.owner, maxConcurrency: job.max_concurrency ?? undefined })),
                max,
                {
                  liveLeases: (jobId) => Effect.map(liveLeases(sql, jobId, now), toCount),
                  take: (jobId, n) =>
                    Effect.map(claim(sql, { jobId, worker, now, leaseUntil, max: n }), (rows) =>
                      Arr.sort(rows, claimOrder).map(toTask),
                    ),
                },
              )
              // Served jobs go to the back of the line, in the order they were served, in one statement. A job whose
              // row is locked right now (a writer's last statement, a purge) keeps its turn rather than making this
              // lease wait (see Locks).
              if (served.length > 0)
                yield* sql`
                  UPDATE jobs j SET lease_turn = turns.turn
                  FROM (
                    SELECT served.id, nextval('lease_turns') AS turn
                    FROM (
                      SELECT u.id FROM unnest(${served}::text[]) WITH ORDINALITY AS u (id, n) ORDER BY u.n
                    ) served
                  ) turns
                  WHERE j.id = turns.id
                    AND j.id IN (SELECT id FROM jobs WHERE id = ANY (${served}::text[]) FOR NO KEY UPDATE SKIP LOCKED)`
              return tasks
            }),
          ),

    pendingWork: (now) =>
      run(
        Effect.map(pendingWork(sql, now), ([row]) => ({
          due: Number(row?.due ?? 0),
          nextDue: Option.map(Option.fromNullable(row?.next_due), Number),
        })),
      ),

    leaseHolders: (prefix) =>
      run(
        Effect.map(
          sql<{ readonly lease_owner: string }>`
            SELECT DISTINCT lease_owner FROM tasks WHERE status = 'leased' AND starts_with(lease_owner, ${prefix})`,
          Arr.map((row) => row.lease_owner),
        ),
      ),

    expireLeases: (holders, now) =>
      holders.length === 0
        ? Effect.succeed(0)
        : transaction(
            Effect.gen(function* () {
              // Locked tasks are skipped: each is being completed, leased again or cancelled, which ends its lease.
              const ended = yield* changes(sql`
                WITH gone AS (
                  SELECT seq FROM tasks WHERE status = 'leased' AND lease_owner = ANY (${holders}::text[])
                  FOR UPDATE SKIP LOCKED
                )
                UPDATE tasks t SET lease_until = ${now}, due_at = ${now} FROM gone WHERE t.seq = gone.seq`)
              if (ended > 0) yield* notify(News.WORK_ADDED)
              return ended
            }),
          ),

    renewLease: (task, leaseUntil) =>
      run(
        Effect.map(
          sql<TaskRow>`
            UPDATE tasks SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
            WHERE id = ${task.id} AND status = 'leased'
              AND lease_owner = ${task.leaseOwner ?? null} AND lease_until = ${task.leaseUntil ?? null}
            RETURNING *`,
          (rows) => Option.map(Arr.head(rows), toTask),
        ),
      ),

    retryTask: (task, { notBefore, error }) => release(task, notBefore, 1, error),
    deferTask: (task, notBefore) => release(task, notBefore, 0),
  }
}
