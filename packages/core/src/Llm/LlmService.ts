/**
 * The `Llm` port on an `@effect/ai` `LanguageModel`: content fitted to the model's context (split into chunks whose
 * values are merged, for objects; trimmed, for text), every call bounded and retried (`CallPolicy`), every value
 * validated (`StructuredOutput`), and the tokens of all calls summed. Loaded by `LlmConfig` only when a model is
 * configured; it loads the provider's client in turn.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Layer, Ref } from "effect"
import { LlmError } from "../Errors.js"
import { mergeValues } from "../Extract/Merge.js"
import { defaultCallPolicy, type ProviderFailure, withCallPolicy } from "./CallPolicy.js"
import { addUsage, type Generated, Llm, type LlmShape, NO_USAGE, type ObjectRequest, type TextRequest } from "./Llm.js"
import type { ResolvedLlmSettings } from "./LlmConfig.js"
import { callModel, safeName } from "./ModelCall.js"
import { anthropicMaxOutputTokens } from "./ModelSpec.js"
import { schemaErrors } from "./SchemaValidation.js"
import { generateValue, type StructuredModel } from "./StructuredOutput.js"
import { answerReserve, estimateTokens, splitContent, trimContent } from "./TokenBudget.js"

/** Chunks of one content at most; what does not fit in them is left out, with a note. */
export const MAX_CHUNKS = 8

/** Chunks asked at the same time. */
const CHUNK_CONCURRENCY = 2

/** Tokens kept for the instructions the engine adds (prompt-mode rules, corrections). */
const OVERHEAD_TOKENS = 512

const DEFAULT_OBJECT_SYSTEM =
  "You extract structured data from web content. Use only what the content says; do not invent values."

const DEFAULT_TEXT_SYSTEM = "You are a careful assistant that works with web content."

const withContent = (prompt: string, content: string | undefined, part?: { index: number; count: number }): string =>
  content === undefined || content.trim() === ""
    ? prompt
    : `${prompt}\n\n${
        part !== undefined
          ? `The content below is part ${part.index} of ${part.count} of a longer document: answer from this part alone.\n\n`
          : ""
      }<content>\n${content}\n</content>`

/** The provider's `LanguageModel`, its module loaded on first use (the OpenAI and Anthropic clients are large). */
const providerLayer = (
  settings: ResolvedLlmSettings,
): Effect.Effect<Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient>> => {
  const { provider, model } = settings.spec
  const common = { model, baseUrl: settings.baseUrl, apiKey: settings.apiKey }
  switch (provider) {
    case "openai":
      return Effect.map(
        Effect.promise(() => import("./providers/OpenAiResponses.js")),
        (module) => module.layer(common),
      )
    case "anthropic":
      return Effect.map(
        Effect.promise(() => import("./providers/Anthropic.js")),
        (module) =>
          module.layer({
            ...common,
            maxTokens: Math.min(answerReserve(settings.contextTokens), anthropicMaxOutputTokens(model)),
          }),
      )
    case "ollama":
    case "openai-chat":
      return Effect.map(
        Effect.promise(() => import("./providers/ChatCompletions.js")),
        (module) => module.layer(common),
      )
  }
}

