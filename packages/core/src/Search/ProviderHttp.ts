/**
 * One request to a search provider's API, with the failures every provider maps the same way: no answer in time
 * (`Timeout`), 429 (`RateLimited`, with `Retry-After` when given), other 4xx (`Refused`), a server error or no
 * connection (`Unavailable`), an answer of the wrong type or too large (`InvalidResponse`).
 *
 * Provider URLs are the operator's configuration, not callers' input, so they do not pass the URL guard (a SearXNG on
 * the same machine is the usual set-up).
 */
import { Effect } from "effect"
import { retryAfterMs } from "../Net/RetryAfter.js"
import { SearchError } from "./SearchProvider.js"

/** Answers larger than this are refused: a provider's page of results is a few hundred KB at most. */
const MAX_BODY_BYTES = 8 * 1024 * 1024

export interface ProviderRequest {
  /** The provider's name, for messages. */
  readonly provider: string
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  readonly timeoutMs: number
}

const readCapped = async (response: Response): Promise<string> => {
  const declared = Number(response.headers.get("content-length") ?? "0")
  if (declared > MAX_BODY_BYTES) throw new Error(`answer of ${declared} bytes`)
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel()
      throw new Error(`answer over ${MAX_BODY_BYTES} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const failureOf = (provider: string, response: Response): SearchError => {
  const { status } = response
  if (status === 429) {
    const wait = retryAfterMs(response.headers.get("retry-after") ?? undefined, Date.now())
    const after = wait !== undefined ? ` (retry after ${Math.ceil(wait / 1000)} s)` : ""
    return new SearchError({ reason: "RateLimited", message: `${provider} is rate limiting this server${after}` })
  }
  // Any other 4xx is the provider refusing this request (a bad key, a parameter it rejects: Brave answers 422 to both).
  if (status >= 400 && status < 500 && status !== 408)
    return new SearchError({ reason: "Refused", message: `${provider} refused the request (HTTP ${status})` })
  return new SearchError({ reason: "Unavailable", message: `${provider} answered HTTP ${status}` })
}

/** The answer's body as text, when the status is 2xx. */
export const requestText = (request: ProviderRequest): Effect.Effect<string, SearchError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(request.url, {
        method: request.method ?? "GET",
        headers: request.headers ?? {},
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: AbortSignal.any([signal, AbortSignal.timeout(request.timeoutMs)]),
        redirect: "follow",
      })
      if (!response.ok) {
        await response.body?.cancel()
        return { failure: failureOf(request.provider, response) } as const
      }
      return { text: await readCapped(response) } as const
    },
    catch: (error) => {
      const name = error instanceof Error ? error.name : ""
      if (name === "TimeoutError" || name === "AbortError")
        return new SearchError({
          reason: "Timeout",
          message: `${request.provider} did not answer within ${request.timeoutMs} ms`,
        })
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
      const message = error instanceof Error ? error.message : String(error)
      return /bytes/.test(message)
        ? new SearchError({ reason: "InvalidResponse", message: `${request.provider} sent an ${message}` })
        : new SearchError({ reason: "Unavailable", message: `${request.provider} could not be reached${cause}` })
    },
  }).pipe(Effect.flatMap((result) => ("failure" in result ? Effect.fail(result.failure) : Effect.succeed(result.text))))

/** The answer's body parsed as JSON. */
export const requestJson = (request: ProviderRequest): Effect.Effect<unknown, SearchError> =>
  Effect.flatMap(requestText(request), (text) =>
    Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () =>
        new SearchError({ reason: "InvalidResponse", message: `${request.provider} answered something not JSON` }),
    }),
  )

/** A provider's answer that does not have the shape its documentation gives. */
export const malformed = (provider: string, what: string): SearchError =>
  new SearchError({ reason: "InvalidResponse", message: `${provider} answered in an unexpected format: ${what}` })

/** Fails `Unsupported` for a source the provider does not have. */
export const unsupportedSource = (provider: string, source: string): SearchError =>
  new SearchError({ reason: "Unsupported", message: `${provider} has no ${source} search` })
