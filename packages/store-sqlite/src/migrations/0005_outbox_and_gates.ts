/**
 * What several worker processes share besides jobs: the webhook outbox (deliveries survive a restart and are sent by
 * one worker, a job's in order) and the politeness gates (when a host or a job may next be fetched).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE deliveries (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      job_id TEXT NOT NULL,
      payload TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      not_before INTEGER NOT NULL,
      lease_owner TEXT,
      lease_until INTEGER,
      created_at INTEGER NOT NULL
    )`
  // A job's head is its lowest seq: this index finds it, and the heads of every job, without a scan of the rest.
  yield* sql`CREATE INDEX deliveries_job ON deliveries (job_id, seq)`
  yield* sql`
    CREATE TABLE gates (
      key TEXT PRIMARY KEY NOT NULL,
      opens_at INTEGER NOT NULL
    )`
})
