/**
 * Files are parsed on threads: a parser's synchronous work (pdf.js, SheetJS, mammoth) never blocks the event loop,
 * a file that needs more memory than a thread may have fails alone, and a file that takes longer than its time limit
 * is stopped by terminating its thread (the only way to stop a synchronous loop), which a fresh thread replaces.
 * Each thread parses one file at a time; threads start on the first file.
 */
import type { Worker } from "node:worker_threads"
import { type FileInput, type ParsedFile, ScrapeError, startModuleWorker } from "@webdata/core/engine"
import type { FailureReason } from "./Failures.js"
import type { ParseJob } from "./parseFile.js"

export type ParseReply =
  | { readonly id: number; readonly parsed: ParsedFile }
  | { readonly id: number; readonly failure: { readonly reason: FailureReason; readonly message: string } }

export interface ThreadOptions {
  readonly threads: number
  /** Heap limit of one thread in MiB. */
  readonly maxHeapMb: number
}

interface Job {
  readonly id: number
  readonly file: FileInput
  readonly resolve: (parsed: ParsedFile) => void
  readonly reject: (error: ScrapeError) => void
}

interface Slot {
  worker: Worker
  job: Job | undefined
  timer: NodeJS.Timeout | undefined
}

export class ParseThreads {
  readonly #slots: Array<Slot> = []
  readonly #queue: Array<Job> = []
  #nextId = 0
  #closed = false

  constructor(readonly options: ThreadOptions) {}

  parse(file: FileInput, signal?: AbortSignal): Promise<ParsedFile> {
    return new Promise<ParsedFile>((resolve, reject) => {
      const job: Job = { id: this.#nextId++, file, resolve, reject }
      this.#queue.push(job)
      signal?.addEventListener("abort", () => this.#cancel(job), { once: true })
      this.#pump()
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()))
  }

  #spawn(): Slot {
    const worker = startModuleWorker(import.meta.url, "./ParseWorker", {
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
    })
    // Threads idle between files must not keep a finished process alive.
    worker.unref()
    const slot: Slot = { worker, job: undefined, timer: undefined }
    worker.on("message", (reply: ParseReply) => {
      const job = slot.job
      if (job === undefined || job.id !== reply.id) return
      this.#finish(slot)
      if ("parsed" in reply) job.resolve(reply.parsed)
      else
        job.reject(
          new ScrapeError({ reason: reply.failure.reason, url: job.file.name, message: reply.failure.message }),
        )
    })
    worker.on("error", (error) =>
      this.#replace(
        slot,
        (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `needs more than the ${this.options.maxHeapMb} MiB a parse thread may use`
          : `failed (${error.message})`,
      ),
    )
    worker.on("exit", (code) => this.#replace(slot, `stopped its thread (exit code ${code})`))
    return slot
  }

  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let slot = this.#slots.find((each) => each.job === undefined)
      if (slot === undefined && this.#slots.length < this.options.threads) {
        slot = this.#spawn()
        this.#slots.push(slot)
      }
      if (slot === undefined) return
      const job = this.#queue.shift()!
      slot.job = job
      slot.worker.ref()
      slot.timer = setTimeout(
        () =>
          this.#replace(
            slot,
            undefined,
            new ScrapeError({
              reason: "Timeout",
              url: job.file.name,
              message: `Parsing ${job.file.name} took longer than ${job.file.timeoutMs} ms.`,
            }),
          ),
        job.file.timeoutMs,
      )
      // A copy the thread owns: the caller's bytes may be a view of a pooled buffer.
      const bytes = job.file.bytes.slice()
      const request: ParseJob & { readonly id: number } = { id: job.id, bytes, kind: job.file.kind, pdf: job.file.pdf }
      slot.worker.postMessage(request, [bytes.buffer])
    }
  }

  #finish(slot: Slot): void {
    clearTimeout(slot.timer)
    slot.job = undefined
    slot.timer = undefined
    slot.worker.unref()
    queueMicrotask(() => this.#pump())
  }

  /** The thread is stopped (a timeout) or died: its file fails, a fresh thread takes its place. */
  #replace(slot: Slot, problem: string | undefined, error?: ScrapeError): void {
    const index = this.#slots.indexOf(slot)
    if (index < 0) return
    this.#slots.splice(index, 1)
    const job = slot.job
    this.#finish(slot)
    void slot.worker.terminate()
    if (job !== undefined)
      job.reject(
        error ??
          new ScrapeError({
            reason: "ParseFailed",
            url: job.file.name,
            message: `Could not parse ${job.file.name}: it ${problem}.`,
          }),
      )
  }

  #cancel(job: Job): void {
    const queued = this.#queue.indexOf(job)
    if (queued >= 0) this.#queue.splice(queued, 1)
    const slot = this.#slots.find((each) => each.job === job)
    // A parse nobody waits for is stopped: its thread may be busy for seconds more.
    if (slot !== undefined)
      this.#replace(slot, undefined, new ScrapeError({ reason: "Timeout", url: job.file.name, message: "Cancelled." }))
  }
}
