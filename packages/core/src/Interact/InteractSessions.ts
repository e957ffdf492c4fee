/**
 * Interact sessions: browsers kept open for one owner, driven by actions, code, the DevTools protocol or a live view,
 * and ended by their TTL, by inactivity, by their owner or when the browser dies. A session lives in the process
 * that opened it (its Chromium is a child of that process); its profile (cookies and storage) is saved in the job
 * store by name, so a later session anywhere on the same store starts with it.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { Config, Context, Effect, Layer, Option, Schedule } from "effect"
import { v7 as uuidv7 } from "uuid"
import type { Action } from "../Domain/Actions.js"
import {
  BrowserEngine,
  type CodeRun,
  type LiveSession,
  type SessionRun,
  type SessionSettings,
} from "../Engines/Browser.js"
import { RequestError, type ScrapeError } from "../Errors.js"
import { JobStore } from "../Jobs/JobStore.js"
import type { Owner } from "../Jobs/Owner.js"
import type { CreateSessionRequest } from "./InteractRequest.js"

export interface InteractConfigShape {
  /** Sessions open at once in this process; more answer 429. */
  readonly maxSessions: number
  /** Whether `execute` runs callers' Node.js code (it runs with the server's network access). */
  readonly allowCode: boolean
}

export class InteractConfig extends Context.Tag("@webdata/core/InteractConfig")<
  InteractConfig,
  InteractConfigShape
>() {}

export const DEFAULT_INTERACT: InteractConfigShape = { maxSessions: 4, allowCode: false }

export const configLayer = (options: Partial<InteractConfigShape> = {}) =>
  Layer.succeed(InteractConfig, { ...DEFAULT_INTERACT, ...options })

/** `WEBDATA_INTERACT_SESSIONS` and `WEBDATA_INTERACT_ALLOW_CODE`. */
export const configLayerConfig = Layer.effect(
  InteractConfig,
  Effect.gen(function* () {
    const maxSessions = yield* Config.integer("WEBDATA_INTERACT_SESSIONS").pipe(
      Config.withDefault(DEFAULT_INTERACT.maxSessions),
    )
    const allowCode = yield* Config.boolean("WEBDATA_INTERACT_ALLOW_CODE").pipe(Config.withDefault(false))
    return { maxSessions: Math.max(0, maxSessions), allowCode }
  }).pipe(Effect.orDie),
)

export interface SessionInfo {
  readonly id: string
  readonly status: "active" | "destroyed"
  readonly createdAt: number
  readonly lastActivity: number
  readonly expiresAt: number
  readonly streamWebView: boolean
  /** Opens the read-only live view. */
  readonly viewToken: string
  /** Opens the DevTools endpoint and the interactive live view. */
  readonly controlToken: string
  /** The scrape this session continues, for `/v2/scrape/{id}/interact`. */
  readonly scrapeId?: string | undefined
}

/** A session a socket may use: the live browser, and whether its token lets it drive the page. */
export interface SessionAccess {
  readonly live: LiveSession
  readonly control: boolean
  /** Counts as activity (keeps the session from its inactivity end). */
  readonly touch: Effect.Effect<void>
}

export interface OpenOptions extends CreateSessionRequest {
  readonly owner: Owner
  readonly url?: string | undefined
  readonly scrapeId?: string | undefined
  /** How the session looks at sites, and the cookies and storage it starts with (a scrape's, when it continues one). */
  readonly emulation?: Pick<SessionSettings, "mobile" | "location" | "headers" | "storageState">
}

interface Entry {
  info: SessionInfo
  readonly owner: Owner
  readonly live: LiveSession
  readonly activityTtlMs: number
  readonly profile: CreateSessionRequest["profile"]
  /** One execute at a time: actions and code on the same page would trip over each other. */
  readonly lock: Effect.Semaphore
}

/** Destroyed sessions stay listed this long (`GET /v2/interact?status=destroyed`). */
const DESTROYED_KEPT_MS = 60 * 60 * 1000
const DESTROYED_KEPT = 1000
const SWEEP_EVERY = "1 second"

const notFound = (id: string) =>
  new RequestError({ reason: "NotFound", code: "SESSION_NOT_FOUND", message: `Interact session ${id} not found.` })

