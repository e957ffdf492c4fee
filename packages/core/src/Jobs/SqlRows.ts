/**
 * The rows of the SQL stores' tables (SQLite and Postgres share the schema's shape) and their decoding into the
 * JobStore's records (and, for `records`, the columns a write sets). Times, counters and sequence numbers are integer columns: SQLite gives numbers, node-postgres
 * gives int8 as strings (exact); every value stored (epoch milliseconds, counts) is far below 2^53, so `Number` reads
 * each exactly. Flags are SQLite integers or Postgres booleans.
 */
import { Array as Arr, Effect, type Option } from "effect"
import type { CachedPage } from "../Cache/ScrapeCache.js"
import type {
  Delivery,
  IndexedPage,
  Job,
  JobErrorRecord,
  JobHead,
  JobKind,
  JobStatus,
  NewJob,
  RecordWrite,
  StoredDocument,
  StoredRecord,
  StoreError,
  Task,
  TaskStatus,
} from "./JobStore.js"
import { decodeJson, parseJson } from "./Json.js"
import { urlWords } from "./UrlWords.js"

/** An integer column: a number (SQLite), or a string or bigint (Postgres int8, by the client's parser). */
export type Int8 = string | number | bigint

const int = (value: Int8): number => Number(value)
const optionalInt = (value: Int8 | null): number | undefined => (value === null ? undefined : Number(value))

/** The row of a `SELECT count(*)`. */
export interface CountRow {
  readonly count: Int8
}

export const toCount = (rows: ReadonlyArray<CountRow>): number => Number(rows[0]?.count ?? 0)

export interface JobRow {
  readonly id: string
  readonly kind: JobKind
  readonly owner: string | null
  readonly status: JobStatus
  readonly url: string | null
  readonly options: string
  readonly task_limit: Int8
  readonly max_concurrency: number | null
  readonly delay_ms: Int8 | null
  readonly webhook: string | null
  readonly zero_data_retention: boolean | number
  readonly total: Int8
  readonly completed: Int8
  readonly failed: Int8
  readonly created_at: Int8
  readonly updated_at: Int8
  readonly completed_at: Int8 | null
  readonly expires_at: Int8
  readonly error: string | null
}

export interface TaskRow {
  readonly seq: Int8
  readonly id: string
  readonly job_id: string
  readonly url: string
  readonly dedup_key: string
  readonly depth: number
  readonly host: string
  readonly status: TaskStatus
  readonly attempts: number
  readonly not_before: Int8
  readonly lease_owner: string | null
  readonly lease_until: Int8 | null
  readonly error_code: string | null
  readonly error_message: string | null
}

export interface DocumentRow {
  readonly job_id: string
  readonly seq: Int8
  readonly url: string
  readonly document: string
  readonly created_at: Int8
}

export interface ErrorRow {
  readonly id: string
  readonly job_id: string
  readonly url: string
  readonly code: string
  readonly message: string
  readonly at: Int8
}

export interface CacheRow {
  readonly url: string
  readonly status_code: number
  readonly content_type: string | null
  readonly body: string
  readonly file: string | null
  readonly cached_at: Int8
}

/** A page of `search_index`, without the columns that only searching uses. */
export interface IndexRow {
  /** '' for a null owner. */
  readonly owner: string
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly content: string
  readonly scraped_at: Int8
}

export interface DeliveryRow {
  readonly id: string
  readonly job_id: string
  readonly payload: string
  readonly attempts: number
  readonly lease_owner: string
  readonly lease_until: Int8
}

export interface RecordRow {
  readonly kind: string
  readonly id: string
  readonly owner: string | null
  readonly parent: string | null
  readonly label: string | null
  readonly due_at: Int8 | null
  readonly value: string
  readonly version: Int8
  readonly created_at: Int8
  readonly updated_at: Int8
  readonly expires_at: Int8 | null
}

/** The first row of a read, decoded; none when the read found nothing. */
export const decodeFirst =
  <Row, A>(decode: (row: Row) => Effect.Effect<A, StoreError>) =>
  (rows: ReadonlyArray<Row>): Effect.Effect<Option.Option<A>, StoreError> =>
    Arr.match(rows, { onEmpty: () => Effect.succeedNone, onNonEmpty: ([row]) => Effect.asSome(decode(row)) })

/** The columns of a job's row that `jobHeadOfRow` reads. */
export const JOB_HEAD_COLUMNS =
  "id, kind, owner, status, url, task_limit, max_concurrency, delay_ms, zero_data_retention, total, completed, failed, created_at, updated_at, completed_at, expires_at, error"

/** A job's row without its JSON columns: `JOB_HEAD_COLUMNS`. */
export type JobHeadRow = Omit<JobRow, "options" | "webhook">

/** A job but its JSON columns, from its row (`JOB_HEAD_COLUMNS` or more). */
export const jobHeadOfRow = (row: JobHeadRow): JobHead => {
  const maxConcurrency = row.max_concurrency ?? undefined
  const delayMs = optionalInt(row.delay_ms)
  const completedAt = optionalInt(row.completed_at)
  return {
    id: row.id,
    kind: row.kind,
    owner: row.owner,
    status: row.status,
    ...(row.url !== null ? { url: row.url } : {}),
    limit: int(row.task_limit),
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...(delayMs !== undefined ? { delayMs } : {}),
    zeroDataRetention: Boolean(row.zero_data_retention),
    total: int(row.total),
    completed: int(row.completed),
    failed: int(row.failed),
    createdAt: int(row.created_at),
    updatedAt: int(row.updated_at),
    ...(completedAt !== undefined ? { completedAt } : {}),
    expiresAt: int(row.expires_at),
    ...(row.error !== null ? { error: row.error } : {}),
  }
}

