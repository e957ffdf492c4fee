/**
 * The Promise facade for apps that do not use Effect: `new Webdata(options).scrape(url, options)`. It validates
 * options exactly like the HTTP API and throws `WebdataError`s that carry Firecrawl's error `code`.
 */
import { Cause, Effect, Exit, ManagedRuntime, Option } from "effect"
import { decodeStrict } from "./Domain/Decode.js"
import type { Document } from "./Domain/Document.js"
import { type ScrapeOptionsInput, ScrapeRequest } from "./Domain/ScrapeOptions.js"
import * as Engine from "./Engine.js"
import type { EngineError } from "./Errors.js"
import { mapError } from "./Http/ErrorResponse.js"
import { Scrape } from "./Scrape.js"

/** A failed engine call: `code` is the API's error code (`SCRAPE_TIMEOUT`, `BAD_REQUEST`, ...). */
export class WebdataError extends Error {
  override readonly name = "WebdataError"
  readonly code: string
  /** The HTTP status the REST API answers for this error. */
  readonly status: number
  /** For validation errors: the list of issues. */
  readonly details: unknown
  constructor(override readonly cause: EngineError) {
    const { code, status, message } = mapError(cause)
    super(message)
    this.code = code
    this.status = status
    this.details = cause._tag === "RequestError" ? cause.details : undefined
  }
}

export interface WebdataOptions extends Engine.EngineOptions {}

export class Webdata {
  readonly #runtime: ManagedRuntime.ManagedRuntime<Engine.EngineServices, never>

  constructor(options: WebdataOptions = {}) {
    this.#runtime = ManagedRuntime.make(Engine.layer(options))
  }

  async #run<A>(effect: Effect.Effect<A, EngineError, Engine.EngineServices>): Promise<A> {
    const exit = await this.#runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) throw new WebdataError(failure.value)
    throw Cause.squash(exit.cause)
  }

  /** Scrapes one URL. Options are the v2 scrape options (`formats`, `onlyMainContent`, `timeout`, ...). */
  scrape(url: string, options: Omit<ScrapeOptionsInput, "url"> = {}): Promise<Document> {
    return this.#run(
      Effect.gen(function* () {
        const request = yield* decodeStrict(ScrapeRequest)({ ...options, url })
        const scraper = yield* Scrape
        return yield* scraper.scrape(request)
      }),
    )
  }

  /** Releases connections and caches. The instance cannot be used afterwards. */
  close(): Promise<void> {
    return this.#runtime.dispose()
  }
}
