/**
 * The in-memory JobStore: for tests, the embedded library and `WEBDATA_STORE=memory:`. Nothing survives the
 * process. Same semantics as the durable stores (the conformance suite checks both); operations run one at a time
 * (a lock stands in for the database's transactions) and never half (every check and JSON encoding happens before
 * the first write, and an operation cannot be interrupted once it holds the lock).
 *
 * Each job keeps its open tasks (pending or leased) in a tree ordered by due time (`notBefore` while pending, the
 * lease's end while leased), so a lease reads only the tasks it takes, and every step is O(log n) in the job's tasks.
 */
import { Effect, Layer, Option, Order, RedBlackTree, Stream } from "effect"
import { LRUCache } from "lru-cache"
import { type CachedPage, cachedPageSize } from "../Cache/ScrapeCache.js"
import { admissible } from "./Admission.js"
import { counterIncrement } from "./Counters.js"
import { fairLease } from "./FairLease.js"
import {
  type Job,
  type JobErrorRecord,
  JobStore,
  type JobStoreShape,
  type NewTask,
  newId,
  type PageRequest,
  type StoredDocument,
  StoreError,
  type Task,
  type TaskError,
  type TaskStatus,
} from "./JobStore.js"
import {
  deliveriesToQueue,
  encodeDelivery,
  encodeJson,
  encodeOptionalJson,
  encodeScrapeDocument,
  encodeTaskDeliveries,
} from "./Json.js"
import { MemoryCounters } from "./MemoryCounters.js"
import { MemoryGates } from "./MemoryGates.js"
import { MemoryOutbox } from "./MemoryOutbox.js"
import { MemoryPageIndex } from "./MemoryPageIndex.js"
import { MemoryRecords } from "./MemoryRecords.js"

export interface MemoryJobStoreOptions {
  /** Bound of the cached page bodies in bytes (UTF-16 length × 2); least recently used go first. Default 256 MiB. */
  readonly cacheMaxBytes?: number
  /**
   * Bound of the scrape results kept for `GET /v2/scrape/{id}` in bytes (JSON length × 2); the least recently used go
   * first, so a long-lived process that scrapes a lot does not hold every result until it expires. Default 128 MiB.
   */
  readonly scrapesMaxBytes?: number
  /**
   * Bound of the search index's pages in bytes (UTF-16 length × 2 of their text); the oldest go first, so that a long
   * crawl does not grow the process without end. Default 64 MiB.
   */
  readonly indexMaxBytes?: number
  /** Bound of the webhook deliveries waiting to be sent; beyond it new ones are refused. Default 10 000. */
  readonly outboxCapacity?: number
}

/** `[dueAt, seq]`: seq (admission order, unique) breaks ties and makes keys unique. */
type DueKey = readonly [number, number]
const dueOrder: Order.Order<DueKey> = Order.tuple(Order.number, Order.number)

interface TaskRow {
  readonly id: string
  readonly jobId: string
  readonly seq: number
  readonly url: string
  readonly key: string
  readonly depth: number
  readonly host: string
  status: TaskStatus
  attempts: number
  notBefore: number
  leaseOwner: string | undefined
  leaseUntil: number | undefined
  lastError: TaskError | undefined
  /** The row's key in its job's `due` tree, while it is open. */
  dueKey: DueKey | undefined
}

interface JobRow {
  job: Job
  /** Lease turn: jobs with the lowest turn are served first. */
  turn: number
  readonly keys: Set<string>
  readonly tasks: Array<TaskRow>
  due: RedBlackTree.RedBlackTree<DueKey, TaskRow>
  readonly leased: Set<TaskRow>
  /** Indexed by seq; entries below `deletedBelow` are gone (`deleteDocuments`). */
  readonly documents: Array<{ readonly url: string; readonly json: string; readonly createdAt: number } | undefined>
  deletedBelow: number
  readonly errors: Array<JobErrorRecord>
  readonly robotsBlocked: Set<string>
}

