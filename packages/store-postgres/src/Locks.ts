/**
 * The store's locks. Every operation is one READ COMMITTED transaction; correctness under many processes comes from
 * row locks and transaction-scoped advisory locks taken in a fixed order, so that no wait cycle (deadlock) can form
 * and no transaction ever needs a serialization retry:
 *
 * - Job writers (`addTasks`, `completeTask`, `cancelJob`, `failJob`, `deleteDocuments`) first take the job's
 *   advisory lock, so one writer at a time changes a job: the next document seq, `total` against `limit`, and
 *   "no open task is left, the job is finished" are each read after the previous writer committed, which makes
 *   `finished` true exactly once. Then they read the job row `FOR KEY SHARE` (pinning it against a purge's DELETE,
 *   while leasers may still update its `lease_turn`), and they write the job row last, waiting for nothing after (what
 *   `completeTask` writes then, its webhook deliveries, are inserts of new rows).
 * - Leasers never wait for a row: tasks are claimed `FOR UPDATE SKIP LOCKED`, and the lease turn of a served job is
 *   advanced only if its row is not locked at that instant (by a writer's last statement or a purge). For jobs with
 *   a `maxConcurrency`, they first take the jobs' lease locks, all of them before any row, in one global order, so
 *   that counting the live leases and claiming more happen one leaser at a time per job.
 * - `expireLeases` skips locked tasks: each is being completed, leased again, cancelled or deleted, ending its lease.
 * - Purges run one at a time (the purge lock). A purge deletes the expired job rows first, which waits for the
 *   writers that hold them `FOR KEY SHARE` and keeps new writers out; then the jobs' tasks and other rows, which no
 *   writer can touch any more; stale gates and expired records with SKIP LOCKED; expired counters by their index,
 *   waiting for an add in flight (a single-statement transaction that waits for nothing else).
 * - `passGates` inserts and locks its gate rows in key order. `deleteRecord` locks a record and its children in key
 *   order; the purge skips records locked at that instant. `cancelJob` and `failJob` change the open tasks of a job
 *   they are the only writer of; every other operation changes a single row, and waits for nothing else.
 *
 * Advisory locks are keyed by two 32-bit integers: the namespace (the schema and the lock's kind, so that deployments
 * sharing a database never contend) and the job. A hash collision only makes two jobs wait for each other.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Array as Arr, Effect } from "effect"

const utf8 = new TextEncoder()

/** FNV-1a, as a signed 32-bit integer (an advisory lock key half): stable, and computed without a round trip. */
export const hash32 = (text: string): number => {
  let hash = 0x811c9dc5
  for (const byte of utf8.encode(text)) hash = Math.imul(hash ^ byte, 0x01000193)
  return hash | 0
}

export interface Locks {
  /** Makes the transaction the job's only writer until it ends. */
  readonly job: (jobId: string) => Effect.Effect<void, SqlError>
  /** Takes the lease locks of `jobIds` (a leaser's jobs with a `maxConcurrency`) until the transaction ends. */
  readonly leases: (jobIds: ReadonlyArray<string>) => Effect.Effect<void, SqlError>
  /** Makes the transaction the only purge until it ends. */
  readonly purge: Effect.Effect<void, SqlError>
}

export const make = (sql: SqlClient.SqlClient, schema: string): Locks => {
  const jobs = hash32(`${schema} job`)
  const leases = hash32(`${schema} lease`)
  return {
    job: (jobId) => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${jobs}, ${hash32(jobId)})`),
    leases: (jobIds) => {
      // One global order (by key) for every leaser, so two leasers never wait for each other in a cycle.
      const keys = Arr.dedupe(jobIds.map(hash32)).sort((a, b) => a - b)
      return keys.length === 0
        ? Effect.void
        : Effect.asVoid(sql`
            SELECT pg_advisory_xact_lock(${leases}, k.key)
            FROM unnest(${keys}::int4[]) WITH ORDINALITY AS k (key, n) ORDER BY k.n`)
    },
    purge: Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${hash32(`${schema} purge`)}, 0)`),
  }
}

/** Makes the transaction the only one migrating `schema` until it ends. */
export const migration = (sql: SqlClient.SqlClient, schema: string): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${hash32(`${schema} migrate`)}, 0)`)
