/**
 * The JobStore on SQLite (better-sqlite3, through `@effect/sql` and, for the per-page writes, directly: see
 * `Connection.ts`): the embedded default. One file holds everything; it survives restarts, and several processes may share it (WAL mode, write transactions that take the
 * lock at BEGIN, a busy timeout).
 *
 * Every operation that writes more than one statement runs in one transaction: a process killed in the middle
 * leaves the database as it was before the operation. `synchronous = NORMAL` (the WAL default of most embedders)
 * keeps every commit across a process crash; only a power loss can drop the last commits, and a dropped commit is
 * whole: its task is still leased and is done again once the lease runs out.
 */
import { mkdir } from "node:fs/promises"
import { dirname } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import {
  admissible,
  decodeJson,
  encodeDelivery,
  encodeJson,
  encodeOptionalJson,
  encodeScrapeDocument,
  encodeTaskDeliveries,
  JobStore,
  type JobStoreShape,
  MemoryJobStore,
  newId,
  type PageRequest,
  StoreError,
  type Task,
  type TaskError,
} from "@webdata/core/jobs"
import { Array as Arr, Config, type ConfigError, Effect, Layer, Option, Schedule, Stream } from "effect"
import * as Compression from "./Compression.js"
import * as Connection from "./Connection.js"
import * as Counters from "./Counters.js"
import { matchExpression } from "./Fts.js"
import * as HotReads from "./HotReads.js"
import * as HotWrites from "./HotWrites.js"
import * as ImmediateTransaction from "./ImmediateTransaction.js"
import { loader } from "./migrations/index.js"
import * as Records from "./Records.js"
import {
  type CacheRow,
  type DocumentRow,
  type ErrorRow,
  type IndexRow,
  type JobRow,
  jobHeadOfRow,
  newJobRow,
  type OutboxRow,
  type TaskRow,
  toCachedPage,
  toDelivery,
  toDocument,
  toError,
  toIndexedPage,
  toJob,
  toTask,
} from "./Rows.js"
import * as SchemaVersion from "./SchemaVersion.js"
import * as SearchBacklog from "./SearchBacklog.js"
import * as WriteBehind from "./WriteBehind.js"

export interface SqliteJobStoreOptions {
  /** The database file (created, with its directory, when missing), or `:memory:`. */
  readonly filename: string
  /**
   * How long a statement waits for another process's write lock before failing (off the event loop: it tries again
   * every millisecond). Default 5000 ms.
   */
  readonly busyTimeoutMs?: number
  /**
   * How long opening waits, before failing, for another process that is migrating the file at the same time (this
   * process's Migrator then stands back) to finish. Default 30000 ms.
   */
  readonly migrationWaitMs?: number
  /**
   * How long a kept scrape or cache entry waits in memory for others to share its commit (`WriteBehind.ts`); a
   * crash loses at most this long of them. Default 20 ms.
   */
  readonly writeBehindMs?: number
  /**
   * How long a write of the per-page kind (a lease, a completion, a write-behind batch) waits for others to share its
   * commit while several fibers are writing (`Connection.ts`); a lone writer never waits. Default 2 ms; 0: only the
   * writes asked for in the same turn of the scheduler share one.
   */
  readonly groupCommitMs?: number
  /**
   * How long this process writes no page to the search index before it tokenizes those it wrote into the FTS index
   * (a search does it first anyway; `SearchBacklog.ts`). Default 2000 ms.
   */
  readonly searchIndexIdleMs?: number
}

/** Whether `error` is SQLite's answer that another connection holds a lock this statement needs. */
const isBusy = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED"
}

const fromSqlError = (error: SqlError): StoreError => {
  const cause = error.cause as { readonly message?: unknown } | undefined
  return new StoreError({
    reason: isBusy(error) ? "Unavailable" : "QueryFailed",
    message: typeof cause?.message === "string" ? `${error.message}: ${cause.message}` : error.message,
    cause: error,
  })
}

const orStoreError = <A>(effect: Effect.Effect<A, SqlError | StoreError>): Effect.Effect<A, StoreError> =>
  Effect.catchTag(effect, "SqlError", (error) => Effect.fail(fromSqlError(error)))

