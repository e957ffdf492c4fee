/**
 * Anthropic's models through `@effect/ai-anthropic` (the Messages API, `POST {base}/v1/messages`, with `x-api-key`
 * and `anthropic-version`). Its structured output is a forced tool call. Loaded only when an `anthropic:` model is
 * configured.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Layer, Redacted } from "effect"
import { failOnErrorStatus } from "./HttpErrors.js"

export interface AnthropicOptions {
  readonly model: string
  /** The API's origin (`https://api.anthropic.com`); a trailing `/v1` is accepted and dropped. */
  readonly baseUrl: string
  readonly apiKey?: string | undefined
  /** `max_tokens`, which the Messages API requires. */
  readonly maxTokens: number
}

export const layer = (
  options: AnthropicOptions,
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  AnthropicLanguageModel.layer({ model: options.model, config: { max_tokens: options.maxTokens } }).pipe(
    Layer.provide(
      AnthropicClient.layer({
        // Settled by the configuration: no trailing slash and no `/v1`, which the client adds.
        apiUrl: options.baseUrl,
        ...(options.apiKey ? { apiKey: Redacted.make(options.apiKey) } : {}),
        transformClient: failOnErrorStatus,
      }),
    ),
  )
