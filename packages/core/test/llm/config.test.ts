/** The model from settings and from the environment. */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Option } from "effect"
import { Llm } from "../../src/Llm/Llm.js"
import * as LlmConfig from "../../src/Llm/LlmConfig.js"
import { defaultContextTokens, parseModel } from "../../src/Llm/ModelSpec.js"
import { fakeModel, quiet } from "./harness.js"

const fromEnv = (env: Record<string, string>) =>
  LlmConfig.layerConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const resolved = (settings: LlmConfig.LlmSettings) => Either.getOrThrow(LlmConfig.resolveSettings(settings))

describe("model strings", () => {
  it("reads provider:model, the model keeping its own colons and slashes", () => {
    expect(parseModel("openai:gpt-4.1-mini")).toEqual(
      Either.right({ provider: "openai", model: "gpt-4.1-mini", id: "openai:gpt-4.1-mini" }),
    )
    expect(Either.getOrThrow(parseModel("ollama:llama3.1:8b")).model).toBe("llama3.1:8b")
    expect(Either.getOrThrow(parseModel(" openai-chat:meta-llama/Llama-3.1-8B-Instruct ")).model).toBe(
      "meta-llama/Llama-3.1-8B-Instruct",
    )
    expect(Either.getOrThrow(parseModel("Anthropic:claude-sonnet-4-5")).provider).toBe("anthropic")
  })

  it("refuses other strings with one line saying what is accepted", () => {
    for (const value of ["gpt-4.1-mini", "openai:", "mistral:large", ":model"]) {
      const message = Either.getLeft(parseModel(value)).pipe(Option.getOrThrow)
      expect(message).not.toContain("\n")
      expect(message).toContain("openai, anthropic, ollama, openai-chat")
    }
    expect(Either.getLeft(parseModel("mistral:large"))).toEqual(Option.some(expect.stringContaining('"mistral"')))
  })

  it("defaults the context and structured mode by provider and model", () => {
    expect(resolved({ model: "openai:gpt-4.1-mini", apiKey: "k" })).toMatchObject({
      contextTokens: 128_000,
      structured: "json-schema",
      baseUrl: "https://api.openai.com/v1",
      timeoutMs: 120_000,
    })
    expect(resolved({ model: "anthropic:claude-sonnet-4-5", apiKey: "k" })).toMatchObject({
      contextTokens: 200_000,
      structured: "tool",
      baseUrl: "https://api.anthropic.com",
    })
    expect(resolved({ model: "ollama:llama3.1" })).toMatchObject({
      contextTokens: 8_192,
      structured: "json-schema",
      baseUrl: "http://127.0.0.1:11434/v1",
    })
    expect(defaultContextTokens(Either.getOrThrow(parseModel("openai-chat:anthropic/claude-3.5-sonnet")))).toBe(200_000)
    expect(defaultContextTokens(Either.getOrThrow(parseModel("openai-chat:some-local-model")))).toBe(16_384)
  })

  it("wants a key for the public OpenAI and Anthropic APIs, not for other base URLs", () => {
    expect(LlmConfig.resolveSettings({ model: "openai:gpt-4.1-mini" })).toEqual(
      Either.left("openai:gpt-4.1-mini needs an API key: set OPENAI_API_KEY"),
    )
    expect(
      Either.isRight(LlmConfig.resolveSettings({ model: "openai:gpt-4.1-mini", baseUrl: "http://127.0.0.1:9/v1" })),
    ).toBe(true)
    // Anthropic's public API written with the `/v1` its docs show is the same API.
    expect(
      LlmConfig.resolveSettings({ model: "anthropic:claude-sonnet-4-5", baseUrl: "https://api.anthropic.com/v1/" }),
    ).toEqual(Either.left("anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY"))
    expect(LlmConfig.resolveSettings({ model: "ollama:llama3.1", baseUrl: "ftp://x" })).toEqual(
      Either.left(expect.stringContaining("must be http or https")),
    )
  })

  it.effect("fails the layer on a bad model string", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Layer.build(LlmConfig.layer({ model: "gpt-4" })).pipe(Effect.scoped))
      expect(error.message).toContain("is not <provider>:<model>")
    }),
  )
})