/** A read on the hot-reads connection, failing as the `@effect/sql` client's would. */
const hotRead = <A>(read: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: read,
    catch: (cause) => fromSqlError(new SqlError({ cause, message: "Failed to execute statement" })),
  })

/** Rows changed by a write statement. */
const changes = (statement: Statement<unknown>): Effect.Effect<number, SqlError> =>
  Effect.map(statement.raw, (result) => (result as { readonly changes: number }).changes)

/** The store on the `SqlClient` in context (its schema must be migrated: `layer` does both). */
interface StoreOptions extends Pick<SqliteJobStoreOptions, "writeBehindMs" | "searchIndexIdleMs"> {
  /** A connection of its own for the hot reads: status polls, politeness gates (not for a database in memory). */
  readonly hotReads?: HotReads.HotReads
  /** Synchronous write transactions on the `SqlClient`'s connection (`Connection.exclusive`). */
  readonly exclusive: Connection.Connection["exclusive"]
}

const make = Effect.fnUntraced(function* (options: StoreOptions) {
  const sql = yield* SqlClient.SqlClient
  const transaction = yield* ImmediateTransaction.make
  const write = <A>(effect: Effect.Effect<A, SqlError | StoreError>) => orStoreError(transaction(effect))

  /** A batch of the write-behind queue: the large texts compressed first (off the event loop), then one commit. */
  const writeQueued: WriteBehind.WriteBatch = ({ scrapes, cache, index }) =>
    Effect.gen(function* () {
      const packed = yield* Compression.packAll([
        ...scrapes.map((row) => row.document),
        ...cache.map((row) => row.body),
      ])
      const scrapeRows = scrapes.map((row, i) => ({ ...row, document: packed[i] as Compression.Stored }))
      const cacheRows = cache.map((row, i) => ({ ...row, body: packed[scrapes.length + i] as Compression.Stored }))
      yield* exclusive((db) => {
        for (const row of scrapeRows) HotWrites.insertRow(db, "scrapes", row, "OR REPLACE")
        for (const row of cacheRows) HotWrites.insertRow(db, "scrape_cache", row, "OR REPLACE")
        for (const page of index) HotWrites.putIndexed(db, { ...page, content: WriteBehind.textOf(page.content) })
      })
    })
  const queue = yield* WriteBehind.make(writeQueued, {
    ...WriteBehind.defaults,
    delayMs: options.writeBehindMs ?? WriteBehind.defaults.delayMs,
  })

  /** A stored scrape from its row, queued or read from the file, and its document's JSON. */
  const toScrape = (id: string, row: { readonly owner: string | null; readonly expires_at: number }, json: string) =>
    Effect.map(decodeJson(json), (document) => ({
      id,
      owner: row.owner,
      document,
      expiresAt: row.expires_at,
    }))

  const jobRow = (id: string) => Effect.map(sql<JobRow>`SELECT * FROM jobs WHERE id = ${id}`, Arr.head)
  const { hotReads } = options
  const loadJob = (id: string) =>
    Effect.flatMap(
      jobRow(id),
      Option.match({ onNone: () => Effect.succeedNone, onSome: (row) => Effect.asSome(toJob(row)) }),
    )
  const updatedJob = (statement: Statement<JobRow>) => Effect.flatMap(statement, (rows) => toJob(rows[0]!))

  /** A synchronous write transaction (`HotWrites`), failing as the store's other writes do. */
  const exclusive = <A>(body: (db: Connection.Statements) => A) => orStoreError(options.exclusive(body))
  const backlog = yield* SearchBacklog.make(
    exclusive,
    queue.flush,
    hotReads !== undefined
      ? hotRead(() => hotReads.indexBehind())
      : orStoreError(
          Effect.map(
            sql.unsafe<{ readonly behind: number }>(SearchBacklog.BEHIND_QUERY),
            (rows) => rows[0]?.behind === 1,
          ),
        ),
    options.searchIndexIdleMs ?? 2_000,
  )

  const stopJob = (id: string, now: number, status: "cancelled" | "failed", error?: string) =>
    write(
      Effect.gen(function* () {
        const row = yield* jobRow(id)
        if (Option.isNone(row)) return Option.none()
        if (row.value.status !== "scraping") return Option.some(yield* toJob(row.value))
        yield* sql`
          UPDATE tasks SET status = 'cancelled', lease_owner = NULL, lease_until = NULL
          WHERE job_id = ${id} AND status IN ('pending', 'leased')`
        return Option.some(
          yield* updatedJob(sql<JobRow>`
            UPDATE jobs SET status = ${status}, updated_at = ${now}, completed_at = ${now}, error = ${error ?? null}
            WHERE id = ${id} RETURNING *`),
        )
      }),
    )

  /** Puts a leased task back in the queue (retry or defer): one statement, so atomic without a transaction. */
  const release = (task: Task, notBefore: number, attempt: 0 | 1, error?: TaskError) =>
    orStoreError(
      Effect.map(
        sql`
          UPDATE tasks SET status = 'pending', lease_owner = NULL, lease_until = NULL,
            not_before = ${notBefore}, due_at = ${notBefore}, attempts = attempts + ${attempt},
            error_code = coalesce(${error?.code ?? null}, error_code),
            error_message = coalesce(${error?.message ?? null}, error_message)
          WHERE id = ${task.id} AND status = 'leased'
            AND lease_owner = ${task.leaseOwner ?? null} AND lease_until = ${task.leaseUntil ?? null}
          RETURNING seq`,
        (rows) => rows.length > 0,
      ),
    )

  const store: JobStoreShape = {
    createJob: (input, seeds) =>
      Effect.gen(function* () {
        const options = yield* encodeJson(input.options)
        const webhook = yield* encodeOptionalJson(input.webhook)
        const id = input.id ?? newId()
        const admitted = admissible(seeds, () => false, input.limit)
        const row = yield* exclusive((db) => {
          if (input.id !== undefined && HotWrites.jobRow(db, id) !== undefined) return undefined
          HotWrites.insertRow(db, "jobs", {
            ...newJobRow(input, id, options, webhook, admitted.length),
            zero_data_retention: input.zeroDataRetention ? 1 : 0,
          })
          HotWrites.insertTasks(db, id, admitted)
          return HotWrites.jobRow(db, id)
        })
        if (row === undefined)
          return yield* Effect.fail(new StoreError({ reason: "InvalidData", message: `Job ${id} already exists` }))
        return yield* toJob(row)
      }),

    getJob: (id) =>
      hotReads === undefined
        ? orStoreError(loadJob(id))
        : Effect.flatMap(
            hotRead(() => hotReads.job(id)),
            (row) => (row === undefined ? Effect.succeedNone : Effect.asSome(toJob(row))),
          ),

    ...(hotReads !== undefined
      ? {
          readNow: {
            job: (id: string) => {
              const row = hotReads.jobHead(id)
              return row === undefined ? undefined : jobHeadOfRow(row)
            },
            documentTexts: (jobId: string, { skip, limit }: PageRequest) =>
              hotReads
                .documents(jobId, Math.max(0, skip), Math.max(0, limit))
                .map((row) => ({ seq: Number(row.seq), json: row.document })),
          },
        }
      : {}),

    listJobs: (filter) => {
      const clauses = [
        ...(filter.owner === undefined
          ? []
          : [filter.owner === null ? sql`owner IS NULL` : sql`owner = ${filter.owner}`]),
        ...(filter.kind === undefined ? [] : [sql`kind = ${filter.kind}`]),
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
      ]
      return orStoreError(
        Effect.flatMap(
          sql<JobRow>`SELECT * FROM jobs WHERE ${sql.and(clauses)} ORDER BY created_at, id`,
          Effect.forEach(toJob),
        ),
      )
    },

    cancelJob: (id, now) => stopJob(id, now, "cancelled"),
    failJob: (id, error, now) => stopJob(id, now, "failed", error),

    leaseTasks: (request) =>
      Effect.map(
        exclusive((db) => HotWrites.leaseTasks(db, request)),
        Arr.map(toTask),
      ),

    // One statement, so one snapshot, on the indexes the lease uses: the running jobs, then each one's range of
    // `tasks_due` up to `now` and its first pending task after it (past at most the job's live leases). SQLite takes
    // a partial index only for a query that repeats its predicate, hence the `IN` beside `status = 'pending'`.
    pendingWork: (now) =>
      orStoreError(
        Effect.map(
          sql<{ readonly due: number; readonly next_due: number | null }>`
            SELECT
              (
                SELECT count(*) FROM jobs j JOIN tasks t ON t.job_id = j.id
                WHERE j.status = 'scraping' AND t.status IN ('pending', 'leased') AND t.due_at <= ${now}
              ) AS due,
              (
                SELECT min((
                  SELECT t.due_at FROM tasks t
                  WHERE t.job_id = j.id AND t.status IN ('pending', 'leased') AND t.status = 'pending'
                    AND t.due_at > ${now}
                  ORDER BY t.due_at LIMIT 1
                ))
                FROM jobs j WHERE j.status = 'scraping'
              ) AS next_due`,
          ([row]) => ({ due: row?.due ?? 0, nextDue: Option.fromNullable(row?.next_due) }),
        ),
      ),

    leaseHolders: (prefix) =>
      orStoreError(
        Effect.map(
          sql<{ readonly lease_owner: string }>`
            SELECT DISTINCT lease_owner FROM tasks
            WHERE status = 'leased' AND substr(lease_owner, 1, ${prefix.length}) = ${prefix}`,
          (rows) => rows.map((row) => row.lease_owner),
        ),
      ),

    expireLeases: (holders, now) =>
      holders.length === 0
        ? Effect.succeed(0)
        : write(
            Effect.map(
              sql<{ readonly seq: number }>`
                UPDATE tasks SET lease_until = ${now}, due_at = ${now}
                WHERE status = 'leased' AND ${sql.in("lease_owner", holders)}
                RETURNING seq`,
              (rows) => rows.length,
            ),
          ),

    renewLease: (task, leaseUntil) =>
      orStoreError(
        Effect.map(
          sql<TaskRow>`
            UPDATE tasks SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
            WHERE id = ${task.id} AND status = 'leased'
              AND lease_owner = ${task.leaseOwner ?? null} AND lease_until = ${task.leaseUntil ?? null}
            RETURNING *`,
          (rows) => Option.map(Arr.head(rows), toTask),
        ),
      ),

    completeTask: (task, outcome) =>
      Effect.gen(function* () {
        const document = yield* encodeOptionalJson(outcome.document)
        const deliveries = yield* encodeTaskDeliveries(outcome.deliveries)
        const { recorded, finished, job } = yield* exclusive((db) =>
          HotWrites.completeTask(db, task, outcome, document, deliveries),
        )
        return { recorded, finished, job: job === undefined ? Option.none() : Option.some(yield* toJob(job)) }
      }),

    retryTask: (task, { notBefore, error }) => release(task, notBefore, 1, error),
    deferTask: (task, notBefore) => release(task, notBefore, 0),

    addTasks: (jobId, proposed, now) =>
      exclusive((db) => {
        const row = HotWrites.jobRow(db, jobId)
        if (row === undefined || row.status === "cancelled" || row.status === "failed") return 0
        const admitted = HotWrites.admit(db, jobId, Number(row.task_limit) - Number(row.total), proposed)
        if (admitted > 0) {
          db.prepare(`
            UPDATE jobs SET total = total + ?, status = 'scraping', completed_at = NULL, updated_at = ?
            WHERE id = ?`).run(admitted, now, jobId)
        }
        return admitted
      }),

    getTask: (id) =>
      orStoreError(
        Effect.map(sql<TaskRow>`SELECT * FROM tasks WHERE id = ${id}`, (rows) => Option.map(Arr.head(rows), toTask)),
      ),

    documents: (jobId, { skip, limit }) =>
      Effect.flatMap(
        hotReads === undefined
          ? orStoreError(
              sql<DocumentRow>`
                SELECT * FROM documents WHERE job_id = ${jobId} AND seq >= ${Math.max(0, skip)}
                ORDER BY seq LIMIT ${Math.max(0, limit)}`,
            )
          : hotRead(() => hotReads.documents(jobId, Math.max(0, skip), Math.max(0, limit))),
        Effect.forEach(toDocument),
      ),

    countDocuments: (jobId) =>
      orStoreError(
        Effect.map(
          sql<{ readonly n: number }>`SELECT count(*) AS n FROM documents WHERE job_id = ${jobId}`,
          (rows) => rows[0]?.n ?? 0,
        ),
      ),

    deleteDocuments: (jobId, beforeSeq) =>
      write(changes(sql`DELETE FROM documents WHERE job_id = ${jobId} AND seq < ${Math.max(0, beforeSeq)}`)),

    errors: (jobId) =>
      orStoreError(
        sql.withTransaction(
          Effect.all({
            errors: Effect.map(
              sql<ErrorRow>`SELECT * FROM job_errors WHERE job_id = ${jobId} ORDER BY seq`,
              Arr.map(toError),
            ),
            robotsBlocked: Effect.map(
              sql<{ readonly url: string }>`SELECT url FROM robots_blocked WHERE job_id = ${jobId} ORDER BY seq`,
              Arr.map((row) => row.url),
            ),
          }),
        ),
      ),

    putScrape: (scrape) =>
      Effect.flatMap(encodeScrapeDocument(scrape), (json) =>
        queue.putScrape({ id: scrape.id, owner: scrape.owner, document: json, expires_at: scrape.expiresAt }),
      ),

    getScrape: (id) =>
      Effect.suspend(() => {
        const queued = queue.scrape(id)
        if (queued !== undefined) return Effect.asSome(toScrape(id, queued, WriteBehind.textOf(queued.document)))
        return orStoreError(
          Effect.flatMap(
            sql<{
              readonly owner: string | null
              readonly document: Compression.Stored
              readonly expires_at: number
            }>`
              SELECT owner, document, expires_at FROM scrapes WHERE id = ${id}`,
            Arr.match({
              onEmpty: () => Effect.succeedNone,
              onNonEmpty: ([row]) =>
                Effect.asSome(Effect.flatMap(Compression.unpack(row.document), (json) => toScrape(id, row, json))),
            }),
          ),
        )
      }),

    getProfile: (owner, name) =>
      orStoreError(
        Effect.flatMap(
          sql<{ readonly state: string }>`SELECT state FROM profiles WHERE owner = ${owner ?? ""} AND name = ${name}`,
          Arr.match({
            onEmpty: () => Effect.succeedNone,
            onNonEmpty: ([row]) => Effect.asSome(decodeJson(row.state)),
          }),
        ),
      ),

    putProfile: (owner, name, state) =>
      orStoreError(
        Effect.flatMap(
          encodeJson(state),
          (json) =>
            sql`INSERT OR REPLACE INTO profiles ${sql.insert({
              owner: owner ?? "",
              name,
              state: json,
              updated_at: Date.now(),
            })}`,
        ).pipe(Effect.asVoid),
      ),

    cacheGet: (key) =>
      Effect.suspend(() => {
        const queued = queue.cached(key)
        if (queued !== undefined)
          return Effect.asSome(toCachedPage({ ...queued, body: WriteBehind.textOf(queued.body) }))
        return orStoreError(
          Effect.flatMap(
            sql<Omit<CacheRow, "body"> & { readonly body: Compression.Stored }>`
              SELECT * FROM scrape_cache WHERE key = ${key}`,
            Arr.match({
              onEmpty: () => Effect.succeedNone,
              onNonEmpty: ([row]) =>
                Effect.asSome(Effect.flatMap(Compression.unpack(row.body), (body) => toCachedPage({ ...row, body }))),
            }),
          ),
        )
      }),

    cacheSet: (key, page) =>
      queue.cacheSet({
        key,
        url: page.url,
        status_code: page.statusCode,
        content_type: page.contentType ?? null,
        body: page.body,
        cached_at: page.cachedAt,
        file: page.file !== undefined ? JSON.stringify(page.file) : null,
      }),

    indexPage: (page) => Effect.zipRight(backlog.pageWritten, queue.indexPage(page)),

    searchIndex: (search) => {
      if (search.limit <= 0) return Effect.succeed([])
      const filters = [
        ...(search.owner === undefined ? [] : [sql`s.owner = ${search.owner ?? ""}`]),
        ...(search.from === undefined ? [] : [sql`s.scraped_at >= ${search.from}`]),
        ...(search.to === undefined ? [] : [sql`s.scraped_at <= ${search.to}`]),
      ]
      const slice = sql`LIMIT ${search.limit} OFFSET ${Math.max(0, search.offset)}`
      const newest = sql`s.scraped_at DESC, s.seq DESC`
      // Lower is better; the weights follow the FTS columns: title, description, content, url_words.
      const relevance = sql`bm25(search_index_fts, 3.0, 1.5, 1.0, 0.5)`
      const rows =
        search.terms.length === 0
          ? sql<IndexRow>`
              SELECT s.owner, s.url, s.title, s.description, s.content, s.scraped_at FROM search_index s
              WHERE ${sql.and(filters)} ORDER BY ${newest} ${slice}`
          : // Ranked on the keys alone, then the few pages of the slice read whole: sorting every match with its
            // text costs several times the ranking.
            sql<IndexRow>`
              SELECT p.owner, p.url, p.title, p.description, p.content, p.scraped_at
              FROM (
                SELECT s.seq, ${relevance} AS score FROM search_index_fts f JOIN search_index s ON s.seq = f.rowid
                WHERE ${sql.and([sql`search_index_fts MATCH ${matchExpression(search)}`, ...filters])}
                ORDER BY ${search.newestFirst ? newest : sql`score, ${newest}`} ${slice}
              ) r JOIN search_index p ON p.seq = r.seq
              ORDER BY ${search.newestFirst ? sql`p.scraped_at DESC, p.seq DESC` : sql`r.score, p.scraped_at DESC, p.seq DESC`}`
      // The queued pages first, so that a search finds what this process indexed; then into the FTS index.
      return queue.flush.pipe(
        Effect.zipRight(search.terms.length === 0 ? Effect.void : backlog.catchUp),
        Effect.zipRight(orStoreError(Effect.map(rows, Arr.map(toIndexedPage)))),
      )
    },

    enqueueDelivery: (delivery) =>
      Effect.flatMap(encodeDelivery(delivery), (encoded) =>
        Effect.as(
          exclusive((db) => HotWrites.insertDelivery(db, encoded)),
          true,
        ),
      ),

    leaseDeliveries: ({ worker, now, leaseMs, max }) =>
      write(
        Effect.gen(function* () {
          // Each job's head (its lowest seq), when due or when its holder's lease ran out.
          const heads = yield* sql<OutboxRow>`
            SELECT d.* FROM deliveries d
            WHERE d.seq IN (SELECT min(seq) FROM deliveries GROUP BY job_id)
              AND (CASE WHEN d.lease_until IS NULL THEN d.not_before ELSE d.lease_until END) <= ${now}
            ORDER BY d.seq LIMIT ${Math.max(0, max)}`
          if (heads.length === 0) return []
          const leaseUntil = now + leaseMs
          yield* sql`
            UPDATE deliveries SET attempts = attempts + (lease_until IS NOT NULL),
              lease_owner = ${worker}, lease_until = ${leaseUntil}
            WHERE ${sql.in(
              "seq",
              heads.map((row) => row.seq),
            )}`
          return yield* Effect.forEach(heads, (row) =>
            toDelivery({
              ...row,
              attempts: row.attempts + (row.lease_until === null ? 0 : 1),
              lease_owner: worker,
              lease_until: leaseUntil,
            }),
          )
        }),
      ),

    finishDelivery: (delivery) =>
      orStoreError(
        Effect.map(
          changes(sql`
            DELETE FROM deliveries
            WHERE id = ${delivery.id} AND lease_owner = ${delivery.leaseOwner} AND lease_until = ${delivery.leaseUntil}`),
          (n) => n > 0,
        ),
      ),

    retryDelivery: (delivery, notBefore) =>
      orStoreError(
        Effect.map(
          changes(sql`
            UPDATE deliveries SET attempts = attempts + 1, not_before = ${notBefore}, lease_owner = NULL,
              lease_until = NULL
            WHERE id = ${delivery.id} AND lease_owner = ${delivery.leaseOwner} AND lease_until = ${delivery.leaseUntil}`),
          (n) => n > 0,
        ),
      ),

    passGates: (gates, now) => {
      if (gates.length === 0) return Effect.succeedNone
      const keys = gates.map((gate) => gate.key)
      const closedUntil = (opensAt: number) => (opensAt > now ? Option.some(opensAt) : Option.none())
      const read = Effect.map(
        sql<{ readonly opens_at: number }>`SELECT opens_at FROM gates WHERE ${sql.in("key", keys)}`,
        (rows) => closedUntil(Math.max(0, ...rows.map((row) => row.opens_at))),
      )
      // Most tasks pass unspaced gates (no delay, no Crawl-delay), every crawled page: a read, without taking the
      // file's write lock, on the hot-reads connection when there is one.
      if (!gates.some((gate) => gate.spacingMs > 0))
        return hotReads !== undefined
          ? Effect.map(
              hotRead(() => hotReads.gatesOpenAt(keys)),
              closedUntil,
            )
          : orStoreError(read)
      return write(
        Effect.gen(function* () {
          const closed = yield* read
          if (Option.isSome(closed)) return closed
          for (const gate of gates) {
            if (gate.spacingMs <= 0) continue
            yield* sql`INSERT OR REPLACE INTO gates ${sql.insert({ key: gate.key, opens_at: now + gate.spacingMs })}`
          }
          return closed
        }),
      )
    },

    holdGate: (key, until) =>
      orStoreError(
        Effect.map(
          sql<{ readonly opens_at: number }>`
            INSERT INTO gates ${sql.insert({ key, opens_at: until })}
            ON CONFLICT (key) DO UPDATE SET opens_at = max(opens_at, excluded.opens_at)
            RETURNING opens_at`,
          (rows) => rows[0]?.opens_at ?? until,
        ),
      ),

    ...Records.make(sql, orStoreError),
    ...Counters.make(sql, orStoreError),

    // Processes sharing the file learn of each other's work by polling.
    news: Stream.never,

    purgeExpired: (now, options = {}) =>
      // What is queued is written first, so that the purge sees every scrape and cache entry.
      Effect.zipRight(
        queue.flush,
        write(
          Effect.gen(function* () {
            const expired = sql`SELECT id FROM jobs WHERE expires_at <= ${now}`
            const tasks = yield* changes(sql`DELETE FROM tasks WHERE job_id IN (${expired})`)
            const documents = yield* changes(sql`DELETE FROM documents WHERE job_id IN (${expired})`)
            const errors = yield* changes(sql`DELETE FROM job_errors WHERE job_id IN (${expired})`)
            yield* sql`DELETE FROM robots_blocked WHERE job_id IN (${expired})`
            const deliveries = yield* changes(sql`DELETE FROM deliveries WHERE job_id IN (${expired})`)
            yield* sql`DELETE FROM gates WHERE opens_at <= ${now}`
            const jobs = yield* changes(sql`DELETE FROM jobs WHERE expires_at <= ${now}`)
            const scrapes = yield* changes(sql`DELETE FROM scrapes WHERE expires_at <= ${now}`)
            const records = yield* changes(sql`DELETE FROM records WHERE expires_at <= ${now}`)
            const counters = yield* changes(sql`DELETE FROM counters WHERE expires_at <= ${now}`)
            const cache =
              options.cacheBefore === undefined
                ? 0
                : yield* changes(sql`DELETE FROM scrape_cache WHERE cached_at < ${options.cacheBefore}`)
            const indexed =
              options.indexBefore === undefined
                ? 0
                : yield* changes(sql`DELETE FROM search_index WHERE scraped_at < ${options.indexBefore}`)
            return { jobs, tasks, documents, errors, scrapes, cache, indexed, deliveries, records, counters }
          }),
        ),
      ),
  }
  return store
})

