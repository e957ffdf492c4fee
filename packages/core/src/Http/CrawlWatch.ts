/**
 * The job watcher of Firecrawl's WebSocket route `/v2/crawl/{id}` (what the SDK's `watcher()` opens), as a stream of
 * events a host writes to its socket: text messages, then exactly one close. A WebSocket cannot pass through the
 * `(Request) => Response` handler, so the host runs this over the same services instead.
 *
 * Firecrawl has no such route for batch scrapes, although the SDK's `watcher(id, { kind: "batch" })` opens
 * `/v2/batch/scrape/{id}`: where a WebSocket exists (browsers, Node 22) the failed handshake ends that watcher with an
 * error instead of falling back to polling. This server serves the same protocol there, so both kinds work.
 *
 * Protocol (Firecrawl's `crawl-status-ws.ts`): a `catchup` message with the status and every document so far, a
 * `document` message per page finished after it, and the close `1000` with reason `{"type":"done"}` once the crawl has
 * ended, whatever the ending (the SDK then reads the final status over HTTP and reports it). Failures before the
 * catchup close at once: `1008 Invalid job ID`, `3000` for the API key, `1008` for an unknown or another key's crawl,
 * `1011` for a server error; their reasons are `{"type":"error","error":…}` like Firecrawl's.
 *
 * Firecrawl's v1 route `/v1/crawl/{id}` (the v1 SDK's `crawlUrlAndWatch`, for batch scrapes too: v1 ran them as
 * crawls) speaks the same protocol with v1's status and documents (`V1/`).
 */
import { Cause, Effect, Stream } from "effect"
import type { Document } from "../Domain/Document.js"
import { RequestError } from "../Errors.js"
import { isTerminal, JobControl } from "../Jobs/JobControl.js"
import type { Job, JobKind } from "../Jobs/JobStore.js"
import type { KeyRing } from "../Tenants/KeyRing.js"
import { toV1Status } from "../V1/JobStatus.js"
import { toV1Document } from "../V1/ScrapeOptions.js"
import { Unauthorized } from "./Api.js"
import { identify } from "./Auth.js"
import { checkJobId, statusBody, statusHead } from "./JobHandlers.js"

export type WatchEvent =
  | { readonly _tag: "Message"; readonly text: string }
  | { readonly _tag: "Close"; readonly code: number; readonly reason: string }

/** Documents read per store page while catching up. */
const CATCHUP_PAGE = 1000
/** A close reason may hold at most 123 bytes (RFC 6455 §5.5); the error text gets what the JSON around it leaves. */
const MAX_REASON_BYTES = 123

const message = (body: unknown): WatchEvent => ({ _tag: "Message", text: JSON.stringify(body) })
const close = (code: number, reason: string): WatchEvent => ({ _tag: "Close", code, reason })
const done = close(1000, JSON.stringify({ type: "done" }))

const bytes = (text: string) => new TextEncoder().encode(text).length

/** A close whose reason is `{"type":"error","error":…}`, the error shortened to fit the reason's size limit. */
const closeWithError = (code: number, error: string): WatchEvent => {
  let text = error
  const reason = () => JSON.stringify({ type: "error", error: text })
  while (bytes(reason()) > MAX_REASON_BYTES) text = `${text.slice(0, -2)}…`
  return close(code, reason())
}

/**
 * The key a WebSocket client offers: `Authorization: Bearer <key>`, else the first `Sec-WebSocket-Protocol` value
 * (browsers cannot set headers on a WebSocket, so the SDK passes its key as the subprotocol).
 */
export const offeredToken = (headers: {
  readonly authorization?: string | undefined
  readonly protocols?: string | undefined
}): string | undefined => {
  const bearer = headers.authorization?.match(/^\s*Bearer\s+(.+)$/i)?.[1]?.trim()
  if (bearer) return bearer
  return headers.protocols?.split(",")[0]?.trim() || undefined
}

/** The jobs that can be watched, and `v1`: v1's crawl route, for a crawl or a batch scrape. */
export type WatchedKind = Extract<JobKind, "crawl" | "batch"> | "v1"

/** A v1 watch's job: a crawl, else a batch scrape with that id. */
const catchUpV1 = (id: string, owner: string | null) =>
  catchUp("crawl", id, owner).pipe(
    Effect.catchIf(
      (error) => error instanceof RequestError && error.reason === "NotFound",
      () => catchUp("batch", id, owner),
    ),
  )

/** The job and every document it holds now, read page by page. */
const catchUp = Effect.fn("CrawlWatch.catchUp")(function* (
  kind: Exclude<WatchedKind, "v1">,
  id: string,
  owner: string | null,
) {
  const control = yield* JobControl
  const documents: Array<Document> = []
  let page = yield* control.status(kind, id, owner, { skip: 0, limit: CATCHUP_PAGE })
  documents.push(...page.documents)
  while (page.nextSkip !== undefined && page.documents.length > 0) {
    page = yield* control.status(kind, id, owner, { skip: documents.length, limit: CATCHUP_PAGE })
    documents.push(...page.documents)
  }
  return { job: page.job, documents } satisfies { job: Job; documents: ReadonlyArray<Document> }
})

/** The events of watching job `id` of `kind` with the offered key. Never fails: every failure is a close event. */
export const watch = (
  kind: WatchedKind,
  id: string,
  token: string | undefined,
): Stream.Stream<WatchEvent, never, JobControl | KeyRing> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const control = yield* JobControl
      // Firecrawl checks the id before the key.
      yield* checkJobId(id)
      const { owner } = yield* identify(token ?? "")
      const v1 = kind === "v1"
      const { job, documents } = yield* v1 ? catchUpV1(id, owner) : catchUp(kind, id, owner)
      const status = v1 ? toV1Status(statusHead(job, undefined), documents) : statusBody(job, documents, undefined)
      const catchup = Stream.make(message({ type: "catchup", data: status }))
      if (isTerminal(job)) return Stream.concat(catchup, Stream.make(done))
      const following = control
        .documents(id, documents.length)
        .pipe(
          Stream.map((document) => message({ type: "document", data: v1 ? toV1Document(document, "both") : document })),
        )
      return Stream.concat(Stream.concat(catchup, following), Stream.make(done))
    }),
  ).pipe(
    Stream.catchAll((error) => {
      if (error instanceof Unauthorized) return Stream.make(closeWithError(3000, error.error))
      if (error instanceof RequestError && error.reason === "Validation")
        return Stream.make(close(1008, "Invalid job ID"))
      if (error instanceof RequestError && error.reason === "NotFound")
        return Stream.make(closeWithError(1008, "Job not found"))
      return Stream.die(error)
    }),
    Stream.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Stream.failCause(cause)
        : Stream.fromEffect(
            Effect.logError("Crawl watcher failed", cause).pipe(
              Effect.as(closeWithError(1011, "An error occurred. Please check the server logs.")),
            ),
          ),
    ),
  )
