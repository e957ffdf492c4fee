/**
 * The `Llm` port over each provider's real client, against a fake model server speaking the provider's wire format:
 * the three structured modes, the corrections shown to the model, and how provider failures end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { LlmError } from "../../src/Errors.js"
import type { FakeApi, FakeModel, FakeReply, RecordedRequest } from "../support/fakeModels.js"
import { replySequence } from "../support/fakeModels.js"
import { fakeModel, llmFor, type ProviderName, quiet, settingsFor } from "./harness.js"

const schema = {
  type: "object",
  properties: {
    title: { type: "string" },
    price: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["title", "price"],
}

const product = { title: "Blue kettle", price: 25, tags: ["kitchen"] }

const request = { prompt: "Extract the product.", content: "# Blue kettle\n\nPrice: 25 EUR. Kitchen.", schema }

const apiOf: Record<ProviderName, FakeApi> = { openai: "responses", anthropic: "anthropic", "openai-chat": "chat" }

/** The JSON Schema each API was sent in `json-schema` mode. */
const nativeSchema = (provider: ProviderName, sent: RecordedRequest): unknown =>
  provider === "openai"
    ? sent.body.text.format.schema
    : provider === "anthropic"
      ? sent.body.tools[0].input_schema
      : sent.body.response_format.json_schema.schema

/** Runs `use` against a fake answering with `reply`, with `provider`'s model configured by `extra`. */
const withFake = <A>(
  provider: ProviderName,
  reply: (request: RecordedRequest) => FakeReply,
  use: (llm: Effect.Effect.Success<ReturnType<typeof llmFor>>, model: FakeModel) => Effect.Effect<A, unknown>,
  extra: Parameters<typeof settingsFor>[2] = {},
) =>
  quiet(
    Effect.scoped(
      Effect.gen(function* () {
        const model = yield* fakeModel({ reply })
        const llm = yield* llmFor(settingsFor(provider, model, extra))
        return yield* use(llm, model)
      }),
    ),
  )

const failureOf = (effect: Effect.Effect<unknown, LlmError>) =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result) ? Effect.succeed(result.left) : Effect.dieMessage("expected a failure"),
  )

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = Date.now()
    const value = yield* effect
    return { value, ms: Date.now() - start }
  })

