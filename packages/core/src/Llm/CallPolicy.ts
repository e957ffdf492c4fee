/**
 * How one call to a provider is bounded: a time limit per attempt (a model server that hangs gives `Timeout`, and the
 * request is aborted), and two retries with backoff when the provider could not be reached or answered 429 / 5xx (a
 * short `Retry-After` is honoured; a long one gives up at once), after which it is `Unavailable`. Any other 4xx is
 * the provider refusing the request, with its message, and is not retried.
 */
import type * as AiError from "@effect/ai/AiError"
import { Data, Duration, Effect } from "effect"
import { retryAfterMs } from "../Net/RetryAfter.js"

export class ProviderFailure extends Data.TaggedError("ProviderFailure")<{
  readonly reason: "Unavailable" | "Timeout" | "ProviderError"
  /** What happened, without the model's name (the caller adds it). */
  readonly message: string
  /** The HTTP status the provider answered with, when it answered. */
  readonly status?: number
  /** How long the provider asked to wait (429, 503). */
  readonly retryAfterMs?: number
  readonly cause?: unknown
}> {}

export interface CallPolicy {
  /** Time allowed to one attempt, from sending the request to reading the whole answer. */
  readonly timeoutMs: number
  /** Retries after the first attempt, for `Unavailable`. */
  readonly retries: number
  /** Delay before the first retry; each next one is three times longer. */
  readonly backoffMs: number
  /** A `Retry-After` longer than this is not waited for. */
  readonly maxRetryAfterMs: number
}

export const defaultCallPolicy: CallPolicy = {
  timeoutMs: 120_000,
  retries: 2,
  backoffMs: 500,
  maxRetryAfterMs: 20_000,
}

const headerValue = (headers: Readonly<Record<string, string>>, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
  return undefined
}

/** `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date. */
const retryAfterOf = (headers: Readonly<Record<string, string>>, now = Date.now()): number | undefined => {
  const exact = headerValue(headers, "retry-after-ms")
  const ms = Number(exact)
  if (exact !== undefined && Number.isFinite(ms) && ms >= 0) return ms
  return retryAfterMs(headerValue(headers, "retry-after"), now)
}

const oneLine = (text: string, max = 300): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max)}…` : line
}

/** What an `@effect/ai` error means for the engine. */
export const classify = (error: AiError.AiError): ProviderFailure => {
  switch (error._tag) {
    case "HttpRequestError":
      return new ProviderFailure({
        reason: "Unavailable",
        message: `could not reach ${error.request.url} (${oneLine(error.description ?? error.reason)})`,
        cause: error,
      })
    case "HttpResponseError": {
      const status = error.response.status
      const said = oneLine(error.description ?? error.body ?? "no message")
      if (error.reason !== "StatusCode")
        return new ProviderFailure({
          reason: "ProviderError",
          message: `its answer could not be read (HTTP ${status}, ${error.reason}: ${said})`,
          status,
          cause: error,
        })
      if (status === 429 || status === 408 || status >= 500) {
        const wait = retryAfterOf(error.response.headers)
        return new ProviderFailure({
          reason: "Unavailable",
          message: `HTTP ${status}: ${said}`,
          status,
          ...(wait !== undefined ? { retryAfterMs: wait } : {}),
          cause: error,
        })
      }
      return new ProviderFailure({ reason: "ProviderError", message: `HTTP ${status}: ${said}`, status, cause: error })
    }
    case "MalformedOutput":
      return new ProviderFailure({
        reason: "ProviderError",
        message: `its answer could not be read (${oneLine(error.description ?? "unexpected shape")})`,
        cause: error,
      })
    case "MalformedInput":
      return new ProviderFailure({
        reason: "ProviderError",
        message: `the request could not be made (${oneLine(error.description ?? "unsupported input")})`,
        cause: error,
      })
    case "UnknownError":
      return new ProviderFailure({
        reason: "ProviderError",
        message: oneLine(error.description ?? error.message),
        cause: error,
      })
  }
}

const withMessage = (failure: ProviderFailure, message: string): ProviderFailure =>
  new ProviderFailure({
    reason: failure.reason,
    message,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
    cause: failure.cause,
  })

/** `call` under `policy`: each attempt timed, `Unavailable` retried with backoff. */
export const withCallPolicy = <A, R>(
  call: Effect.Effect<A, AiError.AiError, R>,
  policy: CallPolicy,
): Effect.Effect<A, ProviderFailure, R> => {
  const attempt = call.pipe(
    Effect.mapError(classify),
    Effect.timeoutFail({
      duration: Duration.millis(policy.timeoutMs),
      onTimeout: () => new ProviderFailure({ reason: "Timeout", message: `no answer within ${policy.timeoutMs} ms` }),
    }),
  )
  const run = (retry: number): Effect.Effect<A, ProviderFailure, R> =>
    Effect.catchAll(attempt, (failure) => {
      if (failure.reason !== "Unavailable") return Effect.fail(failure)
      const attempts = retry + 1
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs)
        return Effect.fail(
          withMessage(failure, `${failure.message} (asked to retry after ${Math.ceil(failure.retryAfterMs / 1000)} s)`),
        )
      if (retry >= policy.retries) return Effect.fail(withMessage(failure, `${failure.message} (${attempts} attempts)`))
      const delay = failure.retryAfterMs ?? policy.backoffMs * 3 ** retry
      return Effect.zipRight(Effect.sleep(Duration.millis(delay)), run(retry + 1))
    })
  return run(0)
}
