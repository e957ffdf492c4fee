/**
 * The job store: the one place where durable state lives. It holds jobs (crawl, batch scrape, extract, agent; later
 * monitor), the task frontier of each job (seen set, pending queue, leases), the documents and errors a job
 * produced, the scrapes kept for `GET /v2/scrape/{id}`, the scrape cache, and the pages of the local search index.
 *
 * Every operation is ONE atomic transaction: it either happens whole or not at all, so a process killed at any
 * point leaves no half-written page, and a task is never recorded twice. Workers coordinate only through leases:
 * a leased task belongs to its worker until the lease runs out, after which any worker may lease it again (a dead
 * process's tasks come back by themselves).
 *
 * Times are epoch milliseconds passed in by the caller (`now`), so the stores never read a clock and tests control
 * time. Records are plain, immutable snapshots; JSON fields (`options`, `webhook`, documents) are stored as JSON, so
 * what comes back is what `JSON.parse(JSON.stringify(value))` gives.
 *
 * Besides jobs it keeps what several worker processes must share: the webhook outbox (a delivery survives the
 * process that queued it and is sent by one worker) and the politeness gates (a host's `Crawl-delay` or `Retry-After`
 * and a job's `delay` hold across every worker).
 *
 * Layers: `MemoryJobStore.layer` (here in core), `@webdata/store-sqlite`, `@webdata/store-postgres` and
 * `@webdata/store-redis`. Every layer passes the conformance suite in `packages/core/test/jobs/conformance.ts`.
 */
import { Context, type Effect, type Option, Schema, type Stream } from "effect"
import { v7 as uuidv7 } from "uuid"
import type { CachedPage } from "../Cache/ScrapeCache.js"
import type { WorkEvent } from "./WorkSignal.js"

/** A failure of the store itself (not of the work it records). */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  reason: Schema.Literal(
    /** The backend could not be opened, migrated, locked or reached. */
    "Unavailable",
    /** A statement failed (I/O error, constraint, lock timeout). */
    "QueryFailed",
    /** A value could not be stored or read back: not serialisable to JSON, or a stored row that does not decode. */
    "InvalidData",
  ),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect),
}) {}

export type JobKind = "crawl" | "batch" | "extract" | "agent" | "monitor" | "llmstxt"
/** `scraping` is the only non-terminal status: only tasks of `scraping` jobs are leased. */
export type JobStatus = "scraping" | "completed" | "failed" | "cancelled"
export type TaskStatus = "pending" | "leased" | "done" | "failed" | "cancelled"

/** What the caller decides when creating a job. */
export interface NewJob {
  /**
   * The job's id, when the caller must know it before the job exists (a monitor's check claims it first, so that a
   * claim interrupted by a crash is completed under the same id). Default: a fresh `newId()`. Creating a job whose id
   * exists fails with `InvalidData`.
   */
  readonly id?: string
  readonly kind: JobKind
  /** The API key (or any owner identity) that created the job; `null` for the embedded library. */
  readonly owner: string | null
  /** The start URL of a crawl (absent for a batch). */
  readonly url?: string
  /** The request options as JSON (crawler options, scrape options): read back by the worker. */
  readonly options: unknown
  /** Upper bound of the job's tasks (the seeds included): tasks beyond it are never admitted. */
  readonly limit: number
  /** Upper bound of the job's live leases at any moment (absent: no per-job bound). */
  readonly maxConcurrency?: number
  /** Politeness delay between two fetches of the job, for the worker (the store does not enforce it). */
  readonly delayMs?: number
  /** The webhook configuration as JSON. */
  readonly webhook?: unknown
  readonly zeroDataRetention: boolean
  readonly createdAt: number
  /** After this instant `purgeExpired` deletes the job with everything it holds. */
  readonly expiresAt: number
}