/** The port over the `LanguageModel` in context. */
export const make = (settings: ResolvedLlmSettings): Effect.Effect<LlmShape, never, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const id = settings.spec.id
    const policy = { ...defaultCallPolicy, timeoutMs: settings.timeoutMs }
    const reserve = answerReserve(settings.contextTokens)

    const toLlmError = (failure: ProviderFailure): LlmError =>
      new LlmError({
        reason: failure.reason,
        message:
          failure.reason === "Timeout"
            ? `${id} gave no answer within ${settings.timeoutMs} ms`
            : failure.reason === "Unavailable"
              ? `${id} is unavailable: ${failure.message}`
              : `${id} refused the request: ${failure.message}`,
        cause: failure.cause,
      })

    const structured: StructuredModel = {
      model,
      id,
      policy,
      mode: yield* Ref.make(settings.structured),
      toLlmError,
      schemaInInstructions: settings.spec.provider === "ollama" || settings.spec.provider === "openai-chat",
    }

    const generateObject = Effect.fn("Llm.generateObject")(function* (request: ObjectRequest) {
      const system = request.system ?? DEFAULT_OBJECT_SYSTEM
      const target = { schema: request.schema, name: safeName(request.objectName ?? "extract") }
      const schemaTokens = estimateTokens(JSON.stringify(request.schema))
      const room =
        settings.contextTokens -
        reserve -
        estimateTokens(system) -
        estimateTokens(request.prompt) -
        schemaTokens * 2 -
        OVERHEAD_TOKENS
      const content = request.content ?? ""
      const { chunks, trimmed } = splitContent(content, room, MAX_CHUNKS)
      if (trimmed)
        yield* Effect.logWarning(
          `${id}: the content (about ${estimateTokens(content)} tokens) does not fit in ${MAX_CHUNKS} chunks; the rest was left out`,
        )
      if (chunks.length <= 1)
        return yield* generateValue(structured, { system, user: withContent(request.prompt, chunks[0] ?? ""), target })
      yield* Effect.logDebug(`${id}: the content is asked in ${chunks.length} chunks`)
      const results = yield* Effect.forEach(
        chunks,
        (chunk, index) =>
          Effect.either(
            generateValue(structured, {
              system,
              user: withContent(request.prompt, chunk, { index: index + 1, count: chunks.length }),
              target,
            }),
          ),
        { concurrency: CHUNK_CONCURRENCY },
      )
      const values: Array<{ readonly source: string; readonly value: unknown }> = []
      let usage = NO_USAGE
      let firstError: LlmError | undefined
      for (const [index, result] of results.entries()) {
        if (Either.isRight(result)) {
          values.push({ source: `chunk ${index + 1}`, value: result.right.value })
          usage = addUsage(usage, result.right.usage)
        } else {
          // A provider failure fails the whole request; a chunk the model could not answer validly is left out.
          if (result.left.reason !== "InvalidOutput") return yield* Effect.fail(result.left)
          firstError ??= result.left
          yield* Effect.logWarning(`${id}: chunk ${index + 1} of ${chunks.length} left out: ${result.left.message}`)
        }
      }
      if (values.length === 0 && firstError !== undefined) return yield* Effect.fail(firstError)
      const merged = mergeValues(values).value
      const errors = schemaErrors(request.schema, merged)
      if (errors.length > 0)
        return yield* Effect.fail(
          new LlmError({
            reason: "InvalidOutput",
            message: `${id}: the values of ${values.length} chunks, merged, do not match the schema: ${errors.slice(0, 10).join("; ")}`,
          }),
        )
      return { value: merged, usage } satisfies Generated<unknown>
    })

    const generateText = Effect.fn("Llm.generateText")(function* (request: TextRequest) {
      const system = request.system ?? DEFAULT_TEXT_SYSTEM
      const room =
        settings.contextTokens - reserve - estimateTokens(system) - estimateTokens(request.prompt) - OVERHEAD_TOKENS
      const content = request.content ?? ""
      const fitted = trimContent(content, room)
      if (fitted.trimmed)
        yield* Effect.logWarning(
          `${id}: the content (about ${estimateTokens(content)} tokens) was cut to fit the context`,
        )
      const answer = yield* withCallPolicy(
        callModel(model, "text", [
          { role: "system", text: system },
          { role: "user", text: withContent(request.prompt, fitted.content) },
        ]),
        policy,
      ).pipe(Effect.mapError(toLlmError))
      return { value: answer.text, usage: answer.usage } satisfies Generated<string>
    })

    return { model: id, generateObject, generateText }
  })

/** The port for resolved settings, over the provider they name and `fetch`. */
export const layer = (settings: ResolvedLlmSettings): Layer.Layer<Llm> =>
  Layer.unwrapEffect(
    Effect.map(providerLayer(settings), (provider) =>
      Layer.effect(Llm, make(settings)).pipe(Layer.provide(provider), Layer.provide(FetchHttpClient.layer)),
    ),
  )