describe("the model from the environment", () => {
  it.effect("is none when WEBDATA_LLM is unset or empty", () =>
    Effect.gen(function* () {
      expect(Option.isNone(yield* fromEnv({}))).toBe(true)
      expect(Option.isNone(yield* fromEnv({ WEBDATA_LLM: " " }))).toBe(true)
    }),
  )

  it.effect("refuses an unknown provider, naming the variable and what is accepted", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(fromEnv({ WEBDATA_LLM: "mistral:large" }))
      expect(error.message).toMatch(/^WEBDATA_LLM: Unknown model provider "mistral"/)
      expect(error.message).toContain("openai:gpt-4.1-mini")
    }),
  )

  it.effect("refuses bad settings", () =>
    Effect.gen(function* () {
      const base = { WEBDATA_LLM: "ollama:llama3.1" }
      expect((yield* Effect.flip(fromEnv({ ...base, WEBDATA_LLM_STRUCTURED: "xml" }))).message).toContain(
        "WEBDATA_LLM_STRUCTURED",
      )
      expect((yield* Effect.flip(fromEnv({ ...base, WEBDATA_LLM_CONTEXT_TOKENS: "lots" }))).message).toContain(
        "WEBDATA_LLM_CONTEXT_TOKENS must be a whole number",
      )
      expect((yield* Effect.flip(fromEnv({ ...base, WEBDATA_LLM_TIMEOUT_MS: "-1" }))).message).toContain(
        "WEBDATA_LLM_TIMEOUT_MS",
      )
      expect((yield* Effect.flip(fromEnv({ WEBDATA_LLM: "anthropic:claude-sonnet-4-5" }))).message).toBe(
        "anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY",
      )
    }),
  )

  it.live("builds the provider named, with its key and base URL", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: () => ({ text: "Hello." }) })
          const layer = yield* fromEnv({
            WEBDATA_LLM: "anthropic:claude-haiku-4-5",
            ANTHROPIC_API_KEY: "sk-ant-env",
            ANTHROPIC_BASE_URL: model.baseUrl,
            WEBDATA_LLM_STRUCTURED: "prompt",
            WEBDATA_LLM_CONTEXT_TOKENS: "50000",
            WEBDATA_LLM_TIMEOUT_MS: "1000",
            OPENAI_API_KEY: "not-this-one",
          }).pipe(Effect.map(Option.getOrThrow))
          const llm = Context.get(yield* Layer.build(layer), Llm)
          expect(llm.model).toBe("anthropic:claude-haiku-4-5")
          expect((yield* llm.generateText({ prompt: "Hi" })).value).toBe("Hello.")
          expect(model.requests[0]!.headers["x-api-key"]).toBe("sk-ant-env")
          expect(model.requests[0]!.body.max_tokens).toBe(12_500)
        }),
      ),
    ),
  )

  it.live("reads OLLAMA_BASE_URL and OpenAI's variables for openai-chat", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: () => ({ text: "Hi." }) })
          for (const env of [
            { WEBDATA_LLM: "ollama:llama3.1", OLLAMA_BASE_URL: model.baseUrl.replace(/\/v1$/, "/") },
            { WEBDATA_LLM: "openai-chat:my-model", OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-env" },
          ]) {
            const layer = Option.getOrThrow(yield* fromEnv(env))
            yield* Context.get(yield* Layer.build(layer), Llm).generateText({ prompt: "Hi" })
          }
          expect(model.requests.map((each) => [each.api, each.model, each.headers.authorization])).toEqual([
            ["chat", "llama3.1", undefined],
            ["chat", "my-model", "Bearer sk-env"],
          ])
        }),
      ),
    ),
  )
})

describe("lazy loading", () => {
  it("keeps the provider clients and @effect/ai out of a process with no model", () => {
    // What the engine imports to find out whether there is a model: no static import of the implementation.
    for (const file of ["LlmConfig.ts", "ModelSpec.ts", "Llm.ts", "LlmUsage.ts"]) {
      const source = readFileSync(new URL(`../../src/Llm/${file}`, import.meta.url), "utf8")
      // Every static `import … from` and `export … from`, one line or several.
      const imports = [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map((match) => match[1])
      expect(imports.length).toBeGreaterThan(0)
      for (const target of imports) {
        expect(target).not.toMatch(/@effect\/ai|LlmService|providers\//)
      }
    }
  })
})
