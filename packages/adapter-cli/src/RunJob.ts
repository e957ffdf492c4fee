/**
 * Running a crawl or batch scrape from the CLI: start it, follow its status page by page (pages are printed as they
 * are recorded, with the progress line on a terminal), cancel it on Ctrl-C, and report failed pages at the end.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import { Console, Duration, Effect } from "effect"
import { CliFailure } from "./CliFailure.js"
import { JobClient, type JobClientShape, type JobKind, type JobPage } from "./JobClient.js"
import { makeSink, type OutputChoice, type PageSink } from "./PageOutput.js"
import { makeProgress, type Progress } from "./Progress.js"
import { stopOnCtrlC } from "./Signals.js"

/** Pause between two status reads that brought nothing new. */
const POLL = Duration.millis(250)
/** Remote statuses do not count failed pages; the progress line asks the errors endpoint this often. */
const ERRORS_EVERY_MS = 2000
/** Failed pages listed at the end; the rest are counted. */
const LISTED_FAILURES = 10

const nouns = { crawl: "crawl", batch: "batch scrape" } as const
const verbs = { crawl: "Crawled", batch: "Scraped" } as const

interface Followed {
  readonly client: JobClientShape
  readonly kind: JobKind
  readonly id: string
  readonly sink: PageSink
  readonly progress: Progress
}

/** Reads the status from the first document on until the job has ended and every document was read. */
const follow = ({ client, kind, id, sink, progress }: Followed) =>
  Effect.gen(function* () {
    let skip = 0
    let failed: number | undefined
    let errorsReadAt = 0
    for (;;) {
      const page: JobPage = yield* client.status(kind, id, skip)
      for (const document of page.data) yield* progress.above(sink.write(document))
      skip = page.next ?? skip + page.data.length
      failed = page.failed ?? failed
      if (page.failed === undefined && progress.live && Date.now() - errorsReadAt >= ERRORS_EVERY_MS) {
        errorsReadAt = Date.now()
        failed = (yield* client.errors(kind, id)).length
      }
      yield* progress.update({
        completed: page.completed,
        total: page.total,
        ...(failed !== undefined ? { failed } : {}),
      })
      if (page.next === undefined) return page
      if (page.data.length === 0) yield* Effect.sleep(POLL)
    }
  })

/** Ctrl-C stops following and cancels the job (on the server in remote mode) before the CLI exits with 130. */
const cancelOnCtrlC = (followed: Followed) =>
  stopOnCtrlC(
    Effect.zipRight(followed.progress.clear, followed.client.cancel(followed.kind, followed.id)),
    `${nouns[followed.kind]} ${followed.id} cancelled`,
  )

export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

export const runJob = (
  kind: JobKind,
  body: Record<string, unknown>,
  output: OutputChoice,
): Effect.Effect<void, CliFailure, JobClient | FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const client = yield* JobClient
    const sink = yield* makeSink(output)
    const started = yield* client.start(kind, body)
    for (const url of started.invalidURLs ?? []) yield* Console.error(`skipped invalid URL: ${url}`)
    const progress = makeProgress(nouns[kind])
    const startedAt = Date.now()
    const followed = { client, kind, id: started.id, sink, progress }
    const final = yield* Effect.raceFirst(follow(followed), cancelOnCtrlC(followed))
    yield* progress.clear
    const failures = final.failed === 0 ? [] : yield* client.errors(kind, started.id)
    for (const failure of failures.slice(0, LISTED_FAILURES))
      yield* Console.error(`failed ${failure.url}: ${failure.error}`)
    if (failures.length > LISTED_FAILURES) yield* Console.error(`... and ${failures.length - LISTED_FAILURES} more`)
    if (final.completed === 0 && failures.length > 0)
      return yield* Effect.fail(new CliFailure(`The ${nouns[kind]} got no page (${plural(failures.length, "error")})`))
    if (final.status === "failed" || final.status === "cancelled")
      return yield* Effect.fail(
        new CliFailure(
          `The ${nouns[kind]} ${final.status === "failed" ? "failed" : "was cancelled"} (${plural(final.completed, "page")} done)`,
        ),
      )
    if (progress.live || sink.directory !== undefined) {
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1)
      const into = sink.directory !== undefined ? ` into ${sink.directory}` : ""
      yield* Console.error(
        `${verbs[kind]} ${plural(final.completed, "page")}${into} (${plural(failures.length, "error")}) in ${seconds}s`,
      )
    }
  })
