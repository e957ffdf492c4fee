/** A provider that refuses the native structured mode gets the question in prompt mode. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { FakeReply, RecordedRequest } from "../support/fakeModels.js"
import { fakeModel, llmFor, quiet, settingsFor } from "./harness.js"

const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] }
const request = { prompt: "The title?", content: "# Hello", schema }

/** A server that answers a structured request with `refusal`, and plain text with the value. */
const refusing = (refusal: FakeReply) => (sent: RecordedRequest) =>
  sent.wants === "text" ? { text: '{"title": "Hello"}' } : refusal

describe("structured output fallback", () => {
  it.live("falls back to prompt mode for good when response_format is unsupported", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: refusing({
              status: 400,
              body: {
                error: {
                  message: "response_format json_schema is not supported by this model",
                  type: "invalid_request_error",
                },
              },
            }),
          })
          const llm = yield* llmFor(settingsFor("openai-chat", model))
          expect((yield* llm.generateObject(request)).value).toEqual({ title: "Hello" })
          expect(model.requests.map((each) => each.wants)).toEqual(["json-schema", "text"])
          expect(model.requests[1]!.text).toContain("JSON Schema")
          expect((yield* llm.generateObject(request)).value).toEqual({ title: "Hello" })
          expect(model.requests.map((each) => each.wants)).toEqual(["json-schema", "text", "text"])
        }),
      ),
    ),
  )

  it.live("falls back for one request when the provider only refuses this schema", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: refusing({
              status: 400,
              body: {
                error: { message: "Invalid schema for response_format 'extract': 'format' is not permitted here." },
              },
            }),
          })
          const llm = yield* llmFor(settingsFor("openai", model))
          yield* llm.generateObject(request)
          yield* llm.generateObject(request)
          expect(model.requests.map((each) => each.wants)).toEqual(["json-schema", "text", "json-schema", "text"])
        }),
      ),
    ),
  )

  it.live("does not fall back on a 400 about something else", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: refusing({
              status: 400,
              body: { error: { message: "This model's maximum context length is 8192 tokens." } },
            }),
          })
          const llm = yield* llmFor(settingsFor("openai-chat", model))
          const error = yield* Effect.flip(llm.generateObject(request))
          expect(error.reason).toBe("ProviderError")
          expect(error.message).toContain("maximum context length")
          expect(model.requests).toHaveLength(1)
        }),
      ),
    ),
  )

  it.live("falls back from tool mode when tools are unsupported", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: refusing({
              status: 400,
              body: { error: "registry.ollama.ai/library/gemma:2b does not support tools" },
            }),
          })
          const llm = yield* llmFor(settingsFor("openai-chat", model, { structured: "tool" }))
          expect((yield* llm.generateObject(request)).value).toEqual({ title: "Hello" })
          expect(model.requests.map((each) => each.wants)).toEqual(["tool", "text"])
        }),
      ),
    ),
  )
})
