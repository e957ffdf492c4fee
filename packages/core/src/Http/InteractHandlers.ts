/**
 * Interact sessions over HTTP: Firecrawl's `/v2/interact` routes (and their `/v2/browser` alias), a scrape continued
 * in a session, and the live view page. The session's sockets (DevTools protocol, live frames) are the host's: see
 * `WebHandler.openSessionSocket`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option } from "effect"
import { decodeLenient } from "../Domain/Decode.js"
import type { Document } from "../Domain/Document.js"
import type { CodeRun, SessionRun } from "../Engines/Browser.js"
import { RequestError, type ScrapeError } from "../Errors.js"
import {
  CreateSessionRequest,
  ExecuteRequest,
  ListSessionsQuery,
  ScrapeInteractRequest,
} from "../Interact/InteractRequest.js"
import { InteractSessions, type SessionInfo } from "../Interact/InteractSessions.js"
import { ScrapeReplay } from "../Interact/ScrapeReplay.js"
import { JobControl } from "../Jobs/JobControl.js"
import type { Owner } from "../Jobs/Owner.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { callerOwner, checkJobId } from "./JobHandlers.js"
import { publicBase } from "./PublicUrl.js"
import { respond } from "./Respond.js"

const decodeCreate = decodeLenient(CreateSessionRequest)
const decodeExecute = decodeLenient(ExecuteRequest)
const decodeScrapeInteract = decodeLenient(ScrapeInteractRequest)
const decodeList = decodeLenient(ListSessionsQuery)

const iso = (ms: number) => new Date(ms).toISOString()

/** The session's addresses: its DevTools socket and its live view pages, each with the token that opens it. */
const sessionUrls = (request: HttpServerRequest.HttpServerRequest, info: SessionInfo) => {
  const base = `${publicBase(request)}/v2/interact/${info.id}`
  return {
    cdpUrl: `${base.replace(/^http/, "ws")}/cdp?token=${info.controlToken}`,
    liveViewUrl: `${base}/live?token=${info.viewToken}`,
    interactiveLiveViewUrl: `${base}/live?token=${info.controlToken}`,
  }
}

const listed = (request: HttpServerRequest.HttpServerRequest, info: SessionInfo) => ({
  id: info.id,
  status: info.status,
  ...sessionUrls(request, info),
  streamWebView: info.streamWebView,
  createdAt: iso(info.createdAt),
  lastActivity: iso(info.lastActivity),
  expiresAt: iso(info.expiresAt),
})

const codeBody = (run: CodeRun) => ({
  stdout: run.stdout,
  result: run.stdout,
  stderr: run.stderr,
  exitCode: run.exitCode,
  killed: run.killed,
  ...(run.error !== undefined ? { error: run.error } : {}),
})

const actionsBody = (run: SessionRun) => ({ url: run.url, actions: run.actions })

/** Runs an execute body (actions or code) on a session: the body fields of the answer. */
const execute = (
  owner: Owner,
  id: string,
  body: ExecuteRequest,
): Effect.Effect<Record<string, unknown>, RequestError | ScrapeError, InteractSessions> =>
  Effect.flatMap(
    InteractSessions,
    (sessions): Effect.Effect<Record<string, unknown>, RequestError | ScrapeError> =>
      body.actions !== undefined
        ? Effect.map(sessions.runActions(owner, id, body.actions, body.timeout * 1000, body.url), actionsBody)
        : Effect.map(sessions.runCode(owner, id, body.code ?? "", body.language, body.timeout * 1000), codeBody),
  )

const withoutPrompt = new RequestError({
  reason: "Unsupported",
  code: "SCRAPE_LLM_REQUIRED",
  message: "`prompt` needs a language model, which is not available in this build; send `code` or `actions`.",
})

const replayUnavailable = new RequestError({
  reason: "Conflict",
  code: "REPLAY_UNAVAILABLE",
  message: "Replay context is unavailable for this scrape job. Please rerun the scrape.",
})

/**
 * Where a session continuing a scrape starts: the scrape's page with its browser's cookies and storage and its
 * emulation while they are kept (`ScrapeReplay`), else the stored document's URL (404 when the scrape is unknown).
 */
