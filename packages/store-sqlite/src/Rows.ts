/** The tables' rows as SQLite returns them, and their decoding into the JobStore's records. */
import type { ScrapeCache } from "@webdata/core"
import {
  type Delivery,
  decodeJson,
  type IndexedPage,
  type Job,
  type JobErrorRecord,
  type JobKind,
  type JobStatus,
  type StoredDocument,
  type StoreError,
  type Task,
  type TaskStatus,
} from "@webdata/core/jobs"
import { Effect } from "effect"

export interface JobRow {
  readonly id: string
  readonly kind: JobKind
  readonly owner: string | null
  readonly status: JobStatus
  readonly url: string | null
  readonly options: string
  readonly task_limit: number
  readonly max_concurrency: number | null
  readonly delay_ms: number | null
  readonly webhook: string | null
  readonly zero_data_retention: number
  readonly total: number
  readonly completed: number
  readonly failed: number
  readonly created_at: number
  readonly updated_at: number
  readonly completed_at: number | null
  readonly expires_at: number
  readonly error: string | null
}

export interface TaskRow {
  readonly seq: number
  readonly id: string
  readonly job_id: string
  readonly url: string
  readonly dedup_key: string
  readonly depth: number
  readonly host: string
  readonly status: TaskStatus
  readonly attempts: number
  readonly not_before: number
  readonly lease_owner: string | null
  readonly lease_until: number | null
  readonly error_code: string | null
  readonly error_message: string | null
}

export interface DocumentRow {
  readonly job_id: string
  readonly seq: number
  readonly url: string
  readonly document: string
  readonly created_at: number
}

export interface ErrorRow {
  readonly id: string
  readonly job_id: string
  readonly url: string
  readonly code: string
  readonly message: string
  readonly at: number
}

export interface CacheRow {
  readonly url: string
  readonly status_code: number
  readonly content_type: string | null
  readonly body: string
  readonly cached_at: number
  readonly file: string | null
}

export interface DeliveryRow {
  readonly seq: number
  readonly id: string
  readonly job_id: string
  readonly payload: string
  readonly attempts: number
  readonly not_before: number
  readonly lease_owner: string | null
  readonly lease_until: number | null
}

/** A page of `search_index`, without the columns that only searching uses. */
export interface IndexRow {
  /** '' for a null owner. */
  readonly owner: string
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly content: string
  readonly scraped_at: number
}

export const toJob = (row: JobRow): Effect.Effect<Job, StoreError> =>
  Effect.gen(function* () {
    const options = yield* decodeJson(row.options)
    const webhook = row.webhook === null ? undefined : yield* decodeJson(row.webhook)
    return {
      id: row.id,
      kind: row.kind,
      owner: row.owner,
      status: row.status,
      ...(row.url !== null ? { url: row.url } : {}),
      options,
      limit: row.task_limit,
      ...(row.max_concurrency !== null ? { maxConcurrency: row.max_concurrency } : {}),
      ...(row.delay_ms !== null ? { delayMs: row.delay_ms } : {}),
      ...(webhook !== undefined ? { webhook } : {}),
      zeroDataRetention: row.zero_data_retention !== 0,
      total: row.total,
      completed: row.completed,
      failed: row.failed,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(row.completed_at !== null ? { completedAt: row.completed_at } : {}),
      expiresAt: row.expires_at,
      ...(row.error !== null ? { error: row.error } : {}),
    }
  })

export const toTask = (row: TaskRow): Task => ({
  id: row.id,
  jobId: row.job_id,
  url: row.url,
  key: row.dedup_key,
  depth: row.depth,
  host: row.host,
  status: row.status,
  attempts: row.attempts,
  notBefore: row.not_before,
  ...(row.lease_owner !== null ? { leaseOwner: row.lease_owner } : {}),
  ...(row.lease_until !== null ? { leaseUntil: row.lease_until } : {}),
  ...(row.error_code !== null ? { lastError: { code: row.error_code, message: row.error_message ?? "" } } : {}),
})

export const toDocument = (row: DocumentRow): Effect.Effect<StoredDocument, StoreError> =>
  Effect.map(decodeJson(row.document), (document) => ({
    jobId: row.job_id,
    seq: row.seq,
    url: row.url,
    document,
    createdAt: row.created_at,
  }))

export const toError = (row: ErrorRow): JobErrorRecord => ({
  id: row.id,
  jobId: row.job_id,
  url: row.url,
  code: row.code,
  message: row.message,
  at: row.at,
})

export const toCachedPage = (row: CacheRow): ScrapeCache.CachedPage => ({
  url: row.url,
  statusCode: row.status_code,
  contentType: row.content_type ?? undefined,
  body: row.body,
  cachedAt: row.cached_at,
  ...(row.file !== null ? { file: JSON.parse(row.file) as ScrapeCache.CachedPage["file"] } : {}),
})

export const toIndexedPage = (row: IndexRow): IndexedPage => ({
  owner: row.owner === "" ? null : row.owner,
  url: row.url,
  ...(row.title !== null ? { title: row.title } : {}),
  ...(row.description !== null ? { description: row.description } : {}),
  content: row.content,
  scrapedAt: row.scraped_at,
})

/** A leased delivery (its lease columns set). */
export const toDelivery = (row: DeliveryRow): Effect.Effect<Delivery, StoreError> =>
  Effect.map(decodeJson(row.payload), (payload) => ({
    id: row.id,
    jobId: row.job_id,
    payload,
    attempts: row.attempts,
    leaseOwner: row.lease_owner ?? "",
    leaseUntil: row.lease_until ?? 0,
  }))
