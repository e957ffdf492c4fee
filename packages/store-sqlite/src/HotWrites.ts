/**
 * The writes every crawled or scraped page makes, as synchronous statements for `Connection.exclusive` (each all or
 * nothing, maybe sharing its commit with others): admitting discovered tasks, leasing due tasks, recording how a task ended, and the write-behind
 * queue's batches (kept scrapes, cache entries, search index). They are the store's hottest path, so they skip
 * `@effect/sql` (see `Connection.ts`); their rules are the `JobStore` port's, shared with the other stores through
 * core's `admissible`, `fairLease` and `deliveriesToQueue`.
 */
import {
  admissible,
  deliveriesToQueue,
  type EncodedDelivery,
  type EncodedTaskDeliveries,
  fairLease,
  type IndexedPage,
  type LeaseRequest,
  type NewTask,
  newId,
  type Task,
  type TaskOutcome,
} from "@webdata/core/jobs"
import { indexRowOf } from "@webdata/core/sql-rows"
import { Effect } from "effect"
import type { Statements } from "./Connection.js"
import type { JobRow, TaskRow } from "./Rows.js"

export const insertTasks = (db: Statements, jobId: string, tasks: ReadonlyArray<NewTask>): void => {
  const insert = db.prepare(`
    INSERT INTO tasks (id, job_id, url, dedup_key, depth, host, status, attempts, not_before, due_at)
    VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`)
  for (const task of tasks) {
    const notBefore = task.notBefore ?? 0
    insert.run(newId(), jobId, task.url, task.key, task.depth, task.host, notBefore, notBefore)
  }
}

/** Admits what the job takes of `proposed` given `room` left under its limit; returns how many. */
export const admit = (db: Statements, jobId: string, room: number, proposed: ReadonlyArray<NewTask>): number => {
  if (room <= 0 || proposed.length === 0) return 0
  // One statement for any number of keys: the list goes in as a JSON array.
  const rows = db
    .prepare(`SELECT dedup_key FROM tasks WHERE job_id = ? AND dedup_key IN (SELECT value FROM json_each(?))`)
    .all(jobId, JSON.stringify(Array.from(new Set(proposed.map((task) => task.key))))) as ReadonlyArray<{
    readonly dedup_key: string
  }>
  const seen = new Set(rows.map((row) => row.dedup_key))
  const admitted = admissible(proposed, (key) => seen.has(key), room)
  insertTasks(db, jobId, admitted)
  return admitted.length
}

export const insertDelivery = (db: Statements, { jobId, json, createdAt }: EncodedDelivery): void => {
  db.prepare(`
    INSERT INTO deliveries (id, job_id, payload, attempts, not_before, created_at) VALUES (?, ?, ?, 0, 0, ?)`).run(
    newId(),
    jobId,
    json,
    createdAt,
  )
}

export const jobRow = (db: Statements, id: string): JobRow | undefined =>
  db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | undefined

/** `leaseTasks`: the jobs with a task due now (on `tasks_due`), shared among their owners by `fairLease`. */
export const leaseTasks = (db: Statements, { worker, now, leaseMs, max }: LeaseRequest): ReadonlyArray<TaskRow> => {
  const jobs = db
    .prepare(`
      SELECT id, owner, max_concurrency FROM jobs j
      WHERE status = 'scraping' AND EXISTS (
        SELECT 1 FROM tasks WHERE job_id = j.id AND status IN ('pending', 'leased') AND due_at <= ?
      )
      ORDER BY lease_turn, created_at, id`)
    .all(now) as ReadonlyArray<{
    readonly id: string
    readonly owner: string | null
    readonly max_concurrency: number | null
  }>
  const leaseUntil = now + leaseMs
  const liveLeases = db.prepare(`
    SELECT count(*) AS n FROM tasks WHERE job_id = ? AND status = 'leased' AND lease_until > ?`)
  const due = db.prepare(`
    SELECT * FROM tasks WHERE job_id = ? AND status IN ('pending', 'leased') AND due_at <= ?
    ORDER BY due_at, seq LIMIT ?`)
  // A lease that ran out was an attempt that never reported back.
  const lease = db.prepare(`
    UPDATE tasks SET attempts = attempts + (status = 'leased'), status = 'leased',
      lease_owner = ?, lease_until = ?, due_at = ?
    WHERE seq = ?`)
  // The rule is an Effect shared by every store; here each of its steps is a synchronous statement.
  const { tasks, served } = Effect.runSync(
    fairLease(
      jobs.map((job) => ({ id: job.id, owner: job.owner, maxConcurrency: job.max_concurrency ?? undefined })),
      max,
      {
        liveLeases: (jobId) => Effect.sync(() => (liveLeases.get(jobId, now) as { readonly n: number }).n),
        take: (jobId, n) =>
          Effect.sync(() =>
            (due.all(jobId, now, n) as ReadonlyArray<TaskRow>).map((row): TaskRow => {
              lease.run(worker, leaseUntil, leaseUntil, row.seq)
              return {
                ...row,
                status: "leased",
                attempts: row.attempts + (row.status === "leased" ? 1 : 0),
                lease_owner: worker,
                lease_until: leaseUntil,
              }
            }),
          ),
      },
    ),
  )
  const turn = db.prepare(`
    UPDATE jobs SET lease_turn = (SELECT max(lease_turn) FROM jobs WHERE status = 'scraping') + 1 WHERE id = ?`)
  for (const jobId of served) turn.run(jobId)
  return tasks
}

export interface Completion {
  readonly recorded: boolean
  readonly finished: boolean
  /** The job after the write (none for a job that is gone). */
  readonly job: JobRow | undefined
}