export interface Job extends NewJob {
  /** A UUID v7 (time-ordered). */
  readonly id: string
  readonly status: JobStatus
  /** Tasks admitted so far (seeds and discovered, after dedup and `limit`); never decreases. */
  readonly total: number
  /** Tasks finished with a document. */
  readonly completed: number
  /** Tasks finished with an error. */
  readonly failed: number
  readonly updatedAt: number
  /** When the job reached a terminal status (completed, failed or cancelled). */
  readonly completedAt?: number
  /** Why the job failed (`failJob`). */
  readonly error?: string
}

/** A job but what only its work reads (`options`, `webhook`): what a status answer shows of it. */
export type JobHead = Omit<Job, "options" | "webhook">

/** A URL to visit, as the caller proposes it. */
export interface NewTask {
  readonly url: string
  /** The dedup key (normalised URL, computed by the caller): a job admits each key at most once. */
  readonly key: string
  /** Link hops from the start URL (seeds and sitemap URLs: 0). */
  readonly depth: number
  /** The URL's host, for per-host politeness in the worker. */
  readonly host: string
  /** Not leased before this instant. Default 0 (due at once). */
  readonly notBefore?: number
}

export interface TaskError {
  /** A machine-readable code, for example `SCRAPE_TIMEOUT`. */
  readonly code: string
  readonly message: string
}

export interface Task {
  /** A UUID v7; also the `id` of the task's entry in `errors`. */
  readonly id: string
  readonly jobId: string
  readonly url: string
  readonly key: string
  readonly depth: number
  readonly host: string
  readonly status: TaskStatus
  /** Failed attempts so far: `retryTask` and the expiry of a lease (its holder died or hung) each count one. */
  readonly attempts: number
  readonly notBefore: number
  /** The worker holding the lease (status `leased`). */
  readonly leaseOwner?: string
  /** The end of the lease (status `leased`); together with `leaseOwner` it identifies one lease. */
  readonly leaseUntil?: number
  /** The error passed to the last `retryTask`. */
  readonly lastError?: TaskError
}

export interface StoredDocument {
  readonly jobId: string
  /** 0, 1, 2, … in the order documents were recorded: the cursor of `documents`. */
  readonly seq: number
  /** The task's URL. */
  readonly url: string
  readonly document: unknown
  /**
   * The document's JSON text as the store keeps it, when it keeps one (the SQL stores): a reader that sends the
   * document on (a status page) uses it instead of serialising the document again.
   */
  readonly json?: string
  readonly createdAt: number
}

/** A stored document as a status page sends it: its place and its JSON text. */
export interface DocumentText {
  readonly seq: number
  readonly json: string
}

/**
 * The reads of a status poll, synchronous: what a store that answers without waiting (memory, SQLite's file) offers so
 * that the most frequent request is answered outside Effect (`Http/HotRoutes.ts`). A failure throws. A wrapper of a
 * store that changes what `getJob` or `documents` answer must leave this out or change it alike.
 */
export interface ReadNow {
  /** As `getJob`, without `options` and `webhook`. */
  readonly job: (id: string) => JobHead | undefined
  /** As `documents`, each document as its JSON text. */
  readonly documentTexts: (jobId: string, page: PageRequest) => ReadonlyArray<DocumentText>
}

export interface JobErrorRecord {
  /** The id of the failed task. */
  readonly id: string
  readonly jobId: string
  readonly url: string
  readonly code: string
  readonly message: string
  readonly at: number
}

export interface StoredScrape {
  readonly id: string
  readonly owner: string | null
  readonly document: unknown
  /** The document's JSON text, when the caller already has it (the answer it sent): stored as is. */
  readonly documentJson?: string | undefined
  readonly expiresAt: number
}

export interface LeaseRequest {
  /** Identity of the worker (unique per process). */
  readonly worker: string
  readonly now: number
  /** Lease length; the worker must finish (or `renewLease`) within it. */
  readonly leaseMs: number
  /** At most this many tasks. */
  readonly max: number
}

