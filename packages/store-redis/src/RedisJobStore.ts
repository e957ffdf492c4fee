/**
 * The JobStore on Redis (ioredis): many API and worker processes on many machines share one Redis. Every operation
 * that touches more than one key is one Lua script (`scripts/`), which Redis runs whole with nothing in between: the
 * atomicity the port asks for. The news of other processes' work comes over pub/sub.
 *
 * Every key of a job expires a grace period after the job does (see `EXPIRY_GRACE_MS`), so memory stays bounded by
 * the job TTL even when no worker purges; `purgeExpired` deletes expired jobs first and counts what they held.
 * Redis must not evict (`maxmemory-policy noeviction`, checked at start) and should persist with AOF: see README.md.
 */
import {
  admissible,
  decodeJson,
  type EncodedDelivery,
  encodeDelivery,
  encodeJson,
  encodeOptionalJson,
  encodeScrapeDocument,
  encodeTaskDeliveries,
  type Job,
  JobStore,
  type JobStoreShape,
  type NewTask,
  newId,
  StoreError,
  type Task,
  type TaskError,
} from "@webdata/core/jobs"
import { Effect, Layer, Option } from "effect"
import * as Connection from "./Connection.js"
import * as Counters from "./Counters.js"
import { type KeyName, keys } from "./Keys.js"
import * as News from "./News.js"
import {
  fieldsOf,
  toCachedPage,
  toDelivery,
  toDocument,
  toErrorRecord,
  toIndexedPage,
  toJob,
  toStoredScrape,
  toTask,
} from "./Records.js"
import { type Arg, asList, command, type Reply, run, type Script } from "./Script.js"
import { pageTerms } from "./SearchTerms.js"
import * as StoredRecords from "./StoredRecords.js"
import * as gates from "./scripts/gates.js"
import * as jobs from "./scripts/jobs.js"
import * as kept from "./scripts/kept.js"
import * as leases from "./scripts/leases.js"
import * as outbox from "./scripts/outbox.js"
import * as purge from "./scripts/purge.js"
import * as records from "./scripts/records.js"
import * as results from "./scripts/results.js"
import * as searchIndex from "./scripts/searchIndex.js"

export interface RedisJobStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS. */
  readonly url: string
  /** Put before every key and the news channel, so several stores can share one Redis. Default `webdata:`. */
  readonly prefix?: string
  /** How long the start waits for Redis before the layer fails. Default 5000 ms. */
  readonly connectTimeoutMs?: number
}

export const DEFAULT_PREFIX = "webdata:"

/** About how many keys one slice of `purgeExpired` deletes (see `scripts/purge.ts`). */
const PURGE_BUDGET = 2_000

/** The script arguments of proposed tasks: a fresh id and the task's fields (see the `admit` Lua helper). */
/** A delivery's arguments (see the scripts' `queueDelivery`); an absent one is four empty entries. */
const deliveryArgs = (delivery: EncodedDelivery | undefined): ReadonlyArray<Arg> =>
  delivery === undefined ? ["", "", "", ""] : [newId(), delivery.jobId, delivery.json, delivery.createdAt]

const taskArgs = (tasks: ReadonlyArray<NewTask>): ReadonlyArray<Arg> =>
  tasks.flatMap((task) => [newId(), task.url, task.key, task.depth, task.host, task.notBefore ?? 0])

/** Duplicate keys among the proposed tasks dropped (and at most `room` kept) before they travel to Redis. */
const distinct = (tasks: ReadonlyArray<NewTask>, room = Number.POSITIVE_INFINITY) =>
  admissible(tasks, () => false, room)

/** The arguments that identify a lease: the task and the lease it was given. */
const leaseOf = (task: Task): ReadonlyArray<Arg> => [task.id, task.leaseOwner ?? "", task.leaseUntil ?? ""]

const jobOf = (reply: Reply): Effect.Effect<Option.Option<Job>, StoreError> =>
  Effect.map(toJob(fieldsOf(reply)), Option.fromNullable)