describe.each(["openai", "anthropic", "openai-chat"] as const)("the %s provider", (provider) => {
  it.live("gets an object in its native mode, with the request the real API requires", () =>
    withFake(
      provider,
      () => ({ json: product, usage: { inputTokens: 120, outputTokens: 15 } }),
      (llm, model) =>
        Effect.gen(function* () {
          const result = yield* llm.generateObject({ ...request, objectName: "product" })
          expect(result).toEqual({ value: product, usage: { inputTokens: 120, outputTokens: 15 } })
          expect(model.requests).toHaveLength(1)
          const sent = model.requests[0]!
          expect(sent.api).toBe(apiOf[provider])
          expect(sent.text).toContain("Extract the product.")
          expect(sent.text).toContain("Price: 25 EUR")
          expect(nativeSchema(provider, sent)).toEqual(schema)
          switch (provider) {
            case "openai":
              expect(sent.path).toBe("/v1/responses")
              expect(sent.headers.authorization).toBe("Bearer sk-test")
              expect(sent.body).toMatchObject({
                model: "gpt-4.1-mini",
                store: false,
                input: [{ role: "system" }, { role: "user", content: [{ type: "input_text" }] }],
                text: { format: { type: "json_schema", name: "product", strict: false } },
              })
              expect(sent.body.stream).toBeUndefined()
              expect(sent.text).not.toContain("JSON Schema")
              break
            case "anthropic":
              expect(sent.path).toMatch(/^\/v1\/messages/)
              expect(sent.headers["x-api-key"]).toBe("sk-ant-test")
              expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
              expect(sent.headers.authorization).toBeUndefined()
              expect(sent.body).toMatchObject({
                model: "claude-sonnet-4-5",
                max_tokens: expect.any(Number),
                messages: [{ role: "user" }],
                tool_choice: { type: "tool", name: "product" },
                tools: [{ name: "product" }],
              })
              expect(sent.body.system).toBeDefined()
              break
            case "openai-chat":
              expect(sent.path).toBe("/v1/chat/completions")
              expect(sent.headers.authorization).toBe("Bearer sk-test")
              expect(sent.body).toMatchObject({
                model: "qwen2.5-7b-instruct",
                stream: false,
                messages: [{ role: "system" }, { role: "user", content: expect.stringContaining("Extract") }],
                response_format: { type: "json_schema", json_schema: { name: "product", strict: false } },
              })
              // Also in the instructions, for servers that ignore a response format they do not support.
              expect(sent.text).toContain("JSON Schema")
              break
          }
        }),
    ),
  )

  it.live("gets an object through a forced tool call in tool mode", () =>
    withFake(
      provider,
      () => ({ json: product }),
      (llm, model) =>
        Effect.gen(function* () {
          const result = yield* llm.generateObject({ ...request, objectName: "product" })
          expect(result.value).toEqual(product)
          const sent = model.requests[0]!
          expect(sent.wants).toBe("tool")
          expect(sent.toolName).toBe("product")
          expect(sent.schema).toEqual(schema)
          if (provider === "openai")
            expect(sent.body).toMatchObject({
              tools: [{ type: "function", name: "product", strict: false }],
              tool_choice: { type: "function", name: "product" },
            })
          if (provider === "openai-chat")
            expect(sent.body).toMatchObject({
              tools: [{ type: "function", function: { name: "product" } }],
              tool_choice: { type: "function", function: { name: "product" } },
            })
          if (provider === "anthropic") expect(sent.body.tool_choice).toMatchObject({ type: "tool", name: "product" })
        }),
      { structured: "tool" },
    ),
  )

  it.live("reads a prose answer with fences and broken JSON in prompt mode", () =>
    withFake(
      provider,
      () => ({
        text: 'Sure! Here is the product:\n```json\n{\'title\': \'Blue kettle\', "price": 25, "tags": ["kitchen",],}\n```\nAnything else?',
      }),
      (llm, model) =>
        Effect.gen(function* () {
          const result = yield* llm.generateObject(request)
          expect(result.value).toEqual(product)
          const sent = model.requests[0]!
          expect(sent.wants).toBe("text")
          expect(sent.text).toContain("JSON Schema")
          expect(sent.text).toContain(JSON.stringify(schema))
          expect(sent.body.tools).toBeUndefined()
          expect(sent.body.response_format).toBeUndefined()
        }),
      { structured: "prompt" },
    ),
  )

  it.live("asks again when the answer is not JSON, showing the model its answer", () =>
    withFake(provider, replySequence({ text: "I could not find a product, sorry." }, { json: product }), (llm, model) =>
      Effect.gen(function* () {
        const result = yield* llm.generateObject(request)
        expect(result.value).toEqual(product)
        expect(model.requests).toHaveLength(2)
        const second = model.requests[1]!
        expect(second.text).toContain("I could not find a product, sorry.")
        expect(second.text).toContain("no JSON object or array")
        expect(second.text).toContain("Your answer cannot be used")
      }),
    ),
  )

  it.live("asks again with the validation errors when the answer does not match the schema", () =>
    withFake(provider, replySequence({ json: { title: 42, tags: "kitchen" } }, { json: product }), (llm, model) =>
      Effect.gen(function* () {
        const result = yield* llm.generateObject(request)
        expect(result.value).toEqual(product)
        expect(model.requests).toHaveLength(2)
        const second = model.requests[1]!
        expect(second.text).toContain('/title: Instance type "number" is invalid. Expected "string".')
        expect(second.text).toContain('Instance does not have required property "price"')
        expect(second.text).toContain('/tags: Instance type "string" is invalid. Expected "array".')
        // The usage of both calls.
        expect(result.usage.inputTokens).toBeGreaterThan(0)
        expect(result.usage.inputTokens).toBeGreaterThan(model.requests[0]!.text.length / 4)
      }),
    ),
  )

  it.live("gives up with InvalidOutput after three wrong answers", () =>
    withFake(
      provider,
      () => ({ json: { title: "Blue kettle", price: "25 EUR" } }),
      (llm, model) =>
        Effect.gen(function* () {
          const error = yield* failureOf(llm.generateObject(request))
          expect(error.reason).toBe("InvalidOutput")
          expect(error.message).toContain("3 attempts")
          expect(error.message).toContain('/price: Instance type "string" is invalid. Expected "number".')
          expect(model.requests).toHaveLength(3)
        }),
    ),
  )

  it.live("retries a 500 twice, then is Unavailable", () =>
    withFake(
      provider,
      () => ({ status: 500 }),
      (llm, model) =>
        Effect.gen(function* () {
          const { value: error, ms } = yield* timed(failureOf(llm.generateObject(request)))
          expect(error.reason).toBe("Unavailable")
          expect(error.message).toContain("HTTP 500")
          expect(error.message).toContain("3 attempts")
          expect(model.requests).toHaveLength(3)
          expect(ms).toBeLessThan(5_000)
        }),
    ),
  )

  it.live("gives Timeout when the model server hangs", () =>
    withFake(
      provider,
      () => ({ hang: true }),
      (llm, model) =>
        Effect.gen(function* () {
          const { value: error, ms } = yield* timed(failureOf(llm.generateText({ prompt: "Hello?" })))
          expect(error.reason).toBe("Timeout")
          expect(error.message).toContain("300 ms")
          expect(ms).toBeLessThan(2_000)
          expect(model.requests).toHaveLength(1)
        }),
      { timeoutMs: 300 },
    ),
  )

  it.live("gives ProviderError with the provider's message on 401, without retrying", () =>
    withFake(
      provider,
      () => ({ status: 401 }),
      (llm, model) =>
        Effect.gen(function* () {
          const error = yield* failureOf(llm.generateObject(request))
          expect(error.reason).toBe("ProviderError")
          expect(error.message).toContain("HTTP 401")
          expect(error.message).toContain("Incorrect API key provided.")
          expect(model.requests).toHaveLength(1)
        }),
    ),
  )

  it.live("generates text", () =>
    withFake(
      provider,
      () => ({ text: "A blue kettle for 25 EUR.", usage: { inputTokens: 30, outputTokens: 8 } }),
      (llm, model) =>
        Effect.gen(function* () {
          const result = yield* llm.generateText({ prompt: "Summarize.", content: "# Blue kettle\n\nPrice: 25 EUR." })
          expect(result).toEqual({ value: "A blue kettle for 25 EUR.", usage: { inputTokens: 30, outputTokens: 8 } })
          expect(model.requests[0]!.wants).toBe("text")
          expect(model.requests[0]!.text).toContain("Price: 25 EUR.")
        }),
    ),
  )
})