const replayOf = (scrapeId: string, owner: Owner) =>
  Effect.gen(function* () {
    const kept = yield* Effect.flatMap(ScrapeReplay, (replays) => replays.recall(scrapeId, owner))
    if (Option.isSome(kept)) {
      const { owner: _, url, ...emulation } = kept.value
      return { url, emulation }
    }
    const document: Document = yield* Effect.flatMap(JobControl, (control) => control.getScrape(scrapeId, owner))
    const url = document.metadata.url ?? document.metadata.sourceURL
    return url === undefined ? yield* replayUnavailable : { url }
  })

export const InteractHandlers = HttpApiBuilder.group(WebdataApi, "interact", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* InteractSessions
    const create = (request: HttpServerRequest.HttpServerRequest) =>
      respond(
        Effect.gen(function* () {
          const body = yield* decodeCreate(yield* readJsonBody(request))
          const info = yield* sessions.open({ ...body, owner: yield* callerOwner })
          return { success: true, id: info.id, ...sessionUrls(request, info), expiresAt: iso(info.expiresAt) }
        }),
      )
    const list = (request: HttpServerRequest.HttpServerRequest) =>
      respond(
        Effect.gen(function* () {
          const query = yield* decodeList(Object.fromEntries(new URL(request.url, "http://x").searchParams))
          const all = yield* sessions.list(yield* callerOwner, query.status)
          return { success: true, sessions: all.map((info) => listed(request, info)) }
        }),
      )
    const get = (request: HttpServerRequest.HttpServerRequest, id: string) =>
      respond(
        Effect.map(
          Effect.flatMap(callerOwner, (owner) => sessions.get(owner, id)),
          (info) => listed(request, info),
        ),
      )
    const destroy = (id: string) =>
      respond(
        Effect.map(
          Effect.flatMap(callerOwner, (owner) => sessions.destroy(owner, id)),
          ({ durationMs }) => ({ success: true, sessionDurationMs: durationMs, creditsBilled: 0 }),
        ),
      )
    const run = (request: HttpServerRequest.HttpServerRequest, id: string) =>
      respond(
        Effect.gen(function* () {
          const body = yield* decodeExecute(yield* readJsonBody(request))
          return { success: true, ...(yield* execute(yield* callerOwner, id, body)) }
        }),
      )
    return handlers
      .handleRaw("interactCreate", ({ request }) => create(request))
      .handleRaw("browserCreate", ({ request }) => create(request))
      .handleRaw("interactList", ({ request }) => list(request))
      .handleRaw("browserList", ({ request }) => list(request))
      .handleRaw("interactGet", ({ request, path }) => get(request, path.id))
      .handleRaw("browserGet", ({ request, path }) => get(request, path.id))
      .handleRaw("interactDelete", ({ path }) => destroy(path.id))
      .handleRaw("browserDelete", ({ path }) => destroy(path.id))
      .handleRaw("interactExecute", ({ request, path }) => run(request, path.id))
      .handleRaw("browserExecute", ({ request, path }) => run(request, path.id))
      .handleRaw("scrapeInteract", ({ request, path }) =>
        respond(
          Effect.gen(function* () {
            const scrapeId = yield* checkJobId(path.id)
            const body = yield* decodeScrapeInteract(yield* readJsonBody(request))
            if (body.code === undefined && body.actions === undefined) return yield* withoutPrompt
            const owner = yield* callerOwner
            const existing = yield* sessions.forScrape(owner, scrapeId)
            const info = Option.isSome(existing)
              ? existing.value
              : yield* sessions.open({
                  ttl: 600,
                  activityTtl: 300,
                  streamWebView: true,
                  owner,
                  scrapeId,
                  ...(yield* replayOf(scrapeId, owner)),
                })
            const outcome = yield* execute(owner, info.id, body)
            return { success: true, sessionId: info.id, ...sessionUrls(request, info), ...outcome }
          }),
        ),
      )
      .handleRaw("scrapeInteractStop", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const scrapeId = yield* checkJobId(path.id)
            const owner = yield* callerOwner
            const info = yield* sessions.forScrape(owner, scrapeId)
            if (Option.isNone(info))
              return yield* new RequestError({
                reason: "NotFound",
                code: "SESSION_NOT_FOUND",
                message: `No browser session continues scrape ${scrapeId}.`,
              })
            const { durationMs } = yield* sessions.destroy(owner, info.value.id)
            return { success: true, sessionDurationMs: durationMs, creditsBilled: 0 }
          }),
        ),
      )
  }),
)
