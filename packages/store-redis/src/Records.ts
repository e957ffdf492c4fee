/**
 * The store's hashes and script replies decoded into the JobStore's records. Everything Redis holds is text; a value
 * that does not decode (a number that is not one, JSON that does not parse) fails as `StoreError` "InvalidData".
 */
import type { ScrapeCache } from "@webdata/core"
import {
  type Delivery,
  type IndexedPage,
  type Job,
  type JobErrorRecord,
  type JobKind,
  type JobStatus,
  type StoredDocument,
  type StoredRecord,
  type StoredScrape,
  StoreError,
  type Task,
  type TaskStatus,
} from "@webdata/core/jobs"
import { Effect } from "effect"
import type { Reply } from "./Script.js"
import { TASK_FIELDS } from "./scripts/queue.js"

/** Decodes with `decode`, turning any exception it throws into "InvalidData". */
export const decoding = <A>(what: string, decode: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: decode,
    catch: (cause) =>
      new StoreError({
        reason: "InvalidData",
        message: `Stored ${what} does not decode: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      }),
  })

const number = (text: unknown, field: string): number => {
  const value = typeof text === "number" ? text : typeof text === "string" && text !== "" ? Number(text) : Number.NaN
  if (!Number.isFinite(value)) throw new Error(`${field} is ${JSON.stringify(text)}, not a number`)
  return value
}

const text = (value: unknown, field: string): string => {
  if (typeof value !== "string") throw new Error(`${field} is missing`)
  return value
}

const optional = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** A hash as HGETALL gives it from a script: field, value, field, value… */
export const fieldsOf = (flat: Reply): Readonly<Record<string, string>> => {
  const fields: Record<string, string> = {}
  if (Array.isArray(flat)) for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1])
  return fields
}

/** The job in a job hash's fields (none when the hash is empty: no such job). */
export const toJob = (fields: Readonly<Record<string, string>>): Effect.Effect<Job | undefined, StoreError> =>
  decoding("job", () => {
    if (fields.id === undefined) return undefined
    const { maxConcurrency, delayMs, webhook, completedAt, url, owner, error } = fields
    return {
      id: fields.id,
      kind: text(fields.kind, "kind") as JobKind,
      owner: owner ?? null,
      status: text(fields.status, "status") as JobStatus,
      ...(url !== undefined ? { url } : {}),
      options: JSON.parse(text(fields.options, "options")) as unknown,
      limit: number(fields.limit, "limit"),
      ...(maxConcurrency !== undefined ? { maxConcurrency: number(maxConcurrency, "maxConcurrency") } : {}),
      ...(delayMs !== undefined ? { delayMs: number(delayMs, "delayMs") } : {}),
      ...(webhook !== undefined ? { webhook: JSON.parse(webhook) as unknown } : {}),
      zeroDataRetention: fields.zeroDataRetention === "1",
      total: number(fields.total, "total"),
      completed: number(fields.completed, "completed"),
      failed: number(fields.failed, "failed"),
      createdAt: number(fields.createdAt, "createdAt"),
      updatedAt: number(fields.updatedAt, "updatedAt"),
      ...(completedAt !== undefined ? { completedAt: number(completedAt, "completedAt") } : {}),
      expiresAt: number(fields.expiresAt, "expiresAt"),
      ...(error !== undefined ? { error } : {}),
    }
  })

/**
 * A task as `taskReply` answers it: its id, then `TASK_FIELDS`. `jobStatus`, when given, is its job's: the open
 * tasks of a stopped job are cancelled (they are left as they were when it stopped, see the stopJob script).
 */
export const toTask = (reply: Reply, jobStatus?: Reply): Effect.Effect<Task, StoreError> =>
  decoding("task", () => {
    const values = reply as ReadonlyArray<Reply>
    const field = (name: (typeof TASK_FIELDS)[number]) => values[TASK_FIELDS.indexOf(name) + 1]
    const stored = text(field("status"), "status") as TaskStatus
    const stopped = (stored === "pending" || stored === "leased") && jobStatus !== undefined && jobStatus !== "scraping"
    const leaseOwner = stopped ? undefined : optional(field("owner"))
    const leaseUntil = stopped ? undefined : optional(field("until"))
    const code = optional(field("code"))
    return {
      id: text(values[0], "id"),
      jobId: text(field("job"), "job"),
      url: text(field("url"), "url"),
      key: text(field("key"), "key"),
      depth: number(field("depth"), "depth"),
      host: text(field("host"), "host"),
      status: stopped ? "cancelled" : stored,
      attempts: number(field("attempts"), "attempts"),
      notBefore: number(field("notBefore"), "notBefore"),
      ...(leaseOwner !== undefined ? { leaseOwner } : {}),
      ...(leaseUntil !== undefined ? { leaseUntil: number(leaseUntil, "until") } : {}),
      ...(code !== undefined ? { lastError: { code, message: optional(field("message")) ?? "" } } : {}),
    }
  })

/** A document record (`{url, createdAt, document}` as JSON) at `seq`. */
export const toDocument = (jobId: string, seq: Reply, record: Reply): Effect.Effect<StoredDocument, StoreError> =>
  decoding("document", () => {
    const { url, createdAt, document } = JSON.parse(text(record, "document")) as {
      readonly url: string
      readonly createdAt: number
      readonly document: unknown
    }
    return { jobId, seq: number(seq, "seq"), url, document, createdAt }
  })

/** An error record (JSON of its fields but the job's id). */
export const toErrorRecord = (jobId: string, record: Reply): Effect.Effect<JobErrorRecord, StoreError> =>
  decoding("error", () => {
    const { id, url, code, message, at } = JSON.parse(text(record, "error")) as Omit<JobErrorRecord, "jobId">
    return { id, jobId, url, code, message, at }
  })

/** A leased delivery as the leaseDeliveries script answers it: id, jobId, payload, attempts. */
export const toDelivery = (reply: Reply, leaseOwner: string, leaseUntil: number): Effect.Effect<Delivery, StoreError> =>
  decoding("delivery", () => {
    const [id, jobId, payload, attempts] = reply as ReadonlyArray<Reply>
    return {
      id: text(id, "id"),
      jobId: text(jobId, "job"),
      payload: JSON.parse(text(payload, "payload")) as unknown,
      attempts: number(attempts, "attempts"),
      leaseOwner,
      leaseUntil,
    }
  })

/** An index page as the searchIndex script answers it: owner, url, title, description, content, scrapedAt. */
export const toIndexedPage = (reply: Reply): Effect.Effect<IndexedPage, StoreError> =>
  decoding("index page", () => {
    const [owner, url, title, description, content, at] = reply as ReadonlyArray<Reply>
    const pageTitle = optional(title)
    const pageDescription = optional(description)
    return {
      owner: optional(owner) ?? null,
      url: text(url, "url"),
      ...(pageTitle !== undefined ? { title: pageTitle } : {}),
      ...(pageDescription !== undefined ? { description: pageDescription } : {}),
      content: text(content, "content"),
      scrapedAt: number(at, "scrapedAt"),
    }
  })

/** A cached page's hash (none when empty). */
export const toCachedPage = (
  fields: Readonly<Record<string, string>>,
): Effect.Effect<ScrapeCache.CachedPage | undefined, StoreError> =>
  decoding("cached page", () =>
    fields.url === undefined
      ? undefined
      : {
          url: fields.url,
          statusCode: number(fields.statusCode, "statusCode"),
          contentType: fields.contentType,
          body: text(fields.body, "body"),
          cachedAt: number(fields.cachedAt, "cachedAt"),
          ...(fields.file !== undefined
            ? { file: JSON.parse(fields.file) as NonNullable<ScrapeCache.CachedPage["file"]> }
            : {}),
        },
  )

/** A stored scrape's hash (none when empty). */
export const toStoredScrape = (
  id: string,
  fields: Readonly<Record<string, string>>,
): Effect.Effect<StoredScrape | undefined, StoreError> =>
  decoding("scrape", () =>
    fields.document === undefined
      ? undefined
      : {
          id,
          owner: fields.owner ?? null,
          document: JSON.parse(fields.document) as unknown,
          expiresAt: number(fields.expiresAt, "expiresAt"),
        },
  )

/** A record's hash (none when empty). */
export const toStoredRecord = (
  fields: Readonly<Record<string, string>>,
): Effect.Effect<StoredRecord | undefined, StoreError> =>
  decoding("record", () => {
    if (fields.id === undefined) return undefined
    const { owner, parent, label, dueAt, expiresAt } = fields
    return {
      kind: text(fields.kind, "kind"),
      id: fields.id,
      owner: owner ?? null,
      ...(parent !== undefined ? { parent } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(dueAt !== undefined ? { dueAt: number(dueAt, "dueAt") } : {}),
      value: JSON.parse(text(fields.value, "value")) as unknown,
      version: number(fields.version, "version"),
      createdAt: number(fields.createdAt, "createdAt"),
      updatedAt: number(fields.updatedAt, "updatedAt"),
      ...(expiresAt !== undefined ? { expiresAt: number(expiresAt, "expiresAt") } : {}),
    }
  })