describe("provider failures", () => {
  it.live("honours a short Retry-After on 429", () =>
    withFake(
      "openai",
      replySequence({ status: 429, headers: { "retry-after": "2" } }, { json: product }),
      (llm, model) =>
        Effect.gen(function* () {
          const started = Date.now()
          const result = yield* llm.generateObject(request)
          expect(result.value).toEqual(product)
          expect(model.requests).toHaveLength(2)
          // Two seconds, not the first backoff's half second.
          expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
        }),
    ),
  )

  it.live("does not wait out a long Retry-After", () =>
    withFake(
      "anthropic",
      () => ({ status: 429, headers: { "retry-after": "3600" } }),
      (llm, model) =>
        Effect.gen(function* () {
          const error = yield* failureOf(llm.generateText({ prompt: "Hello?" }))
          expect(error.reason).toBe("Unavailable")
          expect(error.message).toContain("retry after 3600 s")
          expect(model.requests).toHaveLength(1)
        }),
    ),
  )

  it.live("is Unavailable when nothing listens at the base URL", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: () => ({ json: product }) })
          const settings = settingsFor("openai-chat", model)
          yield* Effect.promise(() => model.close())
          const llm = yield* llmFor(settings)
          const error = yield* failureOf(llm.generateText({ prompt: "Hello?" }))
          expect(error.reason).toBe("Unavailable")
          expect(error.message).toContain("could not reach")
          expect(error.message).toContain("3 attempts")
        }),
      ),
    ),
  )

  it.live("takes a non-JSON error body as the message", () =>
    withFake(
      "openai-chat",
      () => ({ status: 404, body: "model 'qwen' not found, try pulling it first" }),
      (llm) =>
        Effect.gen(function* () {
          const error = yield* failureOf(llm.generateText({ prompt: "Hello?" }))
          expect(error.reason).toBe("ProviderError")
          expect(error.message).toContain("model 'qwen' not found")
        }),
    ),
  )

  it.live("repairs tool arguments that are not quite JSON", () =>
    withFake(
      "openai",
      () => ({ text: "{'title': 'Blue kettle', 'price': 25, 'tags': ['kitchen'],}" }),
      (llm, model) =>
        Effect.gen(function* () {
          const result = yield* llm.generateObject(request)
          expect(result.value).toEqual(product)
          expect(model.requests).toHaveLength(1)
        }),
      { structured: "tool" },
    ),
  )
})

describe("the ollama provider", () => {
  it.live("speaks Chat Completions without a key, and takes Ollama's base URL without /v1", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: () => ({ json: product }) })
          const llm = yield* llmFor({ model: "ollama:llama3.1:8b", baseUrl: model.baseUrl.replace(/\/v1$/, "") })
          const result = yield* llm.generateObject(request)
          expect(result.value).toEqual(product)
          const sent = model.requests[0]!
          expect(sent.path).toBe("/v1/chat/completions")
          expect(sent.headers.authorization).toBeUndefined()
          expect(sent.body.model).toBe("llama3.1:8b")
          expect(sent.wants).toBe("json-schema")
        }),
      ),
    ),
  )
})
