/** Requests to the v2 API of a server (`--api-url`), as the CLI's remote clients make them. */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect } from "effect"
import { CliFailure } from "./CliFailure.js"
import { fail } from "./ScraperLayers.js"

/** What any answer may say about a failure. */
export interface ApiFailure {
  readonly success?: boolean
  readonly error?: string
  readonly code?: string
}

/**
 * A request's answer, or its error as the CLI's one line. A status read (`status: true`) takes `success: false` as an
 * answer: an extract or agent run that failed says so that way, with its steps and warnings.
 */
export const makeCall =
  <A extends ApiFailure>(client: HttpClient.HttpClient, apiKey: string | undefined) =>
  (request: HttpClientRequest.HttpClientRequest, { status: isStatus = false } = {}): Effect.Effect<A, CliFailure> =>
    (apiKey ? HttpClientRequest.bearerToken(request, apiKey) : request).pipe(
      client.execute,
      Effect.flatMap((response) =>
        Effect.map(
          Effect.orElseSucceed(response.json, () => ({})),
          (body) => [response.status, body as A] as const,
        ),
      ),
      Effect.scoped,
      Effect.mapError(fail),
      Effect.flatMap(([status, answer]) =>
        status >= 400 || (answer.success === false && !isStatus)
          ? Effect.fail(
              new CliFailure(
                `${answer.error ?? `The server answered ${status}`}${answer.code ? ` (${answer.code})` : ""}`,
              ),
            )
          : Effect.succeed(answer),
      ),
    )

/**
 * `skip` of an answer's `next` link. Only the cursor is taken from it: the link's host is the server's view of
 * itself, which behind a proxy may not be reachable from here.
 */
export const skipOf = (next: string | null | undefined, fallback: number): number | undefined => {
  if (typeof next !== "string") return undefined
  const skip = Number(new URL(next, "http://localhost").searchParams.get("skip") ?? Number.NaN)
  return Number.isInteger(skip) && skip >= 0 ? skip : fallback
}
