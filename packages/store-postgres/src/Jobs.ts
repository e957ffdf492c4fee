/** Jobs and their task sets: creation, admission of tasks, completion, cancellation, reads. */
import type { SqlError } from "@effect/sql/SqlError"
import {
  admissible,
  deliveriesToQueue,
  encodeJson,
  encodeOptionalJson,
  encodeTaskDeliveries,
  type JobStoreShape,
  type NewTask,
  newId,
  StoreError,
  type TaskStatus,
} from "@webdata/core/jobs"
import { Array as Arr, Effect, Option } from "effect"
import type { Db } from "./Db.js"
import * as News from "./News.js"
import { insertDelivery } from "./Outbox.js"
import { decodeFirst, type JobRow, newJobRow, type TaskRow, toJob, toTask } from "./Rows.js"

type Jobs = Pick<
  JobStoreShape,
  "createJob" | "getJob" | "listJobs" | "cancelJob" | "failJob" | "addTasks" | "completeTask" | "getTask"
>

export const make = ({ sql, run, transaction, lockJob, notification, notify }: Db): Jobs => {
  /**
   * Inserts `tasks` (already admitted) in their order, which `seq` keeps, and tells other processes there is work:
   * one statement (a data-modifying CTE runs to completion whatever reads it).
   */
  const insertTasks = (jobId: string, tasks: ReadonlyArray<NewTask>): Effect.Effect<void, SqlError> =>
    tasks.length === 0
      ? Effect.void
      : Effect.asVoid(sql`
          WITH inserted AS (
            INSERT INTO tasks (id, job_id, url, dedup_key, depth, host, status, not_before, due_at)
            SELECT t.id, ${jobId}, t.url, t.dedup_key, t.depth, t.host, 'pending', t.not_before, t.not_before
            FROM unnest(
              ${tasks.map(() => newId())}::text[], ${tasks.map((task) => task.url)}::text[],
              ${tasks.map((task) => task.key)}::text[], ${tasks.map((task) => task.depth)}::int4[],
              ${tasks.map((task) => task.host)}::text[], ${tasks.map((task) => task.notBefore ?? 0)}::int8[]
            ) WITH ORDINALITY AS t (id, url, dedup_key, depth, host, not_before, n)
            ORDER BY t.n
            RETURNING 1
          )
          SELECT ${notification(News.WORK_ADDED)} FROM inserted LIMIT 1`)

  /**
   * Admits what the job takes of `proposed`, given `room` left under its limit; returns how many. Runs under the
   * job's writer lock, so nobody else adds to the job meanwhile.
   */
  const admit = (jobId: string, room: number, proposed: ReadonlyArray<NewTask>) =>
    Effect.gen(function* () {
      if (room <= 0 || proposed.length === 0) return 0
      const keys = Arr.dedupe(proposed.map((task) => task.key))
      // One probe of `tasks_job_key` per key, whatever the statistics say: LIMIT keeps the planner from turning
      // the lookup into a join that reads every task of a big job.
      const seen = yield* sql<{ readonly dedup_key: string }>`
        SELECT t.dedup_key FROM unnest(${keys}::text[]) AS k (key)
        CROSS JOIN LATERAL (
          SELECT dedup_key FROM tasks WHERE job_id = ${jobId} AND md5(dedup_key)::uuid = md5(k.key)::uuid LIMIT 1
        ) AS t`
      const seenKeys = new Set(seen.map((row) => row.dedup_key))
      const admitted = admissible(proposed, (key) => seenKeys.has(key), room)
      yield* insertTasks(jobId, admitted)
      return admitted.length
    })

  const stopJob = (id: string, now: number, status: "cancelled" | "failed", error?: string) =>
    transaction(
      Effect.gen(function* () {
        const row = yield* lockJob(id)
        if (Option.isNone(row)) return Option.none()
        if (row.value.status !== "scraping") return Option.some(yield* toJob(row.value))
        yield* sql`
          UPDATE tasks SET status = 'cancelled', lease_owner = NULL, lease_until = NULL
          WHERE job_id = ${id} AND status IN ('pending', 'leased')`
        const [stopped] = yield* sql<JobRow>`
          UPDATE jobs SET status = ${status}, updated_at = ${now}, completed_at = ${now}, error = ${error ?? null}
          WHERE id = ${id} RETURNING *`
        // Workers running the job's tasks in other processes stop them now rather than at their next poll.
        yield* notify(News.jobCancelled(id))
        return Option.some(yield* toJob(stopped!))
      }),
    )

  return {
    createJob: (input, seeds) =>
      Effect.gen(function* () {
        const options = yield* encodeJson(input.options)
        const webhook = yield* encodeOptionalJson(input.webhook)
        const admitted = admissible(seeds, () => false, input.limit)
        const id = input.id ?? newId()
        return yield* transaction(
          Effect.gen(function* () {
            // A caller's id that exists inserts nothing (after waiting for a concurrent insert of it to commit).
            const [row] = yield* sql<JobRow>`INSERT INTO jobs ${sql.insert(
              newJobRow(input, id, options, webhook, admitted.length),
            )} ON CONFLICT (id) DO NOTHING RETURNING *`
            if (row === undefined)
              return yield* new StoreError({ reason: "InvalidData", message: `Job ${id} already exists` })
            yield* insertTasks(id, admitted)
            return yield* toJob(row)
          }),
        )
      }),

    getJob: (id) => run(Effect.flatMap(sql<JobRow>`SELECT * FROM jobs WHERE id = ${id}`, decodeFirst(toJob))),

    listJobs: (filter) => {
      const clauses = [
        ...(filter.owner === undefined
          ? []
          : [filter.owner === null ? sql`owner IS NULL` : sql`owner = ${filter.owner}`]),
        ...(filter.kind === undefined ? [] : [sql`kind = ${filter.kind}`]),
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
      ]
      return run(
        Effect.flatMap(
          sql<JobRow>`SELECT * FROM jobs WHERE ${sql.and(clauses)} ORDER BY created_at, id`,
          Effect.forEach(toJob),
        ),
      )
    },

    cancelJob: (id, now) => stopJob(id, now, "cancelled"),
    failJob: (id, error, now) => stopJob(id, now, "failed", error),

    addTasks: (jobId, proposed, now) =>
      transaction(
        Effect.gen(function* () {
          const row = yield* lockJob(jobId)
          if (Option.isNone(row) || row.value.status === "cancelled" || row.value.status === "failed") return 0
          const admitted = yield* admit(jobId, Number(row.value.task_limit) - Number(row.value.total), proposed)
          if (admitted === 0) return 0
          yield* sql`
            UPDATE jobs SET total = total + ${admitted}, status = 'scraping', completed_at = NULL, updated_at = ${now}
            WHERE id = ${jobId}`
          return admitted
        }),
      ),

    completeTask: (task, outcome) =>
      Effect.gen(function* () {
        const document = yield* encodeOptionalJson(outcome.document)
        const deliveries = yield* encodeTaskDeliveries(outcome.deliveries)
        return yield* transaction(
          Effect.gen(function* () {
            const row = yield* lockJob(task.jobId)
            if (Option.isNone(row)) return { recorded: false, finished: false, job: Option.none() }
            const job = row.value
            const status: TaskStatus = document === undefined && outcome.error !== undefined ? "failed" : "done"
            // Ends the lease only if it is still the caller's: same holder, same end, nobody leased it since.
            const [held] = yield* sql<Pick<TaskRow, "url">>`
              UPDATE tasks SET status = ${status}, lease_owner = NULL, lease_until = NULL
              WHERE id = ${task.id} AND job_id = ${task.jobId} AND status = 'leased'
                AND lease_owner = ${task.leaseOwner ?? null} AND lease_until = ${task.leaseUntil ?? null}
              RETURNING url`
            if (held === undefined) return { recorded: false, finished: false, job: Option.some(yield* toJob(job)) }
            const { now } = outcome
            if (document !== undefined) {
              // `completed` counts the job's documents so far: under the writer lock it is the next seq.
              yield* sql`INSERT INTO documents ${sql.insert({
                job_id: task.jobId,
                seq: Number(job.completed),
                url: held.url,
                document,
                created_at: now,
              })}`
            } else if (outcome.error !== undefined) {
              yield* sql`INSERT INTO job_errors ${sql.insert({
                id: task.id,
                job_id: task.jobId,
                url: held.url,
                code: outcome.error.code,
                message: outcome.error.message,
                at: now,
              })}`
            }
            const admitted = yield* admit(task.jobId, Number(job.task_limit) - Number(job.total), outcome.discovered)
            const blocked = Arr.dedupe(outcome.robotsBlocked)
            if (blocked.length > 0) {
              yield* sql`
                INSERT INTO robots_blocked (job_id, url)
                SELECT ${task.jobId}, u.url FROM unnest(${blocked}::text[]) WITH ORDINALITY AS u (url, n) ORDER BY u.n
                ON CONFLICT (job_id, (md5(url)::uuid)) DO NOTHING`
            }
            // The task was leased, so the job is `scraping`; it is finished when no open task is left. Read after
            // the writer lock, this sees every earlier completion: exactly one call finishes the job.
            const [updated] = yield* sql<JobRow>`
              UPDATE jobs SET
                total = total + ${admitted},
                completed = completed + ${document !== undefined ? 1 : 0},
                failed = failed + ${status === "failed" ? 1 : 0},
                updated_at = ${now},
                status = CASE WHEN open.remaining THEN status ELSE 'completed' END,
                completed_at = CASE WHEN open.remaining THEN completed_at ELSE ${now} END
              FROM (
                SELECT EXISTS (
                  SELECT 1 FROM tasks WHERE job_id = ${task.jobId} AND status IN ('pending', 'leased')
                ) AS remaining
              ) AS open
              WHERE id = ${task.jobId} RETURNING jobs.*`
            const after = yield* toJob(updated!)
            const finished = after.status === "completed"
            // Under the writer lock, so the job's deliveries take their seq in the order of its commits.
            for (const delivery of deliveriesToQueue(deliveries, finished)) yield* insertDelivery(sql, delivery)
            return { recorded: true, finished, job: Option.some(after) }
          }),
        )
      }),

    getTask: (id) =>
      run(Effect.map(sql<TaskRow>`SELECT * FROM tasks WHERE id = ${id}`, (rows) => Option.map(Arr.head(rows), toTask))),
  }
}
