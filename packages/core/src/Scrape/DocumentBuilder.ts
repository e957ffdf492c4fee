/**
 * Where pages become documents. The content pipeline is synchronous CPU work (tens of milliseconds for a large page),
 * so a server or a crawl worker runs it on content threads: the event loop stays free for requests and fetches, the
 * machine's other cores do the parsing, and a page that needs more memory than a thread may have (a hostile one)
 * fails alone with a clear error instead of taking the process down. Small pages still run on the caller's thread
 * while the threads are idle and pages come one at a time (a lone request does not pay for the hand-over). The inline
 * layer runs every page on the caller's thread (the library's default, and tests).
 */

import { availableParallelism } from "node:os"
import type { Worker } from "node:worker_threads"
import { Config, Context, Effect, Layer } from "effect"
import type { Document } from "../Domain/Document.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { ScrapeError } from "../Errors.js"
import { lazyModule } from "../Process/LazyModule.js"
import { startModuleWorker } from "../Process/ModuleWorker.js"
import type { BuildExtras, PageContent, Provenance } from "./BuildDocument.js"
import { withdraw, withdrawnPages } from "./WithdrawnPages.js"

export interface BuildRequest {
  readonly id: number
  readonly options: ScrapeOptions
  readonly page: PageContent
  readonly provenance: Provenance
  readonly extras?: BuildExtras | undefined
}

export type BuildReply =
  | { readonly id: number; readonly document: Document }
  | { readonly id: number; readonly error: string }

export class DocumentBuilder extends Context.Tag("@webdata/core/DocumentBuilder")<
  DocumentBuilder,
  {
    readonly build: (
      options: ScrapeOptions,
      page: PageContent,
      provenance: Provenance,
      extras?: BuildExtras,
    ) => Effect.Effect<Document, ScrapeError>
  }
>() {}

/** A failure inside the pipeline (or of its thread) as the page's error, never a crash. */
const failure = (url: string, error: unknown) =>
  new ScrapeError({
    reason: "EngineFailed",
    url,
    message: `Could not process the content of ${url}: ${error instanceof Error ? error.message : String(error)}`,
  })

const pipeline = lazyModule(() => import("./BuildDocument.js"))

const buildInline: DocumentBuilder["Type"]["build"] = (options, page, provenance, extras) =>
  pipeline.pipe(
    Effect.flatMap(({ buildDocument }) =>
      Effect.try({
        try: () => buildDocument(options, page, provenance, extras),
        catch: (error) => failure(page.url, error),
      }),
    ),
    Effect.withSpan("Scrape.buildDocument"),
  )

/** On the caller's thread (the pipeline loads on first use). */
export const layerInline: Layer.Layer<DocumentBuilder> = Layer.succeed(DocumentBuilder, { build: buildInline })

export interface ThreadOptions {
  /** Content threads; 0 means inline. */
  readonly threads: number
  /** Heap limit of one thread in MiB. Default 512. */
  readonly maxHeapMb?: number
  /**
   * Pages up to this many characters are built on the caller's thread while no thread has work and pages come one at
   * a time (`LONE_PAGE_MS` apart): a lone request then skips the hand-over (a few milliseconds for a 100 KB page) and
   * blocks the event loop only briefly, while under load (a crawl, concurrent requests), and for large pages whose
   * memory a thread's heap limit must bound, the threads take them. Such pages are built here too while every thread
   * has been on one page for `STUCK_MS`. Default 256 Ki; 0 sends every page to the threads.
   */
  readonly inlineMaxChars?: number
}

/**
 * Pages that follow each other closer than this are load: each one built inline would hold the event loop that the
 * others' fetches, link discovery and store commits need (a crawl of 4 KB pages ran 7–13 % slower with them inline).
 */
export const LONE_PAGE_MS = 50

/**
 * A thread on one page this long holds a page of the costly kind (a hostile one may take a second or more, see
 * `Content/`'s bounds): small pages are then built on the caller's thread instead of waiting behind it, so that one
 * caller's huge pages do not hold up every other caller's small ones.
 */
export const STUCK_MS = 100

/** The answer for a page taken back from its thread's queue (see `STUCK_MS`): the caller builds it itself. */
const TAKEN_BACK = Symbol("taken back")

interface Pending {
  readonly request: BuildRequest
  /** Small enough to be taken back and built on the caller's thread. */
  readonly mayTakeBack: boolean
  readonly resolve: (answer: Document | typeof TAKEN_BACK) => void
  readonly reject: (error: Error) => void
  /** Already moved once to a fresh thread after its thread died. */
  moved: boolean
  /** Nobody waits for it any more; it stays until its thread answers (having skipped it, or built it if begun). */
  dropped: boolean
}