/** How a leased task ended. Neither `document` nor `error`: the task is done without result (counted in neither). */
export interface TaskOutcome {
  readonly now: number
  /** The page's document (JSON): recorded as the job's next document, `completed` + 1, task `done`. */
  readonly document?: unknown
  /** The final failure: recorded in `errors`, `failed` + 1, task `failed`. Ignored when `document` is present. */
  readonly error?: TaskError
  /** Links found on the page: admitted like `addTasks` (dedup by key, `limit`). */
  readonly discovered: ReadonlyArray<NewTask>
  /** URLs not followed because robots.txt disallows them (recorded once per job). */
  readonly robotsBlocked: ReadonlyArray<string>
  /** Webhook deliveries queued in the same commit, so that a process dying after it cannot lose them. */
  readonly deliveries?: TaskDeliveries
}

/** The webhook events of a task's end, queued to the outbox by the `completeTask` that records it. */
export interface TaskDeliveries {
  /** Queued when the call records the outcome (the page's event). */
  readonly page?: NewDelivery | undefined
  /** Queued, after `page`, only when the call finishes the job (`finished: true`). */
  readonly completed?: NewDelivery | undefined
}

export interface CompleteResult {
  /** False when the caller no longer held the lease: nothing was written. */
  readonly recorded: boolean
  /** True for exactly one call per job: the one whose commit moved the job to `completed`. */
  readonly finished: boolean
  /** The job after the call (none when it no longer exists). */
  readonly job: Option.Option<Job>
}

export interface RetryOptions {
  readonly notBefore: number
  readonly error?: TaskError
}

export interface JobFilter {
  readonly owner?: string | null
  readonly kind?: JobKind
  readonly status?: JobStatus
}

export interface PageRequest {
  /** Documents with `seq < skip` are skipped. */
  readonly skip: number
  readonly limit: number
}

export interface JobErrors {
  readonly errors: ReadonlyArray<JobErrorRecord>
  readonly robotsBlocked: ReadonlyArray<string>
}

export interface PurgeOptions {
  /** Also delete cache entries cached before this instant. */
  readonly cacheBefore?: number
  /** Also delete search index entries scraped before this instant. */
  readonly indexBefore?: number
}

/** What `purgeExpired` deleted. */
export interface PurgeCounts {
  readonly jobs: number
  readonly tasks: number
  readonly documents: number
  readonly errors: number
  readonly scrapes: number
  readonly cache: number
  readonly indexed: number
  /** Webhook deliveries of the deleted jobs that were still waiting. */
  readonly deliveries: number
  /** Records with `expiresAt <= now`. */
  readonly records: number
  /** Counters with `expiresAt <= now`. */
  readonly counters: number
}

/** A webhook event to send, as the job's code queues it. */
export interface NewDelivery {
  /** The job the event is about: a job's deliveries are sent one at a time, in the order they were queued. */
  readonly jobId: string
  /** What to send (JSON): the receiver, the body and its fixed `webhookId`, as the Webhooks service encodes them. */
  readonly payload: unknown
  readonly createdAt: number
}

/** A leased delivery: its holder sends it, then `finishDelivery` or `retryDelivery`. */
export interface Delivery {
  readonly id: string
  readonly jobId: string
  readonly payload: unknown
  /** Failed attempts so far (`retryDelivery` and the expiry of a lease each count one). */
  readonly attempts: number
  readonly leaseOwner: string
  readonly leaseUntil: number
}

/** What a worker would find in the store: for hosts that start workers on demand (AWS Lambda). */
export interface PendingWork {
  /** Tasks of `scraping` jobs that a worker could lease now: pending and due, or leased with an expired lease. */
  readonly due: number
  /** The earliest `notBefore` after `now` of a pending task of a `scraping` job (a politeness delay, a backoff). */
  readonly nextDue: Option.Option<number>
}

/**
 * A record: a small JSON document the engine keeps besides jobs (a monitor, one of its checks, a page's snapshot for
 * change tracking). Records of one `kind` are found by id, listed by owner, parent and label, and found when they
 * fall `due`; every write is a compare-and-set on `version`, so that concurrent writers (two workers claiming the
 * same due monitor) never both win.
 */
