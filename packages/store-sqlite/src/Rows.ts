/** The rows of this store's tables: core's SQL rows (shared with the Postgres store), and what only this store reads. */
export * from "@webdata/core/sql-rows"

/** A row of `deliveries` as this store reads it: leased or not. */
export interface OutboxRow {
  readonly seq: number
  readonly id: string
  readonly job_id: string
  readonly payload: string
  readonly attempts: number
  readonly not_before: number
  readonly lease_owner: string | null
  readonly lease_until: number | null
}
