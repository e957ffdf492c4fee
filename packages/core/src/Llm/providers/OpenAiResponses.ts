/**
 * OpenAI's models through `@effect/ai-openai` (the Responses API, `POST {base}/responses`). Structured output and
 * tools are sent with `strict: false`: strict mode accepts only a subset of JSON Schema (every property required, no
 * open objects), which callers' schemas seldom keep to; the engine validates every answer itself. Responses are not
 * stored on OpenAI's side (`store: false`). Loaded only when an `openai:` model is configured: the client is large.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Layer, Redacted } from "effect"
import { failOnErrorStatus } from "./HttpErrors.js"

export interface OpenAiResponsesOptions {
  readonly model: string
  /** Up to the version: `https://api.openai.com/v1`. */
  readonly baseUrl: string
  readonly apiKey?: string | undefined
}

export const layer = (
  options: OpenAiResponsesOptions,
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  OpenAiLanguageModel.layer({ model: options.model, config: { strict: false, store: false } }).pipe(
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: options.baseUrl.replace(/\/+$/, ""),
        ...(options.apiKey ? { apiKey: Redacted.make(options.apiKey) } : {}),
        transformClient: failOnErrorStatus,
      }),
    ),
  )
