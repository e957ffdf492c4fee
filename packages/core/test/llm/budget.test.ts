/** Content fitted to a model's context: chunks asked separately and merged, text trimmed, usage summed. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { estimateTokens, splitContent, TRIM_NOTE, trimContent } from "../../src/Llm/TokenBudget.js"
import type { RecordedRequest } from "../support/fakeModels.js"
import { fakeModel, llmFor, quiet, settingsFor } from "./harness.js"

const schema = {
  type: "object",
  properties: {
    shop: { type: "string" },
    products: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
  },
  required: ["shop", "products"],
}

/** About 100 tokens a paragraph, each naming one product. */
const catalogue = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `Product P${i}: a fine thing to buy. ${"It is described at length here, for the sake of size. ".repeat(6)}`,
  ).join("\n\n")

/** The fake extractor: the products whose paragraphs the request holds. */
const extractor = (request: RecordedRequest) => ({
  json: {
    shop: "Example shop",
    products: [...request.text.matchAll(/Product (P\d+):/g)].map((match) => ({ name: match[1] })),
  },
  usage: { inputTokens: 1_000, outputTokens: 50 },
})

describe("splitContent", () => {
  it("keeps content that fits in one chunk", () => {
    expect(splitContent("a\n\nb", 100, 8)).toEqual({ chunks: ["a\n\nb"], trimmed: false })
  })

  it("splits between paragraphs, each chunk within the budget", () => {
    const content = catalogue(30)
    const { chunks, trimmed } = splitContent(content, 1_000, 8)
    expect(trimmed).toBe(false)
    expect(chunks.length).toBeGreaterThan(2)
    for (const chunk of chunks) {
      expect(estimateTokens(chunk)).toBeLessThanOrEqual(1_000)
      expect(chunk.startsWith("Product P")).toBe(true)
    }
    expect(chunks.join("\n\n")).toBe(content)
  })

  it("cuts a paragraph longer than a chunk", () => {
    const { chunks } = splitContent("word ".repeat(5_000), 300, 8)
    expect(chunks.length).toBeGreaterThan(1)
    for (const chunk of chunks) expect(estimateTokens(chunk)).toBeLessThanOrEqual(300)
  })

  it("leaves out what does not fit in the chunks allowed, and says so", () => {
    const { chunks, trimmed } = splitContent(catalogue(100), 500, 3)
    expect(chunks).toHaveLength(3)
    expect(trimmed).toBe(true)
    expect(chunks[2]!.endsWith(TRIM_NOTE)).toBe(true)
  })

  it("counts non-ASCII characters as whole tokens", () => {
    expect(estimateTokens("abcd")).toBe(1)
    expect(estimateTokens("日本語")).toBe(3)
  })

  it("trims text to the budget", () => {
    const { content, trimmed } = trimContent(catalogue(30), 500)
    expect(trimmed).toBe(true)
    expect(content.endsWith(TRIM_NOTE)).toBe(true)
    expect(estimateTokens(content)).toBeLessThanOrEqual(500)
  })
})

describe("content larger than the context", () => {
  it.live("is asked in chunks whose values are merged, with the usage of every call", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: extractor })
          const llm = yield* llmFor(settingsFor("openai", model, { contextTokens: 4_096 }))
          const result = yield* llm.generateObject({
            prompt: "List the products.",
            content: catalogue(60),
            schema,
          })
          const count = model.requests.length
          expect(count).toBeGreaterThan(2)
          expect(count).toBeLessThanOrEqual(8)
          model.requests.forEach((request) => {
            expect(request.text).toMatch(new RegExp(`part \\d of ${count} of a longer document`))
            expect(estimateTokens(request.text)).toBeLessThan(4_096)
          })
          expect(result.value).toEqual({
            shop: "Example shop",
            products: Array.from({ length: 60 }, (_, i) => ({ name: `P${i}` })),
          })
          expect(result.usage).toEqual({ inputTokens: 1_000 * count, outputTokens: 50 * count })
        }),
      ),
    ),
  )

  it.live("keeps every request within the context when the content has no paragraph breaks to cut at", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: extractor })
          const llm = yield* llmFor(settingsFor("openai", model, { contextTokens: 4_096 }))
          // One paragraph far longer than the context: it is cut, and what is sent is the cut, never the whole.
          yield* llm.generateObject({
            prompt: "List the products.",
            content: `Product P0: ${"word ".repeat(60_000)}`,
            schema,
          })
          expect(model.requests.length).toBeGreaterThan(0)
          for (const request of model.requests) expect(estimateTokens(request.text)).toBeLessThan(4_096)
        }),
      ),
    ),
  )

  it.live("is cut after eight chunks, with a note", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({ reply: extractor })
          const llm = yield* llmFor(settingsFor("anthropic", model, { contextTokens: 4_096 }))
          const result = yield* llm.generateObject({ prompt: "List the products.", content: catalogue(400), schema })
          expect(model.requests).toHaveLength(8)
          expect(model.requests.some((request) => request.text.includes(TRIM_NOTE.trim()))).toBe(true)
          const products = (result.value as { products: Array<unknown> }).products
          expect(products.length).toBeGreaterThan(50)
          expect(products.length).toBeLessThan(400)
        }),
      ),
    ),
  )

  it.live("leaves out a chunk the model cannot answer validly", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: (request) =>
              request.text.includes("Product P0:") ? { json: { shop: 1, products: "none" } } : extractor(request),
          })
          const llm = yield* llmFor(settingsFor("openai-chat", model, { contextTokens: 4_096 }))
          const result = yield* llm.generateObject({ prompt: "List the products.", content: catalogue(60), schema })
          const names = (result.value as { products: Array<{ name: string }> }).products.map((each) => each.name)
          expect(names).not.toContain("P0")
          expect(names).toContain("P59")
        }),
      ),
    ),
  )

  it.live("is trimmed for text", () =>
    quiet(
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* fakeModel({
            reply: () => ({ text: "A catalogue.", usage: { inputTokens: 3_000, outputTokens: 4 } }),
          })
          const llm = yield* llmFor(settingsFor("openai-chat", model, { contextTokens: 4_096 }))
          const result = yield* llm.generateText({ prompt: "Summarize.", content: catalogue(60) })
          expect(result).toEqual({ value: "A catalogue.", usage: { inputTokens: 3_000, outputTokens: 4 } })
          expect(model.requests).toHaveLength(1)
          expect(model.requests[0]!.text).toContain(TRIM_NOTE.trim())
          expect(estimateTokens(model.requests[0]!.text)).toBeLessThan(4_096)
        }),
      ),
    ),
  )
})