const snapshot = (row: TaskRow): Task => ({
  id: row.id,
  jobId: row.jobId,
  url: row.url,
  key: row.key,
  depth: row.depth,
  host: row.host,
  status: row.status,
  attempts: row.attempts,
  notBefore: row.notBefore,
  ...(row.leaseOwner !== undefined ? { leaseOwner: row.leaseOwner } : {}),
  ...(row.leaseUntil !== undefined ? { leaseUntil: row.leaseUntil } : {}),
  ...(row.lastError !== undefined ? { lastError: row.lastError } : {}),
})

/** Whether `row` is still under the very lease `task` was given. */
const holds = (row: TaskRow | undefined, task: Task): row is TaskRow =>
  row !== undefined &&
  row.status === "leased" &&
  row.leaseOwner === task.leaseOwner &&
  row.leaseUntil === task.leaseUntil

const compareIds = (a: Job, b: Job): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const withoutCompletedAt = ({ completedAt: _, ...job }: Job): Job => job

export const make = (options: MemoryJobStoreOptions = {}): JobStoreShape => {
  const jobs = new Map<string, JobRow>()
  /** The `scraping` jobs: the only ones `leaseTasks` looks at. */
  const active = new Set<JobRow>()
  const tasks = new Map<string, TaskRow>()
  const scrapes = new LRUCache<
    string,
    { readonly owner: string | null; readonly json: string; readonly expiresAt: number }
  >({
    maxSize: options.scrapesMaxBytes ?? 128 * 1024 * 1024,
    sizeCalculation: (scrape) => Math.max(1, scrape.json.length * 2),
  })
  const cache = new LRUCache<string, CachedPage>({
    maxSize: options.cacheMaxBytes ?? 256 * 1024 * 1024,
    sizeCalculation: cachedPageSize,
  })
  /** The job's documents from `skip` on (not below those deleted), at most `limit`, with their `seq`. */
  const documentsOf = (jobId: string, { skip, limit }: PageRequest) => {
    const jobRow = jobs.get(jobId)
    if (jobRow === undefined) return []
    const from = Math.max(0, skip, jobRow.deletedBelow)
    return jobRow.documents
      .slice(from, from + Math.max(0, limit))
      .flatMap((doc, i) => (doc === undefined ? [] : [{ seq: from + i, doc }]))
  }
  /** Browser profiles by owner and name, as JSON. */
  const profiles = new Map<string, string>()
  const profileKey = (owner: string | null, name: string) => `${owner ?? ""}\u0000${name}`
  let nextSeq = 0
  let nextTurn = 0
  const pageIndex = new MemoryPageIndex(options.indexMaxBytes ?? 64 * 1024 * 1024)
  const outbox = new MemoryOutbox(options.outboxCapacity ?? 10_000)
  const gates = new MemoryGates()
  const records = new MemoryRecords()
  const counters = new MemoryCounters()

  const lock = Effect.unsafeMakeSemaphore(1)
  const atomic = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.uninterruptible(lock.withPermits(1)(effect))

  const setDue = (jobRow: JobRow, row: TaskRow, dueAt: number | undefined): void => {
    if (row.dueKey !== undefined) jobRow.due = RedBlackTree.removeFirst(jobRow.due, row.dueKey)
    row.dueKey = dueAt === undefined ? undefined : [dueAt, row.seq]
    if (row.dueKey !== undefined) jobRow.due = RedBlackTree.insert(jobRow.due, row.dueKey, row)
  }

  /** Admits what the job takes of `proposed`; returns how many. The caller updates the job's `total`. */
  const admit = (jobRow: JobRow, proposed: ReadonlyArray<NewTask>): number => {
    const admitted = admissible(proposed, (key) => jobRow.keys.has(key), jobRow.job.limit - jobRow.job.total)
    for (const task of admitted) {
      const row: TaskRow = {
        id: newId(),
        jobId: jobRow.job.id,
        seq: nextSeq++,
        url: task.url,
        key: task.key,
        depth: task.depth,
        host: task.host,
        status: "pending",
        attempts: 0,
        notBefore: task.notBefore ?? 0,
        leaseOwner: undefined,
        leaseUntil: undefined,
        lastError: undefined,
        dueKey: undefined,
      }
      tasks.set(row.id, row)
      jobRow.keys.add(row.key)
      jobRow.tasks.push(row)
      setDue(jobRow, row, row.notBefore)
    }
    return admitted.length
  }

  /** Gives a task taken out of the queue its final status. */
  const settle = (row: TaskRow, status: TaskStatus): void => {
    row.dueKey = undefined
    row.status = status
    row.leaseOwner = undefined
    row.leaseUntil = undefined
  }

  /** Takes an open task out of the queue with its final status. */
  const close = (jobRow: JobRow, row: TaskRow, status: TaskStatus): void => {
    setDue(jobRow, row, undefined)
    jobRow.leased.delete(row)
    settle(row, status)
  }

  /**
   * Moves a `scraping` job to a terminal status, cancelling its open tasks. The queue is emptied at once: one removal
   * per task (O(log n) allocations each) held the process ~0.1 s for a crawl of 50 000 queued pages.
   */
  const terminate = (jobRow: JobRow, status: "cancelled" | "failed", now: number, error?: string): void => {
    for (const row of RedBlackTree.values(jobRow.due)) settle(row, "cancelled")
    jobRow.due = RedBlackTree.empty(dueOrder)
    jobRow.leased.clear()
    active.delete(jobRow)
    jobRow.job = {
      ...jobRow.job,
      status,
      updatedAt: now,
      completedAt: now,
      ...(error !== undefined ? { error } : {}),
    }
  }

  const stopJob = (id: string, now: number, status: "cancelled" | "failed", error?: string) =>
    atomic(
      Effect.sync(() => {
        const jobRow = jobs.get(id)
        if (jobRow === undefined) return Option.none()
        if (jobRow.job.status === "scraping") terminate(jobRow, status, now, error)
        return Option.some(jobRow.job)
      }),
    )

  /** Puts a leased task back in the queue (retry or defer). */
  const release = (task: Task, notBefore: number, failed: boolean, error?: TaskError) =>
    atomic(
      Effect.sync(() => {
        const row = tasks.get(task.id)
        const jobRow = row && jobs.get(row.jobId)
        if (!holds(row, task) || jobRow === undefined) return false
        jobRow.leased.delete(row)
        row.status = "pending"
        row.leaseOwner = undefined
        row.leaseUntil = undefined
        row.notBefore = notBefore
        if (failed) row.attempts += 1
        if (error !== undefined) row.lastError = error
        setDue(jobRow, row, notBefore)
        return true
      }),
    )

  const store: JobStoreShape = {
    createJob: (input, seeds) =>
      Effect.gen(function* () {
        // Stored values are what JSON gives back, as in the durable stores.
        const options = JSON.parse(yield* encodeJson(input.options)) as unknown
        const webhook = yield* encodeOptionalJson(input.webhook)
        return yield* atomic(
          Effect.suspend(() => {
            if (input.id !== undefined && jobs.has(input.id))
              return Effect.fail(new StoreError({ reason: "InvalidData", message: `Job ${input.id} already exists` }))
            const jobRow: JobRow = {
              job: {
                ...input,
                options,
                ...(webhook !== undefined ? { webhook: JSON.parse(webhook) as unknown } : {}),
                id: input.id ?? newId(),
                status: "scraping",
                total: 0,
                completed: 0,
                failed: 0,
                updatedAt: input.createdAt,
              },
              turn: 0,
              keys: new Set(),
              tasks: [],
              due: RedBlackTree.empty(dueOrder),
              leased: new Set(),
              documents: [],
              deletedBelow: 0,
              errors: [],
              robotsBlocked: new Set(),
            }
            jobs.set(jobRow.job.id, jobRow)
            const admitted = admit(jobRow, seeds)
            jobRow.job =
              admitted === 0
                ? { ...jobRow.job, status: "completed", completedAt: input.createdAt }
                : { ...jobRow.job, total: admitted }
            if (admitted > 0) active.add(jobRow)
            return Effect.succeed(jobRow.job)
          }),
        )
      }),

    getJob: (id) => Effect.sync(() => Option.fromNullable(jobs.get(id)?.job)),

    listJobs: (filter) =>
      Effect.sync(() =>
        Array.from(jobs.values(), (row) => row.job)
          .filter(
            (job) =>
              (filter.owner === undefined || job.owner === filter.owner) &&
              (filter.kind === undefined || job.kind === filter.kind) &&
              (filter.status === undefined || job.status === filter.status),
          )
          .sort((a, b) => a.createdAt - b.createdAt || compareIds(a, b)),
      ),

    cancelJob: (id, now) => stopJob(id, now, "cancelled"),
    failJob: (id, error, now) => stopJob(id, now, "failed", error),

    leaseTasks: ({ worker, now, leaseMs, max }) =>
      atomic(
        Effect.gen(function* () {
          const candidates = Array.from(active)
            .filter((row) => Option.exists(RedBlackTree.first(row.due), ([dueKey]) => dueKey[0] <= now))
            .sort((a, b) => a.turn - b.turn || a.job.createdAt - b.job.createdAt || compareIds(a.job, b.job))
          const leaseUntil = now + leaseMs
          const { tasks: leased, served } = yield* fairLease(
            candidates.map((row) => ({ id: row.job.id, owner: row.job.owner, maxConcurrency: row.job.maxConcurrency })),
            max,
            {
              liveLeases: (jobId) =>
                Effect.sync(() => {
                  let live = 0
                  for (const row of jobs.get(jobId)?.leased ?? []) if ((row.leaseUntil ?? 0) > now) live++
                  return live
                }),
              take: (jobId, n) =>
                Effect.sync(() => {
                  const jobRow = jobs.get(jobId)!
                  const due: Array<TaskRow> = []
                  for (const row of RedBlackTree.values(jobRow.due)) {
                    if (due.length >= n || row.dueKey![0] > now) break
                    due.push(row)
                  }
                  return due.map((row) => {
                    // A lease that ran out was an attempt that never reported back.
                    if (row.status === "leased") row.attempts += 1
                    row.status = "leased"
                    row.leaseOwner = worker
                    row.leaseUntil = leaseUntil
                    jobRow.leased.add(row)
                    setDue(jobRow, row, leaseUntil)
                    return snapshot(row)
                  })
                }),
            },
          )
          for (const jobId of served) jobs.get(jobId)!.turn = ++nextTurn
          return leased
        }),
      ),

    pendingWork: (now) =>
      atomic(
        Effect.sync(() => {
          let due = 0
          let nextDue: number | undefined
          for (const jobRow of active)
            for (const [[dueAt], row] of jobRow.due) {
              if (dueAt <= now) due++
              else if (row.status === "pending") {
                // The tree is in due order: this job's later tasks are due later still.
                if (nextDue === undefined || dueAt < nextDue) nextDue = dueAt
                break
              }
            }
          return { due, nextDue: Option.fromNullable(nextDue) }
        }),
      ),

    leaseHolders: (prefix) =>
      atomic(
        Effect.sync(() => {
          const holders = new Set<string>()
          for (const jobRow of jobs.values())
            for (const row of jobRow.leased) if (row.leaseOwner?.startsWith(prefix)) holders.add(row.leaseOwner)
          return [...holders]
        }),
      ),

    expireLeases: (holders, now) =>
      atomic(
        Effect.sync(() => {
          const gone = new Set(holders)
          let ended = 0
          for (const jobRow of jobs.values())
            for (const row of jobRow.leased)
              if (row.leaseOwner !== undefined && gone.has(row.leaseOwner)) {
                row.leaseUntil = now
                setDue(jobRow, row, now)
                ended++
              }
          return ended
        }),
      ),

    renewLease: (task, leaseUntil) =>
      atomic(
        Effect.sync(() => {
          const row = tasks.get(task.id)
          const jobRow = row && jobs.get(row.jobId)
          if (!holds(row, task) || jobRow === undefined) return Option.none()
          row.leaseUntil = leaseUntil
          setDue(jobRow, row, leaseUntil)
          return Option.some(snapshot(row))
        }),
      ),

    completeTask: (task, outcome) =>
      Effect.gen(function* () {
        const document = yield* encodeOptionalJson(outcome.document)
        const deliveries = yield* encodeTaskDeliveries(outcome.deliveries)
        let dropped = 0
        const result = yield* atomic(
          Effect.sync(() => {
            const row = tasks.get(task.id)
            const jobRow = jobs.get(row?.jobId ?? task.jobId)
            if (!holds(row, task) || jobRow === undefined)
              return { recorded: false, finished: false, job: Option.fromNullable(jobRow?.job) }
            const { now } = outcome
            let { completed, failed } = jobRow.job
            if (document !== undefined) {
              jobRow.documents.push({ url: row.url, json: document, createdAt: now })
              completed += 1
              close(jobRow, row, "done")
            } else if (outcome.error !== undefined) {
              const { code, message } = outcome.error
              jobRow.errors.push({ id: row.id, jobId: row.jobId, url: row.url, code, message, at: now })
              failed += 1
              close(jobRow, row, "failed")
            } else {
              close(jobRow, row, "done")
            }
            const total = jobRow.job.total + admit(jobRow, outcome.discovered)
            for (const url of outcome.robotsBlocked) jobRow.robotsBlocked.add(url)
            const finished = RedBlackTree.size(jobRow.due) === 0
            jobRow.job = {
              ...jobRow.job,
              total,
              completed,
              failed,
              updatedAt: now,
              ...(finished ? { status: "completed" as const, completedAt: now } : {}),
            }
            if (finished) active.delete(jobRow)
            for (const delivery of deliveriesToQueue(deliveries, finished)) if (!outbox.add(delivery)) dropped++
            return { recorded: true, finished, job: Option.some(jobRow.job) }
          }),
        )
        // As `enqueueDelivery` refuses them: the bound keeps a dead receiver from filling the process.
        if (dropped > 0)
          yield* Effect.logWarning(`${dropped} webhook delivery(ies) of job ${task.jobId} dropped: the outbox is full`)
        return result
      }),

    retryTask: (task, { notBefore, error }) => release(task, notBefore, true, error),
    deferTask: (task, notBefore) => release(task, notBefore, false),

    addTasks: (jobId, proposed, now) =>
      atomic(
        Effect.sync(() => {
          const jobRow = jobs.get(jobId)
          if (jobRow === undefined || jobRow.job.status === "cancelled" || jobRow.job.status === "failed") return 0
          const admitted = admit(jobRow, proposed)
          if (admitted === 0) return 0
          jobRow.job = {
            ...withoutCompletedAt(jobRow.job),
            status: "scraping",
            total: jobRow.job.total + admitted,
            updatedAt: now,
          }
          active.add(jobRow)
          return admitted
        }),
      ),

    getTask: (id) => Effect.sync(() => Option.map(Option.fromNullable(tasks.get(id)), snapshot)),

    documents: (jobId, page) =>
      Effect.sync(() =>
        documentsOf(jobId, page).map(
          ({ seq, doc }): StoredDocument => ({
            jobId,
            seq,
            url: doc.url,
            document: JSON.parse(doc.json) as unknown,
            createdAt: doc.createdAt,
          }),
        ),
      ),

    readNow: {
      job: (id) => jobs.get(id)?.job,
      documentTexts: (jobId, page) => documentsOf(jobId, page).map(({ seq, doc }) => ({ seq, json: doc.json })),
    },

    countDocuments: (jobId) =>
      Effect.sync(() => {
        const jobRow = jobs.get(jobId)
        return jobRow === undefined ? 0 : jobRow.documents.length - jobRow.deletedBelow
      }),

    deleteDocuments: (jobId, beforeSeq) =>
      Effect.sync(() => {
        const jobRow = jobs.get(jobId)
        if (jobRow === undefined) return 0
        const end = Math.min(Math.max(0, beforeSeq), jobRow.documents.length)
        const deleted = Math.max(0, end - jobRow.deletedBelow)
        for (let seq = jobRow.deletedBelow; seq < end; seq++) jobRow.documents[seq] = undefined
        jobRow.deletedBelow = Math.max(jobRow.deletedBelow, end)
        return deleted
      }),

    errors: (jobId) =>
      Effect.sync(() => {
        const jobRow = jobs.get(jobId)
        return { errors: [...(jobRow?.errors ?? [])], robotsBlocked: [...(jobRow?.robotsBlocked ?? [])] }
      }),

    putScrape: (scrape) =>
      Effect.map(encodeScrapeDocument(scrape), (json) => {
        scrapes.set(scrape.id, { owner: scrape.owner, json, expiresAt: scrape.expiresAt })
      }),

    getScrape: (id) =>
      Effect.sync(() =>
        Option.map(Option.fromNullable(scrapes.get(id)), ({ owner, json, expiresAt }) => ({
          id,
          owner,
          document: JSON.parse(json) as unknown,
          expiresAt,
        })),
      ),

    getProfile: (owner, name) =>
      Effect.sync(() => {
        const json = profiles.get(profileKey(owner, name))
        return Option.map(Option.fromNullable(json), (text) => JSON.parse(text) as unknown)
      }),

    putProfile: (owner, name, state) =>
      Effect.map(encodeJson(state), (json) => {
        profiles.set(profileKey(owner, name), json)
      }),

    cacheGet: (key) => Effect.sync(() => Option.fromNullable(cache.get(key))),
    cacheSet: (key, page) =>
      Effect.sync(() => {
        cache.set(key, { ...page })
      }),

    indexPage: (page) => atomic(Effect.sync(() => pageIndex.put({ ...page }))),
    searchIndex: (search) => Effect.sync(() => pageIndex.search(search)),

    enqueueDelivery: (delivery) =>
      Effect.flatMap(encodeDelivery(delivery), (encoded) => atomic(Effect.sync(() => outbox.add(encoded)))),
    leaseDeliveries: (request) => atomic(Effect.sync(() => outbox.lease(request))),
    finishDelivery: (delivery) => atomic(Effect.sync(() => outbox.finish(delivery))),
    retryDelivery: (delivery, notBefore) => atomic(Effect.sync(() => outbox.retry(delivery, notBefore))),

    passGates: (list, now) => atomic(Effect.sync(() => Option.fromNullable(gates.pass(list, now)))),
    holdGate: (key, until) => atomic(Effect.sync(() => gates.hold(key, until))),

    putRecord: (write) =>
      Effect.flatMap(encodeJson(write.value), (json) => atomic(Effect.sync(() => records.put(write, json)))),
    getRecord: (kind, id) => Effect.sync(() => records.get(kind, id)),
    listRecords: (query) => Effect.sync(() => records.list(query)),
    dueRecords: (kind, now, limit) => Effect.sync(() => records.due(kind, now, limit)),
    deleteRecord: (kind, id) => atomic(Effect.sync(() => records.delete(kind, id))),

    addToCounter: (name, by, expiresAt) =>
      Effect.flatMap(counterIncrement(by), (amount) =>
        atomic(Effect.sync(() => counters.add(name, amount, expiresAt))),
      ),
    readCounters: (names) => Effect.sync(() => counters.read(names)),

    news: Stream.never,

    purgeExpired: (now, purge = {}) =>
      atomic(
        Effect.sync(() => {
          const counts = {
            jobs: 0,
            tasks: 0,
            documents: 0,
            errors: 0,
            scrapes: 0,
            cache: 0,
            indexed: 0,
            deliveries: 0,
            records: records.purge(now),
            counters: counters.purge(now),
          }
          for (const [id, jobRow] of jobs) {
            if (jobRow.job.expiresAt > now) continue
            for (const row of jobRow.tasks) tasks.delete(row.id)
            counts.jobs += 1
            counts.tasks += jobRow.tasks.length
            counts.documents += jobRow.documents.length - jobRow.deletedBelow
            counts.errors += jobRow.errors.length
            counts.deliveries += outbox.dropJob(id)
            active.delete(jobRow)
            jobs.delete(id)
          }
          gates.purge(now)
          const expired = Array.from(scrapes.entries()).filter(([, scrape]) => scrape.expiresAt <= now)
          for (const [id] of expired) scrapes.delete(id)
          counts.scrapes = expired.length
          const { cacheBefore } = purge
          if (cacheBefore !== undefined) {
            const stale = Array.from(cache.entries()).filter(([, page]) => page.cachedAt < cacheBefore)
            for (const [key] of stale) cache.delete(key)
            counts.cache = stale.length
          }
          const { indexBefore } = purge
          if (indexBefore !== undefined) counts.indexed = pageIndex.purgeBefore(indexBefore)
          return counts
        }),
      ),
  }
  return store
}

export const layer = (options: MemoryJobStoreOptions = {}): Layer.Layer<JobStore> =>
  Layer.sync(JobStore, () => make(options))
