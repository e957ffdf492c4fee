/**
 * Where the CLI's work runs: in this process (the engine configured from the environment) or, with `--api-url`, on a
 * webdata or Firecrawl server through the typed client of the same contract.
 */
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import {
  Decode,
  type Document,
  Engine,
  ErrorBody,
  mapError,
  Scrape,
  type ScrapeOptionsInput,
  ScrapeRequest,
  WebdataApi,
} from "@webdata/core"
import { Context, Effect, Layer } from "effect"

/** A one-line failure the CLI prints before exiting with status 1. */
export class CliFailure extends Error {}

export interface ScraperShape {
  readonly scrape: (url: string, options: Omit<ScrapeOptionsInput, "url">) => Effect.Effect<Document, CliFailure>
}

export class Scraper extends Context.Tag("@webdata/adapter-cli/Scraper")<Scraper, ScraperShape>() {}

const describe = (error: unknown): string => {
  if (error instanceof ErrorBody) return `${error.error}${error.code ? ` (${error.code})` : ""}`
  if (error !== null && typeof error === "object" && "_tag" in error) {
    const tagged = error as { _tag: string; message?: string; error?: string }
    if (tagged._tag === "RequestError" || tagged._tag === "ScrapeError") {
      const { code, message } = mapError(error as Parameters<typeof mapError>[0])
      return `${message} (${code})`
    }
    return tagged.error ?? tagged.message ?? tagged._tag
  }
  return error instanceof Error ? error.message : String(error)
}

const fail = (error: unknown) => new CliFailure(describe(error).split("\n")[0] ?? "failed")

export const layerLocal: Layer.Layer<Scraper> = Layer.effect(
  Scraper,
  Effect.gen(function* () {
    const scraper = yield* Scrape.Scrape
    return {
      scrape: (url, options) =>
        Decode.decodeStrict(ScrapeRequest)({ ...options, url }).pipe(
          Effect.flatMap(scraper.scrape),
          Effect.mapError(fail),
        ),
    }
  }),
).pipe(Layer.provide(Engine.layerConfig))

export const layerRemote = (apiUrl: string, apiKey: string | undefined): Layer.Layer<Scraper> =>
  Layer.effect(
    Scraper,
    Effect.gen(function* () {
      const client = yield* HttpApiClient.make(WebdataApi, {
        baseUrl: apiUrl.replace(/\/+$/, ""),
        transformClient: HttpClient.mapRequest((request) =>
          apiKey ? HttpClientRequest.bearerToken(request, apiKey) : request,
        ),
      })
      return {
        scrape: (url, options) =>
          Decode.decodeStrict(ScrapeRequest)({ ...options, url, origin: "webdata-cli" }).pipe(
            Effect.flatMap((payload) => client.scrape.scrape({ payload })),
            Effect.map((response) => response.data as Document),
            Effect.mapError(fail),
          ),
      }
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
