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
}

export interface RenderedPage extends FetchedPage {
  /** The screenshot asked for, as a `data:` URL. */
  readonly screenshot?: string
  /** What the actions gave, when there were actions. */
  readonly actions?: ActionResults
}

export class BrowserEngine extends Context.Tag("@webdata/core/BrowserEngine")<
  BrowserEngine,
  {
    /** The page as the browser has it after loading and waiting: its DOM serialised as HTML, in `body`. */
    readonly render: (request: RenderRequest) => Effect.Effect<RenderedPage, ScrapeError>
  }
>() {}
