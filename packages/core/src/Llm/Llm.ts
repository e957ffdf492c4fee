/**
 * The language-model port: what the engine asks of a model (a JSON value that matches a JSON Schema, or text), in
 * the engine's own terms. Providers (`Llm/providers/`) implement it on `@effect/ai`'s `LanguageModel`; the engine
 * never sees a provider's wire format. Without a model in the context, the LLM formats fall back to the offline
 * extractors (`Extract/Offline/`) or answer 400 `LLM_NOT_CONFIGURED`.
 */
import { Context, type Effect } from "effect"
import type { LlmError } from "../Errors.js"

/** A JSON Schema as callers send it (already normalised: see `Domain/JsonSchema.ts`). */
export type JsonSchema = { readonly [key: string]: unknown }

export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

export const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0 }

export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
})

export interface ObjectRequest {
  /** Instructions for the model (the role it plays). */
  readonly system?: string | undefined
  /** What to produce, in the caller's words. */
  readonly prompt: string
  /**
   * The material the model reads (a page's markdown). Trimmed or split into chunks to fit the model's context; the
   * chunks' values are merged as an extract's pages are.
   */
  readonly content?: string | undefined
  /** The value must validate against it; a top-level object schema. */
  readonly schema: JsonSchema
  /** A name for the value, which some providers pass on to the model (`extract`, `agent_step`). */
  readonly objectName?: string | undefined
}

export interface TextRequest {
  readonly system?: string | undefined
  readonly prompt: string
  /** As for `ObjectRequest`: trimmed to fit the model's context (text is not chunked). */
  readonly content?: string | undefined
}

export interface Generated<A> {
  readonly value: A
  /** Tokens of every call it took (retries and chunks included). */
  readonly usage: TokenUsage
}

export interface LlmShape {
  /** `provider:model`, as configured (`openai:gpt-4.1-mini`). */
  readonly model: string
  /** A value valid against `schema`, or a clear error after a bounded retry that showed the model its mistakes. */
  readonly generateObject: (request: ObjectRequest) => Effect.Effect<Generated<unknown>, LlmError>
  readonly generateText: (request: TextRequest) => Effect.Effect<Generated<string>, LlmError>
}

export class Llm extends Context.Tag("@webdata/core/Llm")<Llm, LlmShape>() {}