/** The store on connected, subscribed `clients`, its keys under `prefix` (`layer` does both). */
export const make = (clients: Connection.RedisClients, prefix: string): JobStoreShape => {
  const redis = clients.commands
  const key = keys(prefix)
  const exec = (target: Script, args?: ReadonlyArray<Arg>) => run(redis, prefix, target, args)

  /** Runs a purge script until it has nothing left; returns its counts summed over the slices. */
  const drain = (target: Script, args: ReadonlyArray<Arg>) =>
    Effect.gen(function* () {
      let totals: ReadonlyArray<number> = []
      for (;;) {
        const [more, ...counts] = (yield* exec(target, [...args, PURGE_BUDGET])) as ReadonlyArray<number>
        totals = counts.map((count, i) => count + (totals[i] ?? 0))
        if (more !== 1) return totals
      }
    })

  /** Deletes the records whose time in the sorted set `times` is at most `max`; `stem` names their keys. */
  const purgeRecords = (times: KeyName, stem: KeyName, max: Arg) => drain(purge.purgeRecords, [times, stem, max])

  const stopJob = (id: string, now: number, status: "cancelled" | "failed", error?: string) =>
    Effect.flatMap(exec(jobs.stopJob, [id, status, now, ...(error !== undefined ? [error] : [])]), jobOf)

  const release = (task: Task, notBefore: number, attempt: 0 | 1, error?: TaskError) =>
    Effect.map(
      exec(leases.releaseTask, [
        ...leaseOf(task),
        notBefore,
        attempt,
        ...(error !== undefined ? [error.code, error.message] : []),
      ]),
      (reply) => reply === 1,
    )

  const profileField = (owner: string | null, name: string) => `${owner ?? ""}\u0000${name}`

  const store: JobStoreShape = {
    createJob: (input, seeds) =>
      Effect.gen(function* () {
        const options = yield* encodeJson(input.options)
        const webhook = yield* encodeOptionalJson(input.webhook)
        const fields: ReadonlyArray<Arg> = [
          ...["kind", input.kind, "options", options, "limit", input.limit],
          ...["zeroDataRetention", input.zeroDataRetention ? 1 : 0],
          ...(input.owner !== null ? ["owner", input.owner] : []),
          ...(input.url !== undefined ? ["url", input.url] : []),
          ...(input.maxConcurrency !== undefined ? ["maxConcurrency", input.maxConcurrency] : []),
          ...(input.delayMs !== undefined ? ["delayMs", input.delayMs] : []),
          ...(webhook !== undefined ? ["webhook", webhook] : []),
        ]
        const id = input.id ?? newId()
        const reply = yield* exec(jobs.createJob, [
          id,
          input.createdAt,
          input.expiresAt,
          fields.length,
          ...fields,
          ...taskArgs(distinct(seeds, input.limit)),
        ])
        if (reply === null) return yield* new StoreError({ reason: "InvalidData", message: `Job ${id} already exists` })
        const job = yield* toJob(fieldsOf(reply))
        if (job === undefined)
          return yield* new StoreError({ reason: "QueryFailed", message: "Redis did not keep the job it created" })
        return job
      }),

    getJob: (id) =>
      Effect.flatMap(
        command("HGETALL", () => redis.hgetall(key.job(id))),
        (fields) => Effect.map(toJob(fields), Option.fromNullable),
      ),

    listJobs: (filter) =>
      Effect.flatMap(
        exec(jobs.listJobs, [
          filter.owner === undefined ? "any" : filter.owner === null ? "null" : "is",
          filter.owner ?? "",
          filter.kind ?? "",
          filter.status ?? "",
        ]),
        (reply) =>
          Effect.map(
            Effect.forEach(asList(reply), (hash) => toJob(fieldsOf(hash))),
            (found) => found.filter((job) => job !== undefined),
          ),
      ),

    cancelJob: (id, now) => stopJob(id, now, "cancelled"),
    failJob: (id, error, now) => stopJob(id, now, "failed", error),

    leaseTasks: ({ worker, now, leaseMs, max }) =>
      Effect.flatMap(exec(leases.leaseTasks, [worker, now, now + leaseMs, max]), (reply) =>
        Effect.forEach(asList(reply), (task) => toTask(task)),
      ),

    pendingWork: (now) =>
      Effect.map(exec(leases.pendingWork, [now]), (reply) => {
        const [due, nextDue] = asList(reply)
        // The time is the score as Redis writes it (text), so exact.
        return { due: Number(due), nextDue: Option.map(Option.fromNullable(nextDue), Number) }
      }),

    leaseHolders: (prefixOfNames) =>
      Effect.map(exec(leases.leaseHolders, [prefixOfNames]), (reply) => asList(reply).map(String)),

    expireLeases: (holders, now) =>
      holders.length === 0
        ? Effect.succeed(0)
        : Effect.map(exec(leases.expireLeases, [now, ...holders]), (reply) => Number(reply)),

    renewLease: (task, leaseUntil) =>
      Effect.flatMap(exec(leases.renewLease, [...leaseOf(task), leaseUntil]), (reply) =>
        reply === null ? Effect.succeedNone : Effect.asSome(toTask(reply)),
      ),

    completeTask: (task, outcome) =>
      Effect.gen(function* () {
        const document = yield* encodeOptionalJson(outcome.document)
        const deliveries = yield* encodeTaskDeliveries(outcome.deliveries)
        const result =
          document !== undefined
            ? ["document", document, ""]
            : outcome.error !== undefined
              ? ["error", outcome.error.code, outcome.error.message]
              : ["none", "", ""]
        const [recorded, finished, job] = (yield* exec(leases.completeTask, [
          task.id,
          task.jobId,
          task.leaseOwner ?? "",
          task.leaseUntil ?? "",
          outcome.now,
          ...result,
          outcome.robotsBlocked.length,
          ...outcome.robotsBlocked,
          ...deliveryArgs(deliveries.page),
          ...deliveryArgs(deliveries.completed),
          ...taskArgs(distinct(outcome.discovered)),
        ])) as ReadonlyArray<Reply>
        return { recorded: recorded === 1, finished: finished === 1, job: yield* jobOf(job ?? null) }
      }),

    retryTask: (task, { notBefore, error }) => release(task, notBefore, 1, error),
    deferTask: (task, notBefore) => release(task, notBefore, 0),

    addTasks: (jobId, proposed, now) =>
      proposed.length === 0
        ? Effect.succeed(0)
        : Effect.map(exec(jobs.addTasks, [jobId, now, ...taskArgs(distinct(proposed))]), (reply) => Number(reply)),

    getTask: (id) =>
      Effect.flatMap(exec(jobs.getTask, [id]), (reply) => {
        if (reply === null) return Effect.succeedNone
        const [task, jobStatus] = reply as ReadonlyArray<Reply>
        return Effect.asSome(toTask(task ?? null, jobStatus ?? null))
      }),

    documents: (jobId, { skip, limit }) =>
      limit <= 0
        ? Effect.succeed([])
        : Effect.flatMap(
            exec(results.documents, [jobId, Math.max(0, Math.trunc(skip)), Math.trunc(limit)]),
            (reply) => {
              const flat = asList(reply)
              return Effect.forEach(
                Array.from({ length: flat.length / 2 }, (_, i) => i * 2),
                (i) => toDocument(jobId, flat[i] ?? null, flat[i + 1] ?? null),
              )
            },
          ),

    countDocuments: (jobId) => command("HLEN", () => redis.hlen(key.jobPart(jobId, "docs"))),

    deleteDocuments: (jobId, beforeSeq) =>
      Effect.map(exec(results.deleteDocuments, [jobId, Math.trunc(beforeSeq)]), (reply) => Number(reply)),

    errors: (jobId) =>
      Effect.flatMap(exec(results.errors, [jobId]), (reply) => {
        const [records, robotsBlocked] = asList(reply)
        return Effect.map(
          Effect.forEach(asList(records ?? null), (record) => toErrorRecord(jobId, record)),
          (errors) => ({ errors, robotsBlocked: asList(robotsBlocked ?? null).map(String) }),
        )
      }),

    putScrape: (scrape) =>
      Effect.flatMap(encodeScrapeDocument(scrape), (json) =>
        Effect.asVoid(
          exec(kept.putScrape, [
            scrape.id,
            scrape.expiresAt,
            "document",
            json,
            ...(scrape.owner !== null ? ["owner", scrape.owner] : []),
          ]),
        ),
      ),

    getScrape: (id) =>
      Effect.flatMap(
        command("HGETALL", () => redis.hgetall(key.scrape(id))),
        (fields) => Effect.map(toStoredScrape(id, fields), Option.fromNullable),
      ),

    getProfile: (owner, name) =>
      Effect.flatMap(
        command("HGET", () => redis.hget(key.named("profiles"), profileField(owner, name))),
        (json) => (json === null ? Effect.succeedNone : Effect.asSome(decodeJson(json))),
      ),

    putProfile: (owner, name, state) =>
      Effect.flatMap(encodeJson(state), (json) =>
        Effect.asVoid(command("HSET", () => redis.hset(key.named("profiles"), profileField(owner, name), json))),
      ),

    cacheGet: (cacheKey) =>
      Effect.flatMap(
        command("HGETALL", () => redis.hgetall(key.cache(cacheKey))),
        (fields) => Effect.map(toCachedPage(fields), Option.fromNullable),
      ),

    cacheSet: (cacheKey, page) =>
      Effect.asVoid(
        exec(kept.cacheSet, [
          cacheKey,
          page.cachedAt,
          ...["url", page.url, "statusCode", page.statusCode, "body", page.body],
          ...(page.contentType !== undefined ? ["contentType", page.contentType] : []),
          ...(page.file !== undefined ? ["file", JSON.stringify(page.file)] : []),
        ]),
      ),

    indexPage: (page) => {
      const { lengths, postings } = pageTerms(page)
      const fields = [
        ...["content", page.content],
        ...(page.owner !== null ? ["owner", page.owner] : []),
        ...(page.title !== undefined ? ["title", page.title] : []),
        ...(page.description !== undefined ? ["description", page.description] : []),
      ]
      return Effect.asVoid(
        exec(searchIndex.indexPage, [
          page.owner ?? "",
          page.url,
          page.scrapedAt,
          lengths.join(" "),
          fields.length,
          ...fields,
          ...postings.flat(),
        ]),
      )
    },

    searchIndex: (search) =>
      search.limit <= 0
        ? Effect.succeed([])
        : Effect.flatMap(
            exec(searchIndex.searchIndex, [
              search.owner === undefined ? 0 : 1,
              search.owner ?? "",
              search.from ?? "",
              search.to ?? "",
              search.newestFirst ? 1 : 0,
              Math.max(0, Math.trunc(search.offset)),
              Math.trunc(search.limit),
              search.match,
              search.prefixLast ? 1 : 0,
              ...search.terms,
            ]),
            (reply) => Effect.forEach(asList(reply), toIndexedPage),
          ),

    enqueueDelivery: (delivery) =>
      Effect.flatMap(encodeDelivery(delivery), (encoded) =>
        Effect.as(exec(outbox.enqueueDelivery, deliveryArgs(encoded)), true),
      ),

    leaseDeliveries: ({ worker, now, leaseMs, max }) => {
      const leaseUntil = now + leaseMs
      return Effect.flatMap(exec(outbox.leaseDeliveries, [worker, now, leaseUntil, max]), (reply) =>
        Effect.forEach(asList(reply), (delivery) => toDelivery(delivery, worker, leaseUntil)),
      )
    },

    finishDelivery: (delivery) =>
      Effect.map(
        exec(outbox.finishDelivery, [delivery.id, delivery.jobId, delivery.leaseOwner, delivery.leaseUntil]),
        (reply) => reply === 1,
      ),

    retryDelivery: (delivery, notBefore) =>
      Effect.map(
        exec(outbox.retryDelivery, [delivery.id, delivery.jobId, delivery.leaseOwner, delivery.leaseUntil, notBefore]),
        (reply) => reply === 1,
      ),

    passGates: (list, now) =>
      Effect.map(exec(gates.passGates, [now, ...list.flatMap((gate) => [gate.key, gate.spacingMs])]), (reply) =>
        reply === null ? Option.none() : Option.some(Number(reply)),
      ),

    holdGate: (gateKey, until) => Effect.map(exec(gates.holdGate, [gateKey, until]), (reply) => Number(reply)),

    ...StoredRecords.make(exec),
    ...Counters.make(redis, prefix, exec),

    news: News.stream(clients.subscriber, prefix),

    purgeExpired: (now, options = {}) =>
      Effect.gen(function* () {
        const [jobCount = 0, tasks = 0, documents = 0, errors = 0, deliveries = 0] = yield* drain(purge.purgeJobs, [
          now,
        ])
        const [scrapes = 0] = yield* purgeRecords("scrapes", "scrape", now)
        const [recordCount = 0] = yield* drain(records.purgeExpiredRecords, [now])
        // What the purge deleted: a counter Redis already dropped (an hour past its expiry, see addToCounter) is not
        // counted.
        const [counters = 0] = yield* purgeRecords("counters", "counter", now)
        yield* exec(purge.purgeGates, [now])
        const { cacheBefore, indexBefore } = options
        // Exclusive: entries cached before `cacheBefore`.
        const [cache = 0] =
          cacheBefore === undefined ? [] : yield* purgeRecords("cacheTimes", "cache", `(${cacheBefore}`)
        const [indexed = 0] = indexBefore === undefined ? [] : yield* drain(purge.purgeIndex, [indexBefore])
        return {
          jobs: jobCount,
          tasks,
          documents,
          errors,
          scrapes,
          cache,
          indexed,
          deliveries,
          records: recordCount,
          counters,
        }
      }),
  }
  return store
}

/**
 * The store on the Redis at `options.url`: its connections open when the layer is built (failing with "Unavailable"
 * when Redis does not answer within `connectTimeoutMs`) and close with the layer's scope. Closing deletes nothing.
 */
export const layer = (options: RedisJobStoreOptions): Layer.Layer<JobStore, StoreError> =>
  Layer.scoped(
    JobStore,
    Effect.gen(function* () {
      const prefix = options.prefix ?? DEFAULT_PREFIX
      const clients = yield* Connection.acquire({
        url: options.url,
        connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      })
      yield* command("SUBSCRIBE", () => clients.subscriber.subscribe(News.channel(prefix)))
      return make(clients, prefix)
    }),
  )
