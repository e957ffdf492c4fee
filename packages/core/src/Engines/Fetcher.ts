/**
 * The plain-HTTP engine: one GET with redirects followed by hand (each hop re-checked by the URL guard), cookies
 * kept across hops, caps on time, size and decompressed size.
 */
import { Context, type Effect } from "effect"
import type { ScrapeError } from "../Errors.js"

export interface FetchRequest {
  readonly url: string
  /** Request headers from the caller; they override the defaults (User-Agent, Accept, ...). */
  readonly headers: Readonly<Record<string, string>>
  /** Budget for the whole fetch: every hop and the body. */
  readonly timeoutMs: number
  readonly skipTlsVerification: boolean
  /** Send the request through this proxy (`http://[user:pass@]host:port`) instead of connecting directly. */
  readonly proxy?: string | undefined
}

export interface FetchedPage {
  /** The final URL after redirects. */
  readonly url: string
  readonly status: number
  /** Response headers of the final hop, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | undefined
  /** The decompressed body bytes. */
  readonly body: Uint8Array
}

export class Fetcher extends Context.Tag("@webdata/core/Fetcher")<
  Fetcher,
  { readonly fetch: (request: FetchRequest) => Effect.Effect<FetchedPage, ScrapeError> }
>() {}
