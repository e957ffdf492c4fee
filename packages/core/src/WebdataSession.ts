/**
 * An interact session in the Promise facade (`webdata.interact()`): a browser kept open for the caller, driven with
 * actions or code, read as a document with `scrape`, and ended with `close` (or `await using`).
 */
import { Effect } from "effect"
import { v7 as uuidv7 } from "uuid"
import type { Action } from "./Domain/Actions.js"
import { decodeStrict } from "./Domain/Decode.js"
import type { Document } from "./Domain/Document.js"
import { type ScrapeOptionsInput, ScrapeRequest } from "./Domain/ScrapeOptions.js"
import type { EngineServices } from "./Engine.js"
import type { CodeRun, SessionRun } from "./Engines/Browser.js"
import type { EngineError } from "./Errors.js"
import { InteractSessions } from "./Interact/InteractSessions.js"
import type { StoreError } from "./Jobs/JobStore.js"
import { buildDocument } from "./Scrape/BuildDocument.js"

export interface InteractOptions {
  /** Seconds the session lives at most (30–3600, default 600). */
  readonly ttl?: number
  /** Seconds without use after which it ends (10–3600, default 300). */
  readonly activityTtl?: number
  /** Cookies and storage kept under a name: loaded at the start, saved at the end unless `saveChanges: false`. */
  readonly profile?: { readonly name: string; readonly saveChanges?: boolean }
}

export type ExecuteInput =
  | {
      readonly actions: ReadonlyArray<Action>
      /** A page to open before the actions. */
      readonly url?: string
      /** Seconds (default 30). */
      readonly timeout?: number
    }
  | { readonly code: string; readonly language?: "node"; readonly timeout?: number }

/** The facade's way to run an effect: failures thrown as `WebdataError`. */
export type Runner = <A>(effect: Effect.Effect<A, EngineError | StoreError, EngineServices>) => Promise<A>

export class WebdataSession implements AsyncDisposable {
  readonly #run: Runner

  constructor(
    readonly id: string,
    /** The session's DevTools WebSocket on the loopback interface: `chromium.connectOverCDP(session.cdpUrl)`. */
    readonly cdpUrl: string,
    readonly expiresAt: Date,
    run: Runner,
  ) {
    this.#run = run
  }

  /** Runs actions (the scrape's action list) or, where `interact.allowCode` is on, Node.js code with `page` in scope. */
  execute(input: {
    readonly actions: ReadonlyArray<Action>
    readonly url?: string
    readonly timeout?: number
  }): Promise<SessionRun>
  execute(input: { readonly code: string; readonly language?: "node"; readonly timeout?: number }): Promise<CodeRun>
  execute(input: ExecuteInput): Promise<SessionRun | CodeRun> {
    const timeoutMs = (input.timeout ?? 30) * 1000
    return this.#run<SessionRun | CodeRun>(
      Effect.flatMap(
        InteractSessions,
        (sessions): Effect.Effect<SessionRun | CodeRun, EngineError> =>
          "actions" in input
            ? sessions.runActions(null, this.id, input.actions, timeoutMs, input.url)
            : sessions.runCode(null, this.id, input.code, input.language ?? "node", timeoutMs),
      ),
    )
  }

  /** The session's page now, through the content pipeline: the formats asked for (markdown by default). */
  async scrape(options: Omit<ScrapeOptionsInput, "url" | "actions"> = {}): Promise<Document> {
    const run = await this.execute({ actions: [{ type: "scrape" }] })
    const page = run.actions.scrapes[0]!
    return this.#run(
      Effect.map(decodeStrict(ScrapeRequest)({ ...options, url: page.url }), (request) =>
        buildDocument(
          request,
          { url: page.url, statusCode: 200, contentType: "text/html; charset=utf-8", body: page.html },
          { sourceURL: page.url, scrapeId: uuidv7(), cacheState: "miss" },
        ),
      ),
    )
  }

  /** Ends the session: its profile saved (when it saves changes), its browser closed. */
  async close(): Promise<void> {
    await this.#run(Effect.flatMap(InteractSessions, (sessions) => sessions.destroy(null, this.id)))
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close().catch(() => undefined)
  }
}
