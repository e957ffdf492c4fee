/**
 * The browser engine's port: a page loaded and run in a browser, for what plain HTTP cannot give (pages rendered by
 * JavaScript, `waitFor`). Core names what it needs; `@webdata/browser` provides it on Chromium, and an engine without
 * it answers the options that need it with a 400 (`Scrape/Capabilities.ts`).
 */
import { Context, type Effect } from "effect"
import type { ScrapeError } from "../Errors.js"
import type { FetchedPage, FetchRequest } from "./Fetcher.js"

export interface RenderRequest extends FetchRequest {
  /** Extra time to wait after the page has loaded, in milliseconds (the scrape's `waitFor`). */
  readonly waitForMs: number
}

export class BrowserEngine extends Context.Tag("@webdata/core/BrowserEngine")<
  BrowserEngine,
  {
    /** The page as the browser has it after loading and waiting: its DOM serialised as HTML, in `body`. */
    readonly render: (request: RenderRequest) => Effect.Effect<FetchedPage, ScrapeError>
  }
>() {}
