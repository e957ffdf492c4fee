/**
 * The browser engine's port: a page loaded and run in a browser, for what plain HTTP cannot give (pages rendered by
 * JavaScript, `waitFor`). Core names what it needs; `@webdata/browser` provides it on Chromium, and an engine without
 * it answers the options that need it with a 400 (`Scrape/Capabilities.ts`).
 */
import { Context, type Effect } from "effect"
import type { Action } from "../Domain/Actions.js"
import type { ActionResults } from "../Domain/Document.js"
import type { ScrapeError } from "../Errors.js"
import type { FetchedPage, FetchRequest } from "./Fetcher.js"

export interface ScreenshotRequest {
  /** The whole page rather than the viewport. */
  readonly fullPage: boolean
  /** JPEG at this quality (1–100); PNG without it. */
  readonly quality?: number | undefined
  /** The page is laid out at this size (default 1280 × 800). */
  readonly viewport?: { readonly width: number; readonly height: number } | undefined
}

export interface RenderRequest extends FetchRequest {
  /** Extra time to wait after the page has loaded, in milliseconds (the scrape's `waitFor`). */
  readonly waitForMs: number
  readonly screenshot?: ScreenshotRequest | undefined
  /** Run in order after `waitForMs`, before the page is read; a failing one fails the render (`ActionFailed`). */
  readonly actions?: ReadonlyArray<Action> | undefined
  /** Emulate a phone: its viewport, pixel ratio, touch and user agent. */
  readonly mobile?: boolean | undefined
  /** The country the page should see the visit from (locale, time zone, `Accept-Language`) and its languages. */
  readonly location?:
    | { readonly country?: string | undefined; readonly languages?: ReadonlyArray<string> | undefined }
    | undefined
  /** Refuse ad and tracker requests and take ads and cookie banners out of the page (Firecrawl's `blockAds`). */
  readonly blockAds?: boolean | undefined
  /** Cookies and storage to start with (a saved profile's). */
  readonly storageState?: unknown
  /** Give back the cookies and storage the page left (`RenderedPage.storageState`), to save a profile. */
  readonly keepState?: boolean | undefined
}

export interface RenderedPage extends FetchedPage {
  /** The screenshot asked for, as a `data:` URL. */
  readonly screenshot?: string
  /** What the actions gave, when there were actions. */
  readonly actions?: ActionResults
  /** The cookies and storage after the page, when `keepState` asked for them. */
  readonly storageState?: unknown
  /** Requests of the page the URL guard refused (sub-resources, WebSockets, redirects), in order. */
  readonly blockedUrls?: ReadonlyArray<string>
}

/** How a live session's browser starts. */
export interface SessionSettings {
  /** Cookies and storage to start with (what `LiveSession.storageState` gave before, from a saved profile). */
  readonly storageState?: unknown
  /** A page to open first (a scrape's page, for `POST /v2/scrape/{id}/interact`). */
  readonly url?: string | undefined
  readonly mobile?: boolean | undefined
  readonly location?: RenderRequest["location"]
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** How long opening the first page may take. */
  readonly timeoutMs: number
}

/** What a run of actions on a live session gave. */
export interface SessionRun {
  /** The page's URL after the actions. */
  readonly url: string
  readonly actions: ActionResults
}

/** How code run against a live session ended: Firecrawl's execute answer. */
export interface CodeRun {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number | null
  /** The code ran out of time and was stopped. */
  readonly killed: boolean
  /** What the code threw, when it threw. */
  readonly error?: string | undefined
}

/** One frame of a live view: a JPEG of the page and the size it was taken at. */
export interface LiveFrame {
  readonly data: string
  readonly width: number
  readonly height: number
}

/** A viewer's input forwarded to a live session's page (coordinates in the frame's CSS pixels). */
export type LiveInput =
  | { readonly type: "click"; readonly x: number; readonly y: number }
  | { readonly type: "scroll"; readonly x: number; readonly y: number; readonly deltaY: number }
  | { readonly type: "key"; readonly key: string }
  | { readonly type: "text"; readonly text: string }

/** A browser kept open for one caller: a page they drive with actions, code, the DevTools protocol or a live view. */
export interface LiveSession {
  /**
   * A WebSocket URL on the loopback interface speaking the Chrome DevTools Protocol for this session only (what
   * `connectOverCDP` takes); hosts relay it to their callers behind their own authentication.
   */
  readonly cdpEndpoint: string
  /** Opens `url` first when given, then runs the actions on the session's page. */
  readonly run: (
    actions: ReadonlyArray<Action>,
    timeoutMs: number,
    url?: string | undefined,
  ) => Effect.Effect<SessionRun, ScrapeError>
  /** Runs Node.js code with `page`, `context` and `browser` in scope, in a child process, for at most `timeoutMs`. */
  readonly runCode: (code: string, timeoutMs: number) => Effect.Effect<CodeRun, ScrapeError>
  /** Cookies and storage now, to save as a profile. */
  readonly storageState: Effect.Effect<unknown, ScrapeError>
  /** Sends frames of the page to `onFrame` until the returned effect stops it. */
  readonly watch: (onFrame: (frame: LiveFrame) => void) => Effect.Effect<Effect.Effect<void>, ScrapeError>
  readonly input: (event: LiveInput) => Effect.Effect<void, ScrapeError>
  /** Succeeds when the browser has gone (closed, crashed or killed). */
  readonly closed: Effect.Effect<void>
  readonly close: Effect.Effect<void>
}

/** What the engine holds open now (for metrics). */
export interface BrowserUsage {
  /** Pages being rendered, each in a browser context of its own. */
  readonly pages: number
  /** Live sessions (interact, browser), each a browser of its own. */
  readonly sessions: number
}

export class BrowserEngine extends Context.Tag("@webdata/core/BrowserEngine")<
  BrowserEngine,
  {
    /** Succeeds once the browser is running and connected, launching it if none is (the readiness check). */
    readonly probe: Effect.Effect<void, ScrapeError>
    readonly usage: Effect.Effect<BrowserUsage>
    /** The page as the browser has it after loading and waiting: its DOM serialised as HTML, in `body`. */
    readonly render: (request: RenderRequest) => Effect.Effect<RenderedPage, ScrapeError>
    /** A browser of its own for one caller, open until closed (`InteractSessions` bounds its life). */
    readonly openSession: (settings: SessionSettings) => Effect.Effect<LiveSession, ScrapeError>
  }
>() {}