/** Creates or updates the schema on the `SqlClient` in context (what `layer` runs when it opens a file). */
export const migrate = Migrator.make({})({ loader, table: SchemaVersion.table })

const unavailable = (message: string) => (cause: unknown) =>
  new StoreError({
    reason: "Unavailable",
    message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}`,
    cause,
  })

/** Opens the database, applies the pending migrations, and builds the store on it. */
const open = (options: SqliteJobStoreOptions) =>
  Effect.gen(function* () {
    const { filename } = options
    const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))
    const migrationWaitMs = Math.max(0, Math.trunc(options.migrationWaitMs ?? 30_000))
    if (filename !== ":memory:") {
      yield* Effect.tryPromise({
        try: () => mkdir(dirname(filename), { recursive: true }),
        catch: unavailable(`Cannot create the directory of ${filename}`),
      })
    }
    const connection = yield* Connection.open(filename, {
      groupCommitMs: Math.max(0, options.groupCommitMs ?? 2),
      lockWaitMs: busyTimeoutMs,
    }).pipe(
      Effect.mapError(unavailable(`Cannot open ${filename}`)),
      Effect.catchAllDefect((defect) => Effect.fail(unavailable(`Cannot open ${filename}`)(defect))),
    )
    const client = connection.sql
    yield* Effect.gen(function* () {
      // Switched here rather than by the client as it opens: when two processes open a fresh file at once, SQLite
      // may fail the switch of one at once with SQLITE_BUSY, without waiting for the lock; it is tried again.
      yield* Effect.retry(client.unsafe("PRAGMA journal_mode = WAL"), {
        schedule: Schedule.spaced("50 millis").pipe(Schedule.upTo(busyTimeoutMs)),
        while: isBusy,
      })
      yield* client.unsafe("PRAGMA synchronous = NORMAL")
      yield* migrate
    }).pipe(
      Effect.provideService(SqlClient.SqlClient, client),
      Effect.mapError(unavailable(`Cannot prepare ${filename}`)),
    )
    // Our Migrator stands back, with nothing run, when another process's is migrating the file at the same time.
    yield* Effect.provideService(SchemaVersion.awaitKnown(filename, migrationWaitMs), SqlClient.SqlClient, client)
    // Opened and migrated: from now on another process's write lock is waited for off the event loop.
    yield* connection.stopBlocking
    const hotReads =
      filename === ":memory:" || filename === ""
        ? undefined
        : yield* HotReads.open(filename, busyTimeoutMs).pipe(Effect.mapError(unavailable(`Cannot open ${filename}`)))
    return yield* Effect.provideService(
      make({ ...options, exclusive: connection.exclusive, ...(hotReads !== undefined ? { hotReads } : {}) }),
      SqlClient.SqlClient,
      client,
    )
  })

/** The store in the SQLite file `filename`; the database is closed when the layer's scope closes. */
export const layer = (options: SqliteJobStoreOptions): Layer.Layer<JobStore, StoreError> =>
  Layer.scoped(JobStore, open(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * The store named by `WEBDATA_STORE`: `sqlite:<path>` (default `sqlite:.webdata/webdata.db`, relative to the
 * working directory) or `memory:` (the in-memory store of core: nothing survives the process). Anything else fails
 * with a `StoreError` that says what is accepted.
 */
export const layerConfig: Layer.Layer<JobStore, StoreError | ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(
    Config.all([
      Config.string("WEBDATA_STORE").pipe(Config.withDefault("sqlite:.webdata/webdata.db")),
      // The memory store holds the scrape cache in the process: this bounds it (0: the engine turns the cache off).
      Config.number("WEBDATA_CACHE_MAX_MB").pipe(Config.withDefault(256)),
    ]),
    ([spec, cacheMb]) => {
      if (spec === "memory:")
        return MemoryJobStore.layer(cacheMb > 0 ? { cacheMaxBytes: Math.round(cacheMb * 1024 * 1024) } : {})
      if (spec.startsWith("sqlite:") && spec.length > "sqlite:".length)
        return layer({ filename: spec.slice("sqlite:".length) })
      return Layer.fail(
        new StoreError({
          reason: "Unavailable",
          message: `Unsupported WEBDATA_STORE "${spec}": expected sqlite:<path> or memory:`,
        }),
      )
    },
  ),
)