/**
 * `completeTask`, with the document and deliveries already encoded (a value that is not JSON fails before the
 * transaction, writing nothing).
 */
export const completeTask = (
  db: Statements,
  task: Task,
  outcome: TaskOutcome,
  document: string | undefined,
  deliveries: EncodedTaskDeliveries,
): Completion => {
  const row = db
    .prepare(`
      SELECT t.seq, t.id, t.job_id, t.url, j.completed AS job_completed, j.task_limit, j.total AS job_total
      FROM tasks t JOIN jobs j ON j.id = t.job_id
      WHERE t.id = ? AND t.status = 'leased' AND t.lease_owner = ? AND t.lease_until = ?`)
    .get(task.id, task.leaseOwner ?? null, task.leaseUntil ?? null) as
    | {
        readonly seq: number
        readonly id: string
        readonly job_id: string
        readonly url: string
        readonly job_completed: number
        readonly task_limit: number
        readonly job_total: number
      }
    | undefined
  if (row === undefined) return { recorded: false, finished: false, job: jobRow(db, task.jobId) }
  const { now } = outcome
  let status: "done" | "failed" = "done"
  if (document !== undefined) {
    db.prepare("INSERT INTO documents (job_id, seq, url, document, created_at) VALUES (?, ?, ?, ?, ?)").run(
      row.job_id,
      row.job_completed,
      row.url,
      document,
      now,
    )
  } else if (outcome.error !== undefined) {
    status = "failed"
    db.prepare("INSERT INTO job_errors (id, job_id, url, code, message, at) VALUES (?, ?, ?, ?, ?, ?)").run(
      row.id,
      row.job_id,
      row.url,
      outcome.error.code,
      outcome.error.message,
      now,
    )
  }
  db.prepare("UPDATE tasks SET status = ?, lease_owner = NULL, lease_until = NULL WHERE seq = ?").run(status, row.seq)
  const admitted = admit(db, row.job_id, row.task_limit - row.job_total, outcome.discovered)
  const blocked = db.prepare("INSERT OR IGNORE INTO robots_blocked (job_id, url) VALUES (?, ?)")
  for (const url of new Set(outcome.robotsBlocked)) blocked.run(row.job_id, url)
  // The task was leased, so the job is `scraping`: it is finished when no open task is left.
  const open = "EXISTS (SELECT 1 FROM tasks WHERE job_id = ? AND status IN ('pending', 'leased'))"
  const job = db
    .prepare(`
      UPDATE jobs SET
        total = total + ?,
        completed = completed + ?,
        failed = failed + ?,
        updated_at = ?,
        status = CASE WHEN ${open} THEN status ELSE 'completed' END,
        completed_at = CASE WHEN ${open} THEN completed_at ELSE ? END
      WHERE id = ? RETURNING *`)
    .get(
      admitted,
      document !== undefined ? 1 : 0,
      status === "failed" ? 1 : 0,
      now,
      row.job_id,
      row.job_id,
      now,
      row.job_id,
    ) as JobRow
  const finished = job.status === "completed"
  for (const delivery of deliveriesToQueue(deliveries, finished)) insertDelivery(db, delivery)
  return { recorded: true, finished, job }
}

/** Inserts `row` (column → value) into `table`; `OR REPLACE` replaces the row of the same key. */
export const insertRow = (
  db: Statements,
  table: string,
  row: Readonly<Record<string, unknown>>,
  conflict: "" | "OR REPLACE" = "",
): void => {
  const columns = Object.keys(row)
  const values = columns.map((column) => `@${column}`)
  db.prepare(`INSERT ${conflict} INTO ${table} (${columns.join(", ")}) VALUES (${values.join(", ")})`).run(row)
}

/** A page into the search index, replacing the owner's page of the same URL. */
export const putIndexed = (db: Statements, page: IndexedPage): void => {
  const row = indexRowOf(page)
  // The same text again (a page crawled again unchanged): only its date moves, the FTS index is left alone.
  const touched = db
    .prepare(`
      UPDATE search_index SET scraped_at = @scraped_at
      WHERE owner = @owner AND url = @url AND content = @content AND title IS @title
        AND description IS @description AND url_words = @url_words`)
    .run(row)
  if (touched.changes > 0) return
  // DELETE then INSERT, not INSERT OR REPLACE: REPLACE's implicit delete fires no DELETE trigger (unless
  // recursive_triggers is on), which would leave the old words in the FTS index.
  db.prepare("DELETE FROM search_index WHERE owner = ? AND url = ?").run(row.owner, row.url)
  insertRow(db, "search_index", row)
}

/**
 * Puts up to `max` of the pages written since the last search into the FTS index (see migration 0009); returns how
 * many. Fewer than `max`: the index is up to date.
 */
export const indexBacklog = (db: Statements, max: number): number => {
  const { through } = db.prepare("SELECT indexed_through AS through FROM search_index_fts_state").get() as {
    readonly through: number
  }
  const last = db
    .prepare(`
      SELECT count(*) AS n, max(seq) AS last FROM (
        SELECT seq FROM search_index WHERE seq > ? ORDER BY seq LIMIT ?
      )`)
    .get(through, max) as { readonly n: number; readonly last: number | null }
  if (last.n === 0 || last.last === null) return 0
  db.prepare(`
    INSERT INTO search_index_fts (rowid, title, description, content, url_words)
    SELECT seq, title, description, content, url_words FROM search_index WHERE seq > ? AND seq <= ?`).run(
    through,
    last.last,
  )
  db.prepare("UPDATE search_index_fts_state SET indexed_through = ?").run(last.last)
  return last.n
}