export interface StoredRecord {
  /** The family of the record (`monitor`, `monitor-check`, `snapshot`, ...); ids are unique within a kind. */
  readonly kind: string
  readonly id: string
  /** Who the record belongs to (`null`: the embedded library, a server without keys). */
  readonly owner: string | null
  /** The record this one belongs to (a check's monitor): listed and deleted with it. */
  readonly parent?: string
  /** A short value that lists filter on (a check's status). */
  readonly label?: string
  /** From this instant on, `dueRecords` returns the record (a monitor's next run). Absent: never. */
  readonly dueAt?: number
  /** The content (JSON). */
  readonly value: unknown
  /** 1 for the first write, then one more per write. */
  readonly version: number
  /** The time of the first write (kept by later writes). */
  readonly createdAt: number
  /** The time of the last write. */
  readonly updatedAt: number
  /** At this instant `purgeExpired` deletes the record. Absent: kept until deleted. */
  readonly expiresAt?: number
}

/** A record as written: every field but `version` and `createdAt`, which the store keeps. */
export interface RecordWrite {
  readonly kind: string
  readonly id: string
  readonly owner: string | null
  readonly parent?: string
  readonly label?: string
  readonly dueAt?: number
  readonly value: unknown
  /** The time of the write: `updatedAt`, and `createdAt` when the record is new. */
  readonly now: number
  readonly expiresAt?: number
  /**
   * The compare-and-set: the `version` the writer read (`0`: the record must not exist). The write happens only when
   * the stored version is this one. Absent: the write happens whatever is stored.
   */
  readonly expectedVersion?: number
}

/** Which records `listRecords` answers: those of `kind` that match every other given field. */
export interface RecordQuery {
  readonly kind: string
  /** Only this owner's records; undefined: every owner's. */
  readonly owner?: string | null
  readonly parent?: string
  readonly label?: string
  /** Records skipped (newest first), for paging. */
  readonly offset: number
  readonly limit: number
}

/** A politeness gate: a name (`host example.com`, `job <id>`) and how long passing it keeps it closed. */
export interface Gate {
  readonly key: string
  readonly spacingMs: number
}

/** Which page of the search index: one per owner and URL. */
export interface IndexKey {
  /** Who fetched the page (`null`: the embedded library, a server without keys). */
  readonly owner: string | null
  /** The page's final URL (after redirects). */
  readonly url: string
}

/** A page of the local search index: the text a scrape, crawl or parse of `url` produced for `owner`. */
export interface IndexedPage extends IndexKey {
  readonly title?: string
  readonly description?: string
  /** The text indexed (the page's markdown). */
  readonly content: string
  readonly scrapedAt: number
}

/**
 * A search of the index (what the `local` search provider asks; `Search/LocalIndex.ts` makes it of the user's query
 * and filters the answer further by URL). Relevance is BM25 over the title (weighted ×3), the description (×1.5), the
 * content and the URL's words (×0.5), each store with its own engine: SQLite's FTS5, MiniSearch in memory.
 */
export interface IndexSearch {
  /** Lower-case words (letters and digits only) to find; none: every page, newest first. */
  readonly terms: ReadonlyArray<string>
  /** `all`: pages with every term; `any`: pages with at least one. */
  readonly match: "all" | "any"
  /** The last term also matches the longer words it begins (a query typed as the user goes). */
  readonly prefixLast: boolean
  /** Only this owner's pages; undefined: every owner's. */
  readonly owner?: string | null | undefined
  /** Only pages scraped at or after this instant. */
  readonly from?: number | undefined
  /** Only pages scraped at or before this instant. */
  readonly to?: number | undefined
  /** Newest first instead of most relevant first. */
  readonly newestFirst: boolean
  /** Pages of the answer skipped, for reading it in slices. */
  readonly offset: number
  readonly limit: number
}