/** A job from its row; throws a `StoreError` when a JSON column does not parse. */
export const jobOfRow = (row: JobRow): Job => {
  const webhook = row.webhook === null ? undefined : parseJson(row.webhook)
  return { ...jobHeadOfRow(row), options: parseJson(row.options), ...(webhook !== undefined ? { webhook } : {}) }
}

export const toJob = (row: JobRow): Effect.Effect<Job, StoreError> =>
  Effect.try({ try: () => jobOfRow(row), catch: (error) => error as StoreError })

export const toTask = (row: TaskRow): Task => {
  const leaseUntil = optionalInt(row.lease_until)
  return {
    id: row.id,
    jobId: row.job_id,
    url: row.url,
    key: row.dedup_key,
    depth: row.depth,
    host: row.host,
    status: row.status,
    attempts: row.attempts,
    notBefore: int(row.not_before),
    ...(row.lease_owner !== null ? { leaseOwner: row.lease_owner } : {}),
    ...(leaseUntil !== undefined ? { leaseUntil } : {}),
    ...(row.error_code !== null ? { lastError: { code: row.error_code, message: row.error_message ?? "" } } : {}),
  }
}

export const toDocument = (row: DocumentRow): Effect.Effect<StoredDocument, StoreError> =>
  Effect.map(decodeJson(row.document), (document) => ({
    jobId: row.job_id,
    seq: int(row.seq),
    url: row.url,
    document,
    json: row.document,
    createdAt: int(row.created_at),
  }))

export const toError = (row: ErrorRow): JobErrorRecord => ({
  id: row.id,
  jobId: row.job_id,
  url: row.url,
  code: row.code,
  message: row.message,
  at: int(row.at),
})

export const toCachedPage = (row: CacheRow): Effect.Effect<CachedPage, StoreError> =>
  Effect.map(row.file === null ? Effect.succeed(undefined) : decodeJson(row.file), (file) => ({
    url: row.url,
    statusCode: row.status_code,
    contentType: row.content_type ?? undefined,
    body: row.body,
    cachedAt: int(row.cached_at),
    ...(file !== undefined ? { file: file as CachedPage["file"] } : {}),
  }))

/**
 * The `jobs` row of a new job, given its options and webhook as encoded JSON and how many of its seeds it took: none
 * finishes it at once, as nothing would ever complete it. `zero_data_retention` is a boolean here; a store whose
 * database has none writes it its own way.
 */
export const newJobRow = (job: NewJob, id: string, options: string, webhook: string | undefined, admitted: number) => ({
  id,
  kind: job.kind,
  owner: job.owner,
  status: admitted === 0 ? ("completed" as const) : ("scraping" as const),
  url: job.url ?? null,
  options,
  task_limit: job.limit,
  max_concurrency: job.maxConcurrency ?? null,
  delay_ms: job.delayMs ?? null,
  webhook: webhook ?? null,
  zero_data_retention: job.zeroDataRetention,
  total: admitted,
  completed: 0,
  failed: 0,
  created_at: job.createdAt,
  updated_at: job.createdAt,
  completed_at: admitted === 0 ? job.createdAt : null,
  expires_at: job.expiresAt,
})

/** The row an indexed page is written as, with its URL's words (`url_words`, searched beside the text). */
export const indexRowOf = (
  page: IndexedPage,
): {
  readonly [Column in keyof IndexRow | "url_words"]: Column extends keyof IndexRow ? IndexRow[Column] : string
} => ({
  owner: page.owner ?? "",
  url: page.url,
  title: page.title ?? null,
  description: page.description ?? null,
  content: page.content,
  url_words: urlWords(page.url),
  scraped_at: page.scrapedAt,
})

export const toIndexedPage = (row: IndexRow): IndexedPage => ({
  owner: row.owner === "" ? null : row.owner,
  url: row.url,
  ...(row.title !== null ? { title: row.title } : {}),
  ...(row.description !== null ? { description: row.description } : {}),
  content: row.content,
  scrapedAt: int(row.scraped_at),
})

export const toDelivery = (row: DeliveryRow): Effect.Effect<Delivery, StoreError> =>
  Effect.map(decodeJson(row.payload), (payload) => ({
    id: row.id,
    jobId: row.job_id,
    payload,
    attempts: row.attempts,
    leaseOwner: row.lease_owner,
    leaseUntil: int(row.lease_until),
  }))

export const toStoredRecord = (row: RecordRow): Effect.Effect<StoredRecord, StoreError> =>
  Effect.map(decodeJson(row.value), (value) => {
    const dueAt = optionalInt(row.due_at)
    const expiresAt = optionalInt(row.expires_at)
    return {
      kind: row.kind,
      id: row.id,
      owner: row.owner,
      ...(row.parent !== null ? { parent: row.parent } : {}),
      ...(row.label !== null ? { label: row.label } : {}),
      ...(dueAt !== undefined ? { dueAt } : {}),
      value,
      version: int(row.version),
      createdAt: int(row.created_at),
      updatedAt: int(row.updated_at),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    }
  })

/**
 * The columns of `records` that a write replaces (all but the key, `version` and `created_at`), with `value` (the
 * write's value as JSON text): absent optional fields are NULL, so a write clears what an earlier one set.
 */
export const recordChanges = (write: RecordWrite, value: string) => ({
  owner: write.owner,
  parent: write.parent ?? null,
  label: write.label ?? null,
  due_at: write.dueAt ?? null,
  value,
  updated_at: write.now,
  expires_at: write.expiresAt ?? null,
})
