/**
 * The webhook outbox of the memory store: one queue per job, in the order the job's deliveries were queued; only a
 * queue's head is ever leased, so a job's events arrive in order. Bounded by a count, since nothing else (no disk)
 * stops a dead receiver from filling the process.
 */
import type { Delivery, LeaseRequest } from "./JobStore.js"
import { newId } from "./JobStore.js"
import type { EncodedDelivery } from "./Json.js"

interface Row {
  readonly id: string
  readonly jobId: string
  readonly json: string
  attempts: number
  notBefore: number
  leaseOwner: string | undefined
  leaseUntil: number | undefined
}

const snapshot = (row: Row): Delivery => ({
  id: row.id,
  jobId: row.jobId,
  payload: JSON.parse(row.json) as unknown,
  attempts: row.attempts,
  leaseOwner: row.leaseOwner ?? "",
  leaseUntil: row.leaseUntil ?? 0,
})

export class MemoryOutbox {
  /** Queues by job, in the order their first delivery came (a queue that empties is dropped). */
  readonly #queues = new Map<string, Array<Row>>()
  #size = 0

  constructor(readonly capacity: number) {}

  /** Queues a delivery; false when the outbox is full. */
  add({ jobId, json }: EncodedDelivery): boolean {
    if (this.#size >= this.capacity) return false
    const row: Row = {
      id: newId(),
      jobId,
      json,
      attempts: 0,
      notBefore: 0,
      leaseOwner: undefined,
      leaseUntil: undefined,
    }
    const queue = this.#queues.get(jobId)
    if (queue === undefined) this.#queues.set(jobId, [row])
    else queue.push(row)
    this.#size++
    return true
  }

  lease({ worker, now, leaseMs, max }: LeaseRequest): ReadonlyArray<Delivery> {
    const leased: Array<Delivery> = []
    for (const queue of this.#queues.values()) {
      if (leased.length >= max) break
      const head = queue[0]!
      if (head.leaseUntil !== undefined) {
        if (head.leaseUntil > now) continue
        head.attempts++
      } else if (head.notBefore > now) continue
      head.leaseOwner = worker
      head.leaseUntil = now + leaseMs
      leased.push(snapshot(head))
    }
    return leased
  }

  /** The head of the delivery's queue, if the caller still holds its lease. */
  #held(delivery: Delivery): { readonly queue: Array<Row>; readonly row: Row } | undefined {
    const queue = this.#queues.get(delivery.jobId)
    const row = queue?.[0]
    return queue !== undefined &&
      row !== undefined &&
      row.id === delivery.id &&
      row.leaseOwner === delivery.leaseOwner &&
      row.leaseUntil === delivery.leaseUntil
      ? { queue, row }
      : undefined
  }

  finish(delivery: Delivery): boolean {
    const held = this.#held(delivery)
    if (held === undefined) return false
    held.queue.shift()
    this.#size--
    if (held.queue.length === 0) this.#queues.delete(delivery.jobId)
    return true
  }

  retry(delivery: Delivery, notBefore: number): boolean {
    const held = this.#held(delivery)
    if (held === undefined) return false
    held.row.attempts++
    held.row.notBefore = notBefore
    held.row.leaseOwner = undefined
    held.row.leaseUntil = undefined
    return true
  }

  /** Drops the deliveries of a job; returns how many. */
  dropJob(jobId: string): number {
    const queue = this.#queues.get(jobId)
    if (queue === undefined) return 0
    this.#queues.delete(jobId)
    this.#size -= queue.length
    return queue.length
  }
}
