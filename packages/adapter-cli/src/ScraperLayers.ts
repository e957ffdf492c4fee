/** The scrapers of the CLI: the engine in this process, or a server's `POST /v2/scrape` (`--api-url`). */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import {
  Decode,
  type Document,
  decodeParseOptionsValue,
  MapError,
  mapError,
  Parse,
  RequestError,
  Scrape,
  ScrapeError,
  ScrapeRequest,
} from "@webdata/core/engine"
import { MemoryJobStore } from "@webdata/core/jobs"
import { Effect, Layer } from "effect"
import { CliFailure } from "./CliFailure.js"
import { localEngine } from "./LocalEngine.js"
import { Scraper } from "./Scraper.js"

/** The first `code` (`ECONNREFUSED`, `ENOTFOUND`, …) along an error's chain of causes. */
const systemCode = (error: unknown): string | undefined => {
  for (let cause = error, depth = 0; cause instanceof Object && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === "string") return code
    cause = (cause as { cause?: unknown }).cause
  }
  return undefined
}

/** A request to `--api-url` that never got an answer, in words. */
const describeTransport = (error: HttpClientError.RequestError): string => {
  const target = error.request.url
  if (error.reason === "InvalidUrl" || !/^https?:\/\//i.test(target))
    return `--api-url must be an http(s) URL such as http://127.0.0.1:3002 (got ${target.replace(/\/v2\/.*$/, "")})`
  const origin = new URL(target).origin
  const code = systemCode(error.cause)
  const why = error.cause instanceof Error && error.cause.cause instanceof Error ? error.cause.cause.message : undefined
  return code === "ECONNREFUSED"
    ? `cannot reach the API at ${origin}: connection refused (is the server running?)`
    : `cannot reach the API at ${origin}${code !== undefined ? ` (${code})` : why !== undefined ? ` (${why})` : ""}`
}

const describe = (error: unknown): string => {
  if (error instanceof RequestError || error instanceof ScrapeError || error instanceof MapError) {
    const { code, message } = mapError(error)
    return `${message} (${code})`
  }
  if (HttpClientError.isHttpClientError(error) && error._tag === "RequestError") return describeTransport(error)
  return error instanceof Error ? error.message : String(error)
}

/** An engine error (or any other) as the one line the CLI prints. */
export const fail = (error: unknown): CliFailure => new CliFailure(describe(error).split("\n")[0] ?? "failed")

export const layerLocal: Layer.Layer<Scraper> = Layer.effect(
  Scraper,
  Effect.gen(function* () {
    const scraper = yield* Scrape.Scrape
    const parser = yield* Parse.Parse
    return {
      scrape: (url, options) =>
        Decode.decodeStrict(ScrapeRequest)({ ...options, url }).pipe(
          Effect.flatMap(scraper.scrape),
          Effect.mapError(fail),
        ),
      parse: (file, options) =>
        decodeParseOptionsValue(options).pipe(
          Effect.flatMap((decoded) => parser.parse(file, decoded)),
          Effect.mapError(fail),
        ),
    }
  }),
).pipe(Layer.provide(localEngine(MemoryJobStore.layer())))

interface ApiAnswer {
  readonly success?: boolean
  readonly data?: Document
  readonly error?: string
  readonly code?: string
}

/** A server's answer as the document, or the one line the CLI prints. */
const documentOf = (answer: unknown): Effect.Effect<Document, CliFailure> => {
  const { success, data, error, code } = answer as ApiAnswer
  return success === true && data !== undefined
    ? Effect.succeed(data)
    : Effect.fail(new CliFailure(`${error ?? "The server answered without a document"}${code ? ` (${code})` : ""}`))
}

/**
 * Remote mode: the same request to a server's `POST /v2/scrape` (validated here first so typos fail fast), files as
 * a multipart upload to `POST /v2/parse`.
 */
export const layerRemote = (apiUrl: string, apiKey: string | undefined): Layer.Layer<Scraper> =>
  Layer.effect(
    Scraper,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const base = apiUrl.replace(/\/+$/, "")
      const endpoint = `${base}/v2/scrape`
      const send = (request: HttpClientRequest.HttpClientRequest) =>
        request.pipe(
          apiKey ? HttpClientRequest.bearerToken(apiKey) : (unchanged) => unchanged,
          client.execute,
          Effect.flatMap((response) => response.json),
          Effect.scoped,
        )
      return {
        scrape: (url, options) => {
          const body = { ...options, url, origin: "webdata-cli" }
          return Decode.decodeStrict(ScrapeRequest)(body).pipe(
            Effect.zipRight(send(HttpClientRequest.post(endpoint).pipe(HttpClientRequest.bodyUnsafeJson(body)))),
            Effect.mapError(fail),
            Effect.flatMap(documentOf),
          )
        },
        parse: (file, options) => {
          const form = new FormData()
          form.append("file", new Blob([new Uint8Array(file.bytes)]), file.name)
          form.append("options", JSON.stringify({ ...options, origin: "webdata-cli" }))
          return decodeParseOptionsValue(options).pipe(
            Effect.zipRight(
              send(HttpClientRequest.post(`${base}/v2/parse`).pipe(HttpClientRequest.bodyFormData(form))),
            ),
            Effect.mapError(fail),
            Effect.flatMap(documentOf),
          )
        },
      }
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