/** A page sent to a thread. */
interface Submitted {
  /** The document, or `TAKEN_BACK` when the page waited behind one that held its thread for `STUCK_MS`. */
  readonly answer: Promise<Document | typeof TAKEN_BACK>
  /** Forgets the page: `answer` never settles; its thread skips it unless it has begun it. */
  readonly withdraw: () => void
}

interface Slot {
  readonly worker: Worker
  readonly pending: Map<number, Pending>
  dead: boolean
  /** When it began its current page (it builds its pages in the order they were sent). */
  busySince: number
}

const startWorker = (maxHeapMb: number, withdrawn: Int32Array): Worker =>
  // A small young generation: a thread's garbage is short-lived DOMs, and the default (tens of MiB) only adds RSS.
  startModuleWorker(import.meta.url, "./DocumentWorker", {
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 8 },
    workerData: { withdrawn: withdrawn.buffer },
  })

/**
 * Threads that take build requests, least loaded first. A thread that dies (a page exhausted its heap) is replaced;
 * the page it was building fails, and the pages queued behind it move once to the fresh thread, so a hostile page
 * fails alone instead of taking its neighbours (other callers' pages) with it.
 */
class ThreadPool {
  readonly #slots: Array<Slot> = []
  #nextId = 0
  #closed = false
  readonly #withdrawn = withdrawnPages()
  /** The check for stuck queues, set while a page that may be taken back waits behind another. */
  #watch: ReturnType<typeof setTimeout> | undefined

  constructor(
    threads: number,
    readonly maxHeapMb: number,
  ) {
    for (let i = 0; i < threads; i++) this.#slots.push(this.#spawn())
  }

  #spawn(): Slot {
    const slot: Slot = {
      worker: startWorker(this.maxHeapMb, this.#withdrawn),
      pending: new Map(),
      dead: false,
      busySince: 0,
    }
    slot.worker.on("message", (reply: BuildReply) => {
      slot.busySince = performance.now()
      const pending = slot.pending.get(reply.id)
      if (pending === undefined) return
      slot.pending.delete(reply.id)
      if (pending.dropped) return
      if ("document" in reply) pending.resolve(reply.document)
      else pending.reject(new Error(reply.error))
    })
    const die = (error: Error) => {
      if (slot.dead) return
      slot.dead = true
      // A thread builds its pages in the order they were sent: the first pending one is the one it was on.
      const [current, ...queued] = slot.pending.values()
      slot.pending.clear()
      if (current !== undefined && !current.dropped) current.reject(error)
      const index = this.#slots.indexOf(slot)
      const fresh = this.#closed || index < 0 ? undefined : this.#spawn()
      if (fresh !== undefined) this.#slots[index] = fresh
      for (const pending of queued)
        if (pending.dropped) continue
        else if (fresh === undefined || pending.moved) pending.reject(error)
        else {
          pending.moved = true
          this.#send(fresh, pending)
        }
    }
    slot.worker.on("error", (error) =>
      die(
        (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new Error(`the page needs more than the ${this.maxHeapMb} MiB a content thread may use`)
          : error,
      ),
    )
    slot.worker.on("exit", (code) => die(new Error(`the content thread stopped (exit code ${code})`)))
    return slot
  }

  /** No thread has a page to build. */
  get idle(): boolean {
    return this.#slots.every((slot) => slot.pending.size === 0)
  }

  /** Every thread has been on its current page for `STUCK_MS` or more. */
  get stuck(): boolean {
    const now = performance.now()
    return this.#slots.every((slot) => slot.pending.size > 0 && now - slot.busySince >= STUCK_MS)
  }

  #send(slot: Slot, pending: Pending): void {
    if (slot.pending.size === 0) slot.busySince = performance.now()
    slot.pending.set(pending.request.id, pending)
    slot.worker.postMessage(pending.request)
    if (pending.mayTakeBack && slot.pending.size > 1) this.#watchQueues()
  }

  /** Forgets a page: its answer never comes; its thread skips it unless it has begun it. */
  #drop(entry: Pending): void {
    entry.dropped = true
    withdraw(this.#withdrawn, entry.request.id)
  }

