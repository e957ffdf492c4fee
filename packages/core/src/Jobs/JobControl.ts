/**
 * Reading and steering jobs, for the API and the library: status with paged documents, cancel, errors, the list of
 * running crawls, and a stream of a job's documents as they are recorded. Every call names the caller (`Owner`):
 * another owner's job answers exactly like an unknown one.
 */
import { Chunk, Context, Duration, Effect, Layer, Option, Stream } from "effect"
import type { Document } from "../Domain/Document.js"
import { RequestError } from "../Errors.js"
import { type Job, type JobErrors, type JobHead, type JobKind, JobStore, type StoreError } from "./JobStore.js"
import { JobsConfig } from "./JobsConfig.js"
import type { Owner } from "./Owner.js"
import { WorkSignal } from "./WorkSignal.js"

/** Documents per status page unless the caller asks for fewer (`JobsConfig.statusPageBytes` bounds its size). */
export const DEFAULT_PAGE_SIZE = 100
const WATCH_POLL_MS = 250

/** A status page as the API sends it: the job and its documents' JSON texts. */
export interface StatusTexts {
  readonly job: JobHead
  /** Each document's JSON text, in order: what the status answer sends, serialised once or not at all. */
  readonly texts: ReadonlyArray<string>
  /** Where the next page starts, while the job runs or more documents remain. */
  readonly nextSkip?: number
}

export interface StatusPage extends StatusTexts {
  readonly job: Job
  /** The documents of `texts`, in the same order. */
  readonly documents: ReadonlyArray<Document>
}

/** Which page a status request asks for. */
export interface StatusRequest {
  readonly skip: number
  readonly limit?: number
}

/** The documents a page reads at most: what the caller asked for, 1 to 1000. */
const pageLimit = (page: StatusRequest): number => Math.max(1, Math.min(page.limit ?? DEFAULT_PAGE_SIZE, 1000))

/**
 * The documents a page sends, of those read (`stored`, in order; `textOf` gives one's JSON text): at least one, then
 * as many as fit in `maxBytes`; where the next page starts, and whether there is one.
 */
const fillPage = <A extends { readonly seq: number }>(
  job: JobHead,
  skip: number,
  stored: ReadonlyArray<A>,
  textOf: (entry: A) => string,
  maxBytes: number,
): { readonly texts: ReadonlyArray<string>; readonly nextSkip: number; readonly more: boolean } => {
  const texts: Array<string> = []
  let bytes = 0
  for (const entry of stored) {
    const text = textOf(entry)
    bytes += text.length
    if (texts.length > 0 && bytes > maxBytes) break
    texts.push(text)
  }
  const last = texts.length > 0 ? (stored[texts.length - 1]?.seq ?? skip) : skip - 1
  const nextSkip = Math.max(skip, last + 1)
  return { texts, nextSkip, more: !isTerminal(job) || nextSkip < job.completed }
}

export type CancelOutcome = "cancelled" | "already-completed"

const notFound = () => new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Job not found" })

export const isTerminal = (job: JobHead): boolean => job.status !== "scraping"

/**
 * The `total` a status answer reports: Firecrawl leaves failed pages out; once the job has ended, what it has is all
 * there is (so `completed === total`).
 */
export const reportedTotal = (job: JobHead): number => (isTerminal(job) ? job.completed : job.total - job.failed)

export class JobControl extends Context.Tag("@webdata/core/JobControl")<
  JobControl,
  {
    /** The job if it exists, is of `kind` and belongs to `owner`; else a 404. */
    readonly get: (kind: JobKind, id: string, owner: Owner) => Effect.Effect<Job, RequestError | StoreError>
    readonly status: (
      kind: JobKind,
      id: string,
      owner: Owner,
      page: StatusRequest,
    ) => Effect.Effect<StatusPage, RequestError | StoreError>
    /**
     * `status` as texts, read synchronously (`JobStore.readNow`), for the status poll's fast path; undefined whenever
     * it takes more than reads (the store has no such reads; no such job of the owner: the 404 is `status`'s; zero
     * data retention deletes what a page delivers). A store failure throws.
     */
    readonly statusNow: (kind: JobKind, id: string, owner: Owner, page: StatusRequest) => StatusTexts | undefined
    readonly cancel: (
      kind: JobKind,
      id: string,
      owner: Owner,
    ) => Effect.Effect<CancelOutcome, RequestError | StoreError>
    readonly errors: (kind: JobKind, id: string, owner: Owner) => Effect.Effect<JobErrors, RequestError | StoreError>
    /** Running jobs of `kind` that belong to `owner`. */
    readonly active: (kind: JobKind, owner: Owner) => Effect.Effect<ReadonlyArray<Job>, StoreError>
    /**
     * The job's documents from `skip` on, as they are recorded, ending when the job has ended and every document was
     * emitted. The job must exist (`get` first).
     */
    readonly documents: (id: string, skip: number) => Stream.Stream<Document, StoreError>
    /**
     * Keeps a scrape's document for `GET /v2/scrape/{id}` for the job TTL (not with zero data retention);
     * `documentJson` is its JSON text when the caller has it (the answer it sends), not made again.
     */
    readonly keepScrape: (document: Document, owner: Owner, documentJson?: string) => Effect.Effect<void, StoreError>
    /** A kept scrape of `owner`; else a 404. */
    readonly getScrape: (id: string, owner: Owner) => Effect.Effect<Document, RequestError | StoreError>
  }
