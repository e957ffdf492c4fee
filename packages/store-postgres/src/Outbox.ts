/**
 * The webhook outbox: deliveries survive the process that queued them, and one worker sends each. Only a job's head
 * (its lowest seq) is ever leased, so a job's deliveries arrive in the order they were queued.
 */
import type { SqlClient } from "@effect/sql"
import { type EncodedDelivery, encodeDelivery, type JobStoreShape, type LeaseRequest, newId } from "@webdata/core/jobs"
import { Array as Arr, Effect, Order } from "effect"
import { changes, type Db } from "./Db.js"
import { type DeliveryRow, type Int8, toDelivery } from "./Rows.js"

type Outbox = Pick<JobStoreShape, "enqueueDelivery" | "leaseDeliveries" | "finishDelivery" | "retryDelivery">

/** Queues a delivery: alone (`enqueueDelivery`) or in the transaction of the task it reports (`completeTask`). */
export const insertDelivery = (sql: SqlClient.SqlClient, { jobId, json, createdAt }: EncodedDelivery) =>
  sql`INSERT INTO deliveries ${sql.insert({ id: newId(), job_id: jobId, payload: json, created_at: createdAt })}`

/**
 * Leases the due heads, oldest first. `heads` is a skip scan of `deliveries_job`: one index probe per job that has
 * deliveries, however many wait behind each head (a dead receiver piles them up). A head is due when it was never
 * leased and its `not_before` has come, or when its lease ran out (its holder died: that counts an attempt). Heads
 * another transaction holds are skipped, so concurrent leases never take the same delivery and never block.
 */
export const leaseHeads = (sql: SqlClient.SqlClient, { worker, now, leaseMs, max }: LeaseRequest) =>
  sql<DeliveryRow & { readonly seq: Int8 }>`
    WITH RECURSIVE heads AS (
      (SELECT job_id, seq FROM deliveries ORDER BY job_id, seq LIMIT 1)
      UNION ALL
      SELECT next.job_id, next.seq FROM heads h CROSS JOIN LATERAL (
        SELECT d.job_id, d.seq FROM deliveries d WHERE d.job_id > h.job_id ORDER BY d.job_id, d.seq LIMIT 1
      ) AS next
    ), due AS (
      SELECT d.seq FROM deliveries d
      WHERE d.seq = ANY (ARRAY(SELECT seq FROM heads))
        AND ((d.lease_until IS NULL AND d.not_before <= ${now}) OR d.lease_until <= ${now})
      ORDER BY d.seq
      LIMIT ${max}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE deliveries d SET
      attempts = d.attempts + (d.lease_until IS NOT NULL)::int4,
      lease_owner = ${worker}, lease_until = ${now + leaseMs}
    FROM due WHERE d.seq = due.seq
    RETURNING d.seq, d.id, d.job_id, d.payload, d.attempts, d.lease_owner, d.lease_until`

const bySeq = Order.mapInput(Order.number, (row: { readonly seq: Int8 }) => Number(row.seq))

export const make = ({ sql, run }: Db): Outbox => ({
  // Always accepted: the outbox is bounded by the jobs' expiry (purgeExpired drops a purged job's deliveries).
  enqueueDelivery: (delivery) =>
    Effect.flatMap(encodeDelivery(delivery), (encoded) => run(Effect.as(insertDelivery(sql, encoded), true))),

  leaseDeliveries: (request) =>
    request.max <= 0
      ? Effect.succeed([])
      : run(Effect.flatMap(leaseHeads(sql, request), (rows) => Effect.forEach(Arr.sort(rows, bySeq), toDelivery))),

  finishDelivery: (delivery) =>
    run(
      Effect.map(
        changes(sql`
          DELETE FROM deliveries
          WHERE id = ${delivery.id} AND lease_owner = ${delivery.leaseOwner} AND lease_until = ${delivery.leaseUntil}`),
        (deleted) => deleted > 0,
      ),
    ),

  retryDelivery: (delivery, notBefore) =>
    run(
      Effect.map(
        changes(sql`
          UPDATE deliveries SET attempts = attempts + 1, not_before = ${notBefore}, lease_owner = NULL, lease_until = NULL
          WHERE id = ${delivery.id} AND lease_owner = ${delivery.leaseOwner} AND lease_until = ${delivery.leaseUntil}`),
        (changed) => changed > 0,
      ),
    ),
})
