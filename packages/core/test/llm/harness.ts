/** Running the `Llm` port against a fake model server. */
import { Context, Effect, Layer, Logger, LogLevel, type Scope } from "effect"
import { Llm, type LlmShape } from "../../src/Llm/Llm.js"
import * as LlmConfig from "../../src/Llm/LlmConfig.js"
import { type FakeModel, type FakeModelOptions, startFakeModel } from "../support/fakeModels.js"

/** A fake model server for the scope. */
export const fakeModel = (options: FakeModelOptions): Effect.Effect<FakeModel, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startFakeModel(options)),
    (model) => Effect.promise(() => model.close()),
  )

/** The port built from `settings`, for the scope (its warnings kept out of the test output). */
export const llmFor = (settings: LlmConfig.LlmSettings): Effect.Effect<LlmShape, Error, Scope.Scope> =>
  Effect.map(Layer.build(LlmConfig.layer(settings)), (context) => Context.get(context, Llm))

export const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Logger.withMinimumLogLevel(LogLevel.None))

export type ProviderName = "openai" | "anthropic" | "openai-chat"

/** Settings of each provider's test model against `model`. */
export const settingsFor = (
  provider: ProviderName,
  model: FakeModel,
  extra: Partial<LlmConfig.LlmSettings> = {},
): LlmConfig.LlmSettings => ({
  model:
    provider === "openai"
      ? "openai:gpt-4.1-mini"
      : provider === "anthropic"
        ? "anthropic:claude-sonnet-4-5"
        : "openai-chat:qwen2.5-7b-instruct",
  apiKey: provider === "anthropic" ? "sk-ant-test" : "sk-test",
  baseUrl: model.baseUrl,
  timeoutMs: 5_000,
  ...extra,
})
