/**
 * The first schema. Times are epoch milliseconds, JSON columns are TEXT. `tasks.due_at` is when an open task is
 * next due: its `not_before` while pending, the end of its lease while leased, so one partial index serves the
 * lease query for both fresh tasks and tasks whose lease ran out.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      id TEXT PRIMARY KEY NOT NULL,
      kind TEXT NOT NULL,
      owner TEXT,
      status TEXT NOT NULL,
      url TEXT,
      options TEXT NOT NULL,
      task_limit INTEGER NOT NULL,
      max_concurrency INTEGER,
      delay_ms INTEGER,
      webhook TEXT,
      zero_data_retention INTEGER NOT NULL,
      total INTEGER NOT NULL,
      completed INTEGER NOT NULL,
      failed INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      completed_at INTEGER,
      expires_at INTEGER NOT NULL,
      error TEXT,
      lease_turn INTEGER NOT NULL DEFAULT 0
    )`
  yield* sql`CREATE INDEX jobs_status_turn ON jobs (status, lease_turn)`
  yield* sql`CREATE INDEX jobs_owner ON jobs (owner, created_at)`
  yield* sql`CREATE INDEX jobs_expires ON jobs (expires_at)`

  yield* sql`
    CREATE TABLE tasks (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      job_id TEXT NOT NULL,
      url TEXT NOT NULL,
      dedup_key TEXT NOT NULL,
      depth INTEGER NOT NULL,
      host TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      not_before INTEGER NOT NULL,
      due_at INTEGER NOT NULL,
      lease_owner TEXT,
      lease_until INTEGER,
      error_code TEXT,
      error_message TEXT,
      UNIQUE (job_id, dedup_key)
    )`
  yield* sql`CREATE INDEX tasks_due ON tasks (job_id, due_at, seq) WHERE status IN ('pending', 'leased')`
  yield* sql`CREATE INDEX tasks_live ON tasks (job_id, lease_until) WHERE status = 'leased'`

  yield* sql`
    CREATE TABLE documents (
      job_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      url TEXT NOT NULL,
      document TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (job_id, seq)
    )`

  yield* sql`
    CREATE TABLE job_errors (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      job_id TEXT NOT NULL,
      url TEXT NOT NULL,
      code TEXT NOT NULL,
      message TEXT NOT NULL,
      at INTEGER NOT NULL
    )`
  yield* sql`CREATE INDEX job_errors_job ON job_errors (job_id, seq)`

  yield* sql`
    CREATE TABLE robots_blocked (
      seq INTEGER PRIMARY KEY,
      job_id TEXT NOT NULL,
      url TEXT NOT NULL,
      UNIQUE (job_id, url)
    )`

  yield* sql`
    CREATE TABLE scrapes (
      id TEXT PRIMARY KEY NOT NULL,
      owner TEXT,
      document TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    )`
  yield* sql`CREATE INDEX scrapes_expires ON scrapes (expires_at)`

  yield* sql`
    CREATE TABLE scrape_cache (
      key TEXT PRIMARY KEY NOT NULL,
      url TEXT NOT NULL,
      status_code INTEGER NOT NULL,
      content_type TEXT,
      body TEXT NOT NULL,
      cached_at INTEGER NOT NULL
    )`
  yield* sql`CREATE INDEX scrape_cache_cached_at ON scrape_cache (cached_at)`
})
