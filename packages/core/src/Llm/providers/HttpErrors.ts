/**
 * What every provider's HTTP client does with an error status: it fails at once with the provider's own message
 * (OpenAI's and Anthropic's `error.message`, Ollama's `error`, vLLM's `message`, FastAPI's `detail`) as the
 * `ResponseError`'s description, whatever the body's shape, so that the generated clients never try to decode an
 * error body they do not know and the engine can say what the provider said.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Effect } from "effect"

const MAX_MESSAGE = 500

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const clip = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line
}

const messageIn = (body: unknown): string | undefined => {
  if (typeof body === "string") return body
  if (!isRecord(body)) return undefined
  const error = body.error
  if (typeof error === "string") return error
  if (isRecord(error) && typeof error.message === "string") return error.message
  if (typeof body.message === "string") return body.message
  if (typeof body.detail === "string") return body.detail
  if (Array.isArray(body.detail)) return JSON.stringify(body.detail)
  return undefined
}

/** The message in an error response's body, on one line; the body itself when it has no known shape. */
export const providerMessage = (body: string): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = undefined
  }
  const message = messageIn(parsed) ?? body
  return message.trim() === "" ? "(no message)" : clip(message)
}

/** Fails every response outside 2xx with a `StatusCode` `ResponseError` described by the provider's message. */
export const failOnErrorStatus = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transformResponse(client, (response) =>
    Effect.flatMap(response, (each) =>
      each.status >= 200 && each.status < 300
        ? Effect.succeed(each)
        : Effect.flatMap(
            Effect.orElseSucceed(each.text, () => ""),
            (body) =>
              Effect.fail(
                new HttpClientError.ResponseError({
                  request: each.request,
                  response: each,
                  reason: "StatusCode",
                  description: providerMessage(body),
                }),
              ),
          ),
    ),
  )