  /**
   * Takes back, every `STUCK_MS` while any waits, the small pages queued behind a page that has held its thread that
   * long (one timer for the pool: a timer and a race per page cost more than a small page's bookkeeping).
   */
  #watchQueues(): void {
    if (this.#watch !== undefined || this.#closed) return
    this.#watch = setTimeout(() => {
      this.#watch = undefined
      const now = performance.now()
      let waiting = false
      for (const slot of this.#slots) {
        // A thread builds its pages in the order they were sent: the first is the one it is on.
        let first = true
        for (const entry of slot.pending.values()) {
          if (first) first = false
          else if (entry.dropped || !entry.mayTakeBack) continue
          else if (now - slot.busySince < STUCK_MS) waiting = true
          else {
            this.#drop(entry)
            entry.resolve(TAKEN_BACK)
          }
        }
      }
      if (waiting) this.#watchQueues()
    }, STUCK_MS)
  }

  /** Sends a page to the least loaded thread; `mayTakeBack` when the caller would build it itself once stuck. */
  submit(request: Omit<BuildRequest, "id">, mayTakeBack: boolean): Submitted {
    const slot = this.#slots.reduce((best, next) => (next.pending.size < best.pending.size ? next : best))
    const id = this.#nextId++
    let settle: Pick<Pending, "resolve" | "reject"> | undefined
    const answer = new Promise<Document | typeof TAKEN_BACK>((resolve, reject) => {
      settle = { resolve, reject }
    })
    // The executor above has run: `settle` is set.
    const entry: Pending = { request: { id, ...request }, ...settle!, mayTakeBack, moved: false, dropped: false }
    this.#send(slot, entry)
    return {
      answer,
      withdraw: () => this.#drop(entry),
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#watch)
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()))
  }
}

/** On `threads` content threads (inline when 0). */
export const layerThreads = (options: ThreadOptions): Layer.Layer<DocumentBuilder> =>
  options.threads <= 0
    ? layerInline
    : Layer.scoped(
        DocumentBuilder,
        Effect.map(
          Effect.acquireRelease(
            Effect.sync(() => new ThreadPool(options.threads, options.maxHeapMb ?? 512)),
            (pool) => Effect.promise(() => pool.close()),
          ),
          (pool) => {
            const inlineMaxChars = options.inlineMaxChars ?? 256 * 1024
            let previousAt = Number.NEGATIVE_INFINITY
            /** This page comes alone: no thread has work and no other page came just before. */
            const alone = () => {
              const now = performance.now()
              const lone = now - previousAt >= LONE_PAGE_MS
              previousAt = now
              return lone && pool.idle
            }
            const onThread: DocumentBuilder["Type"]["build"] = (scrapeOptions, page, provenance, extras) =>
              Effect.suspend(() => {
                // A small page sent while its thread had only begun a costly one is taken back once that one has held
                // the thread for `STUCK_MS`, as a page arriving then would not have been sent.
                const submitted = pool.submit(
                  { options: scrapeOptions, page, provenance, extras },
                  page.body.length <= inlineMaxChars,
                )
                // An interrupted scrape does not wait for its page.
                return Effect.tryPromise({
                  try: () => submitted.answer,
                  catch: (error) => failure(page.url, error),
                }).pipe(
                  Effect.onInterrupt(() => Effect.sync(submitted.withdraw)),
                  Effect.withSpan("Scrape.buildDocument"),
                  Effect.flatMap((answer) =>
                    answer === TAKEN_BACK
                      ? buildInline(scrapeOptions, page, provenance, extras)
                      : Effect.succeed(answer),
                  ),
                )
              })
            return {
              // Decided when the build runs, not when its effect is made.
              build: (scrapeOptions: ScrapeOptions, page: PageContent, provenance: Provenance, extras?: BuildExtras) =>
                Effect.suspend(() =>
                  (alone() || pool.stuck) && page.body.length <= inlineMaxChars
                    ? buildInline(scrapeOptions, page, provenance, extras)
                    : onThread(scrapeOptions, page, provenance, extras),
                ),
            }
          },
        ),
      )

/** Threads from `WEBDATA_CONTENT_THREADS` (default: one per core but one, at most 4) and `WEBDATA_CONTENT_THREAD_MB`. */
export const layerConfig: Layer.Layer<DocumentBuilder> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const threads = yield* Config.integer("WEBDATA_CONTENT_THREADS").pipe(
      Config.withDefault(Math.max(0, Math.min(4, availableParallelism() - 1))),
    )
    const maxHeapMb = yield* Config.integer("WEBDATA_CONTENT_THREAD_MB").pipe(Config.withDefault(512))
    return layerThreads({ threads, maxHeapMb })
  }).pipe(Effect.orDie),
)