export interface JobStoreShape {
  /**
   * Creates a job in status `scraping` with its seeds admitted like `addTasks` (dedup by key, at most `limit`).
   * A job with no admitted seed is `completed` at once, so no job waits forever for work that will never come.
   */
  readonly createJob: (job: NewJob, seeds: ReadonlyArray<NewTask>) => Effect.Effect<Job, StoreError>
  /** The job, whatever its status; expired jobs stay readable until `purgeExpired` runs (compare `expiresAt`). */
  readonly getJob: (id: string) => Effect.Effect<Option.Option<Job>, StoreError>
  /** Jobs matching every given field, oldest first. */
  readonly listJobs: (filter: JobFilter) => Effect.Effect<ReadonlyArray<Job>, StoreError>
  /**
   * Cancels a `scraping` job: status `cancelled`, its pending and leased tasks `cancelled` (their holders' later
   * `completeTask` records nothing), `completedAt` = now. A job already terminal is returned unchanged (the caller
   * tells "already completed" from its status). None for an unknown job.
   */
  readonly cancelJob: (id: string, now: number) => Effect.Effect<Option.Option<Job>, StoreError>
  /** Like `cancelJob` with status `failed` and `error`. A terminal job is returned unchanged. */
  readonly failJob: (id: string, error: string, now: number) => Effect.Effect<Option.Option<Job>, StoreError>

  /**
   * Leases up to `max` tasks that are due (`pending` with `notBefore <= now`, or `leased` with an expired lease:
   * a dead or hung worker's) of `scraping` jobs, to `worker` until `now + leaseMs`. A job never holds more live
   * leases than its `maxConcurrency`. Fair across owners, then across jobs (`fairLease`): each owner with due work
   * (`null` is one) first gets up to an equal share of `max`, split among its jobs least recently served first, so a
   * tenant who floods the queue cannot starve another and a huge crawl cannot starve a small batch; slots left over
   * go to the jobs that have more. Owners take turns too: the one whose most recently served job is the oldest goes
   * first. Within a job, earliest `notBefore` first, then in admission order (breadth-first for a crawl).
   * Re-leasing an expired lease counts an attempt. Concurrent calls never lease the same task.
   */
  readonly leaseTasks: (request: LeaseRequest) => Effect.Effect<ReadonlyArray<Task>, StoreError>
  /**
   * How much work waits at `now` (see `PendingWork`); leases that have not run out are their holders' business and
   * count in neither field.
   */
  readonly pendingWork: (now: number) => Effect.Effect<PendingWork, StoreError>
  /** The distinct `leaseOwner`s of leased tasks whose name starts with `prefix` (live or expired leases alike). */
  readonly leaseHolders: (prefix: string) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /**
   * Ends every lease that `holders` hold (their processes are known to be gone): the tasks are due at once, and
   * leasing them again counts an attempt, as for an expired lease; the old holders can no longer complete them.
   * Returns how many leases were ended.
   */
  readonly expireLeases: (holders: ReadonlyArray<string>, now: number) => Effect.Effect<number, StoreError>
  /** Extends a lease the caller still holds to `leaseUntil`; returns the task with its new lease, or none. */
  readonly renewLease: (task: Task, leaseUntil: number) => Effect.Effect<Option.Option<Task>, StoreError>
  /**
   * Records how a leased task ended, in one commit: the document (next `seq`) or the error, the discovered tasks
   * (like `addTasks`), the robots-blocked URLs, the task's final status, the counters, the `page` delivery; and when
   * no pending or leased task remains, the job becomes `completed` (`finished: true`, exactly once per job) and the
   * `completed` delivery is queued after the page's. Only the current holder of the lease can do this (same
   * `leaseOwner` and `leaseUntil`, expired or not, as long as nobody leased the task since): any other call, a second
   * call included, writes nothing and answers `recorded: false`. A full outbox (the memory store's bound, see
   * `enqueueDelivery`) drops the deliveries that do not fit with a warning; the outcome is recorded all the same.
   */
  readonly completeTask: (task: Task, outcome: TaskOutcome) => Effect.Effect<CompleteResult, StoreError>
  /**
   * Gives a leased task back for another attempt: `pending`, `attempts` + 1, due at `notBefore`, `lastError` set
   * when `error` is given. False (nothing written) when the caller no longer holds the lease.
   */
  readonly retryTask: (task: Task, options: RetryOptions) => Effect.Effect<boolean, StoreError>
  /**
   * Gives a leased task back without burning an attempt (politeness, `Retry-After`): `pending`, due at
   * `notBefore`. False (nothing written) when the caller no longer holds the lease.
   */
  readonly deferTask: (task: Task, notBefore: number) => Effect.Effect<boolean, StoreError>
  /**
   * Admits tasks to a job (batch `appendToId`, sitemap URLs): keys the job has already seen and, once the job has
   * `limit` tasks, every further task are dropped; duplicates within `tasks` count once. A `completed` job that
   * admits a task is `scraping` again; `cancelled` and `failed` jobs (and unknown ids) admit nothing. Returns how
   * many tasks were admitted.
   */
  readonly addTasks: (jobId: string, tasks: ReadonlyArray<NewTask>, now: number) => Effect.Effect<number, StoreError>
  /** A task by id (any status). */
  readonly getTask: (id: string) => Effect.Effect<Option.Option<Task>, StoreError>