const needsBrowser = new RequestError({
  reason: "Unsupported",
  code: "SCRAPE_BROWSER_REQUIRED",
  message: "Interact sessions need the browser engine (the @webdata/browser package and Chromium).",
})

const token = () => randomBytes(24).toString("base64url")

/** Compares a token a caller offers with a session's in constant time. */
const sameToken = (offered: string, expected: string) =>
  offered.length === expected.length && timingSafeEqual(Buffer.from(offered), Buffer.from(expected))

export const make = Effect.gen(function* () {
  const browser = yield* Effect.serviceOption(BrowserEngine)
  const store = yield* JobStore
  const config = yield* InteractConfig
  const active = new Map<string, Entry>()
  const destroyed: Array<{ readonly owner: Owner; readonly info: SessionInfo }> = []

  const profileInUse = (owner: Owner, name: string) =>
    [...active.values()].some(
      (entry) => entry.owner === owner && entry.profile?.saveChanges === true && entry.profile.name === name,
    )

  /** Ends a session: its profile saved (when it saves), its browser closed, the session listed as destroyed. */
  const end = (entry: Entry): Effect.Effect<void> =>
    Effect.gen(function* () {
      if (!active.delete(entry.info.id)) return
      if (entry.profile?.saveChanges === true) {
        const profile = entry.profile
        yield* entry.live.storageState.pipe(
          Effect.flatMap((state) => store.putProfile(entry.owner, profile.name, state)),
          Effect.catchAll((error) => Effect.logWarning(`Profile ${profile.name} was not saved`, error)),
        )
      }
      yield* entry.live.close
      entry.info = { ...entry.info, status: "destroyed" }
      destroyed.push({ owner: entry.owner, info: entry.info })
      if (destroyed.length > DESTROYED_KEPT) destroyed.shift()
    })

  const sweep = Effect.suspend(() => {
    const now = Date.now()
    while (destroyed.length > 0 && destroyed[0]!.info.lastActivity + DESTROYED_KEPT_MS < now) destroyed.shift()
    const due = [...active.values()].filter(
      (entry) => entry.info.expiresAt <= now || entry.info.lastActivity + entry.activityTtlMs <= now,
    )
    return Effect.forEach(due, end, { discard: true })
  })
  yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(SWEEP_EVERY)))
  // Sessions left open when the engine stops are ended like any other (profiles saved, browsers closed).
  yield* Effect.addFinalizer(() => Effect.forEach([...active.values()], end, { discard: true }))

  const entryOf = (owner: Owner, id: string): Effect.Effect<Entry, RequestError> => {
    const entry = active.get(id)
    if (entry !== undefined && entry.owner === owner) return Effect.succeed(entry)
    const gone = destroyed.find((candidate) => candidate.info.id === id && candidate.owner === owner)
    return Effect.fail(
      gone !== undefined
        ? new RequestError({
            reason: "Gone",
            code: "SESSION_DESTROYED",
            message: "Browser session has been destroyed.",
          })
        : notFound(id),
    )
  }

  const touch = (entry: Entry) =>
    Effect.sync(() => {
      entry.info = { ...entry.info, lastActivity: Date.now() }
    })

  const open = Effect.fn("InteractSessions.open")(function* (options: OpenOptions) {
    if (Option.isNone(browser)) return yield* needsBrowser
    if (active.size >= config.maxSessions)
      return yield* new RequestError({
        reason: "RateLimited",
        code: "TOO_MANY_SESSIONS",
        message: `Too many active browser sessions (at most ${config.maxSessions}); delete one or wait for one to end.`,
      })
    const profile = options.profile
    if (profile?.saveChanges === true && profileInUse(options.owner, profile.name))
      return yield* new RequestError({
        reason: "Conflict",
        code: "PROFILE_IN_USE",
        message: `The profile "${profile.name}" is in use by another session that saves changes.`,
      })
    const storageState = profile === undefined ? Option.none() : yield* store.getProfile(options.owner, profile.name)
    const live = yield* browser.value.openSession({
      ...options.emulation,
      url: options.url,
      timeoutMs: 30_000,
      // A profile's state wins over a scrape's.
      ...(Option.isSome(storageState) ? { storageState: storageState.value } : {}),
    })
    const now = Date.now()
    const entry: Entry = {
      info: {
        id: uuidv7(),
        status: "active",
        createdAt: now,
        lastActivity: now,
        expiresAt: now + options.ttl * 1000,
        streamWebView: options.streamWebView,
        viewToken: token(),
        controlToken: token(),
        scrapeId: options.scrapeId,
      },
      owner: options.owner,
      live,
      activityTtlMs: options.activityTtl * 1000,
      profile,
      lock: yield* Effect.makeSemaphore(1),
    }
    active.set(entry.info.id, entry)
    // A browser that dies (crash, killed) ends its session.
    yield* Effect.forkDaemon(Effect.zipRight(live.closed, end(entry)))
    return entry.info
  })

  const exclusive = <A, E>(entry: Entry, effect: Effect.Effect<A, E>) =>
    Effect.zipRight(touch(entry), entry.lock.withPermits(1)(effect)).pipe(Effect.ensuring(touch(entry)))

  return {
    open,
    /** The session, active or ended a while ago. */
    get: (owner: Owner, id: string): Effect.Effect<SessionInfo, RequestError> => {
      const entry = active.get(id) ?? destroyed.find((candidate) => candidate.info.id === id)
      return entry !== undefined && entry.owner === owner ? Effect.succeed(entry.info) : Effect.fail(notFound(id))
    },
    /** The owner's sessions, newest first. */
    list: (owner: Owner, status?: "active" | "destroyed") =>
      Effect.sync(() =>
        [
          ...[...active.values()].filter((entry) => entry.owner === owner).map((entry) => entry.info),
          ...destroyed.filter((entry) => entry.owner === owner).map((entry) => entry.info),
        ]
          .filter((info) => status === undefined || info.status === status)
          .sort((a, b) => b.createdAt - a.createdAt),
      ),
    /** The active session that continues a scrape, if one is open. */
    forScrape: (owner: Owner, scrapeId: string) =>
      Effect.sync(() =>
        Option.fromNullable(
          [...active.values()].find((entry) => entry.owner === owner && entry.info.scrapeId === scrapeId)?.info,
        ),
      ),
    destroy: Effect.fn("InteractSessions.destroy")(function* (owner: Owner, id: string) {
      const entry = yield* entryOf(owner, id)
      yield* end(entry)
      return { durationMs: Date.now() - entry.info.createdAt }
    }),
    runActions: (
      owner: Owner,
      id: string,
      actions: ReadonlyArray<Action>,
      timeoutMs: number,
      url?: string,
    ): Effect.Effect<SessionRun, RequestError | ScrapeError> =>
      Effect.flatMap(entryOf(owner, id), (entry) => exclusive(entry, entry.live.run(actions, timeoutMs, url))),
    runCode: (
      owner: Owner,
      id: string,
      code: string,
      language: "node" | "python" | "bash",
      timeoutMs: number,
    ): Effect.Effect<CodeRun, RequestError | ScrapeError> =>
      Effect.gen(function* () {
        const entry = yield* entryOf(owner, id)
        if (language !== "node")
          return yield* new RequestError({
            reason: "Validation",
            code: "BAD_REQUEST",
            message: `Only "node" code can run here; ${language} is not available. Send Node.js code or an 'actions' list.`,
          })
        if (!config.allowCode)
          return yield* new RequestError({
            reason: "Forbidden",
            code: "INTERACT_CODE_DISABLED",
            message:
              "Running code in sessions is turned off on this server (the operator enables it with WEBDATA_INTERACT_ALLOW_CODE=1). Send an 'actions' list instead.",
          })
        return yield* exclusive(entry, entry.live.runCode(code, timeoutMs))
      }),
    /** The session a socket's token opens: the view token watches, the control token also drives. */
    access: (id: string, offered: string): Effect.Effect<SessionAccess, RequestError> => {
      const entry = active.get(id)
      if (entry === undefined) return Effect.fail(notFound(id))
      const control = sameToken(offered, entry.info.controlToken)
      if (!control && !sameToken(offered, entry.info.viewToken)) return Effect.fail(notFound(id))
      return Effect.succeed({ live: entry.live, control, touch: touch(entry) })
    },
  }
})

export class InteractSessions extends Context.Tag("@webdata/core/InteractSessions")<
  InteractSessions,
  Effect.Effect.Success<typeof make>
>() {}

export const layer: Layer.Layer<InteractSessions, never, JobStore | InteractConfig> = Layer.scoped(
  InteractSessions,
  make,
)