>() {}

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const signal = yield* WorkSignal
  const config = yield* JobsConfig

  // Untraced, as is `status`: a status poll, the most frequent request, runs in the request's span, and a span costs
  // ~15 µs of CPU (measured), a tenth of the poll's.
  const get = Effect.fnUntraced(function* (kind: JobKind, id: string, owner: Owner) {
    const job = yield* store.getJob(id)
    if (Option.isNone(job) || job.value.kind !== kind) return yield* notFound()
    // Jobs made without a key (open server, library) are everyone's; a keyed job only its key's.
    if (job.value.owner !== null && job.value.owner !== owner) return yield* notFound()
    return job.value
  })

  const status = Effect.fnUntraced(function* (kind: JobKind, id: string, owner: Owner, page: StatusRequest) {
    const job = yield* get(kind, id, owner)
    const stored = yield* store.documents(id, { skip: page.skip, limit: pageLimit(page) })
    const { texts, nextSkip, more } = fillPage(
      job,
      page.skip,
      stored,
      (entry) => entry.json ?? JSON.stringify(entry.document),
      config.statusPageBytes,
    )
    // Zero data retention: what was delivered is deleted at once.
    if (job.zeroDataRetention && texts.length > 0) yield* store.deleteDocuments(id, nextSkip)
    return {
      job,
      documents: stored.slice(0, texts.length).map((entry) => entry.document as Document),
      texts,
      ...(more ? { nextSkip } : {}),
    } satisfies StatusPage
  })

  const statusNow = (kind: JobKind, id: string, owner: Owner, page: StatusRequest): StatusTexts | undefined => {
    const reads = store.readNow
    const job = reads?.job(id)
    if (reads === undefined || job === undefined || job.kind !== kind || job.zeroDataRetention) return undefined
    if (job.owner !== null && job.owner !== owner) return undefined
    const stored = reads.documentTexts(id, { skip: page.skip, limit: pageLimit(page) })
    const { texts, nextSkip, more } = fillPage(job, page.skip, stored, (entry) => entry.json, config.statusPageBytes)
    return { job, texts, ...(more ? { nextSkip } : {}) }
  }

  const cancel = Effect.fn("JobControl.cancel")(function* (kind: JobKind, id: string, owner: Owner) {
    const job = yield* get(kind, id, owner)
    if (job.status === "completed") return "already-completed" as const
    yield* store.cancelJob(id, Date.now())
    yield* signal.publish({ _tag: "JobCancelled", jobId: id })
    return "cancelled" as const
  })

  const errors = Effect.fn("JobControl.errors")(function* (kind: JobKind, id: string, owner: Owner) {
    yield* get(kind, id, owner)
    return yield* store.errors(id)
  })

  const active = (kind: JobKind, owner: Owner) => store.listJobs({ kind, owner, status: "scraping" })

  const documents = (id: string, skip: number): Stream.Stream<Document, StoreError> =>
    Stream.paginateChunkEffect(skip, (from) =>
      Effect.gen(function* () {
        const before = yield* store.getJob(id)
        const page = yield* store.documents(id, { skip: from, limit: DEFAULT_PAGE_SIZE })
        const next = from + page.length
        const ended = Option.isNone(before) || isTerminal(before.value)
        // A job that had ended before this read has nothing more to give once a short page comes back.
        const chunk = Chunk.fromIterable(page.map((entry) => entry.document as Document))
        if (ended && page.length < DEFAULT_PAGE_SIZE) return [chunk, Option.none<number>()] as const
        if (page.length === 0) yield* Effect.sleep(Duration.millis(WATCH_POLL_MS))
        return [chunk, Option.some(next)] as const
      }),
    )

  const keepScrape = (document: Document, owner: Owner, documentJson?: string) =>
    store.putScrape({
      id: document.metadata.scrapeId,
      owner,
      document,
      documentJson,
      expiresAt: Date.now() + config.jobTtlMs,
    })

  const getScrape = Effect.fn("JobControl.getScrape")(function* (id: string, owner: Owner) {
    const found = yield* store.getScrape(id)
    if (Option.isNone(found)) return yield* notFound()
    const scrape = found.value
    if (scrape.expiresAt <= Date.now() || (scrape.owner !== null && scrape.owner !== owner)) return yield* notFound()
    return scrape.document as Document
  })

  return { get, status, statusNow, cancel, errors, active, documents, keepScrape, getScrape }
})

export const layer: Layer.Layer<JobControl, never, JobStore | WorkSignal | JobsConfig> = Layer.effect(JobControl, make)