  /** The job's documents with `seq >= skip`, at most `limit`, in `seq` order. */
  readonly documents: (jobId: string, page: PageRequest) => Effect.Effect<ReadonlyArray<StoredDocument>, StoreError>
  /** The same reads as `getJob` and `documents`, synchronous; absent on a store that must wait for its answers. */
  readonly readNow?: ReadNow
  /** Documents the job holds now (recorded, less deleted). */
  readonly countDocuments: (jobId: string) => Effect.Effect<number, StoreError>
  /**
   * Deletes the job's documents with `seq < beforeSeq` (zero data retention: once delivered, they are gone); later
   * documents keep their `seq`. Returns how many were deleted.
   */
  readonly deleteDocuments: (jobId: string, beforeSeq: number) => Effect.Effect<number, StoreError>
  /** The job's errors (in the order they were recorded) and robots-blocked URLs (first-seen order). */
  readonly errors: (jobId: string) => Effect.Effect<JobErrors, StoreError>

  /** Keeps a scrape's document for `GET /v2/scrape/{id}` (replaces one with the same id). */
  readonly putScrape: (scrape: StoredScrape) => Effect.Effect<void, StoreError>
  /** The stored scrape; readable until `purgeExpired` deletes it (compare `expiresAt`). */
  readonly getScrape: (id: string) => Effect.Effect<Option.Option<StoredScrape>, StoreError>

  /**
   * The browser profile `name` of `owner` (cookies and storage an interact session saved), or none. Profiles never
   * expire; `putProfile` replaces one.
   */
  readonly getProfile: (owner: string | null, name: string) => Effect.Effect<Option.Option<unknown>, StoreError>
  readonly putProfile: (owner: string | null, name: string, state: unknown) => Effect.Effect<void, StoreError>

  readonly cacheGet: (key: string) => Effect.Effect<Option.Option<CachedPage>, StoreError>
  /** Stores (or replaces) the page under `key`. */
  readonly cacheSet: (key: string, page: CachedPage) => Effect.Effect<void, StoreError>

  /**
   * Adds a page to the search index, or replaces the page of the same owner and URL (the newest write wins). A store
   * may drop its oldest pages to stay within its bounds (the memory store does).
   */
  readonly indexPage: (page: IndexedPage) => Effect.Effect<void, StoreError>
  /** The pages that match `search`, best first (see `IndexSearch`), with their content. */
  readonly searchIndex: (search: IndexSearch) => Effect.Effect<ReadonlyArray<IndexedPage>, StoreError>

  /**
   * Queues a webhook delivery (one write; the caller never waits for the receiver). False when the store refuses it
   * because its outbox is full (the memory store bounds it; durable stores bound it by the jobs' expiry).
   */
  readonly enqueueDelivery: (delivery: NewDelivery) => Effect.Effect<boolean, StoreError>
  /**
   * Leases up to `max` deliveries to `worker` until `now + leaseMs`: for each job, its oldest queued delivery, when
   * it is due (never leased, or given back with a `notBefore <= now`) or its lease ran out (its holder died: that
   * counts an attempt). A job's later deliveries wait until the one before is finished, so they arrive in order.
   * Oldest jobs' deliveries first. Concurrent calls never lease the same delivery.
   */
  readonly leaseDeliveries: (request: LeaseRequest) => Effect.Effect<ReadonlyArray<Delivery>, StoreError>
  /** Deletes a delivery that was sent (or given up on). False, nothing written, when the caller lost the lease. */
  readonly finishDelivery: (delivery: Delivery) => Effect.Effect<boolean, StoreError>
  /** Gives a delivery back for another attempt at `notBefore`, `attempts` + 1. False when the caller lost the lease. */
  readonly retryDelivery: (delivery: Delivery, notBefore: number) => Effect.Effect<boolean, StoreError>

  /**
   * Writes a record (see `StoredRecord`): the new record, or none when `expectedVersion` did not match (nothing
   * written). A write replaces every field; `createdAt` stays that of the first write.
   */
  readonly putRecord: (write: RecordWrite) => Effect.Effect<Option.Option<StoredRecord>, StoreError>
  readonly getRecord: (kind: string, id: string) => Effect.Effect<Option.Option<StoredRecord>, StoreError>
  /** The records that match `query`, newest first (`createdAt`, then `id`, both descending). */
  readonly listRecords: (query: RecordQuery) => Effect.Effect<ReadonlyArray<StoredRecord>, StoreError>
  /** Up to `limit` records of `kind` with `dueAt <= now`, earliest `dueAt` first. */
  readonly dueRecords: (
    kind: string,
    now: number,
    limit: number,
  ) => Effect.Effect<ReadonlyArray<StoredRecord>, StoreError>
  /**
   * Deletes the record `kind`/`id` (whatever its version) and every record, of any kind, whose `parent` is `id`.
   * Returns how many records were deleted.
   */
  readonly deleteRecord: (kind: string, id: string) => Effect.Effect<number, StoreError>

  /**
   * Adds `by` to the counter `name` (a missing counter starts at 0) and answers its new value, atomically across every
   * process (rate limits, usage). `expiresAt` is when `purgeExpired` may drop it (each write sets it); callers put
   * the time window in the name, so an expired counter is never read as a current one.
   */
  readonly addToCounter: (name: string, by: number, expiresAt: number) => Effect.Effect<number, StoreError>
  /** The values of the counters `names`, in order (0 for a missing one). */
  readonly readCounters: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<number>, StoreError>

  /**
   * Passes the politeness `gates` together, atomically across every process: when all are open at `now`, each gate
   * with `spacingMs > 0` closes until `now + spacingMs` and the answer is none; when any is closed, none is taken and
   * the answer is the instant the last of the closed ones opens.
   */
  readonly passGates: (gates: ReadonlyArray<Gate>, now: number) => Effect.Effect<Option.Option<number>, StoreError>
  /** Keeps gate `key` closed until `until` (a `Retry-After`); never shortens it. Answers when the gate opens. */
  readonly holdGate: (key: string, until: number) => Effect.Effect<number, StoreError>

  /**
   * What other processes' writes to this store mean for a worker, as far as the backend can tell without polling:
   * work was added or a job was cancelled (Postgres `LISTEN/NOTIFY`, Redis pub/sub). It only shortens waits, so it may
   * drop or repeat events; a store without such news (memory: one process; SQLite: polling) never emits.
   */
  readonly news: Stream.Stream<WorkEvent>

  /**
   * Deletes the jobs with `expiresAt <= now` together with their tasks, documents, errors, robots-blocked URLs and
   * waiting webhook deliveries (whatever their status), the gates open at `now`, the scrapes, records and counters
   * with `expiresAt <= now`, the cache entries older than `cacheBefore`, and the search index entries scraped before
   * `indexBefore`.
   */
  readonly purgeExpired: (now: number, options?: PurgeOptions) => Effect.Effect<PurgeCounts, StoreError>
}

export class JobStore extends Context.Tag("@webdata/core/JobStore")<JobStore, JobStoreShape>() {}

/** A fresh id for a job or task: UUID v7, so ids sort by creation time. */
export const newId = (): string => uuidv7()
