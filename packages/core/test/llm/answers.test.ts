/** Reading and validating models' answers. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseJsonAnswer } from "../../src/Llm/JsonAnswer.js"
import * as LlmUsage from "../../src/Llm/LlmUsage.js"
import { schemaErrors } from "../../src/Llm/SchemaValidation.js"

const value = (text: string) => {
  const parsed = parseJsonAnswer(text)
  return parsed._tag === "Parsed" ? parsed.value : parsed.error
}

describe("parseJsonAnswer", () => {
  it("reads plain, fenced and chatty JSON", () => {
    expect(value('{"a": 1}')).toEqual({ a: 1 })
    expect(value('```json\n{"a": 1}\n```')).toEqual({ a: 1 })
    expect(value("Here you go:\n```\n[1, 2]\n```\nHope it helps.")).toEqual([1, 2])
    expect(value('The answer is {"a": {"b": "}"}} as requested.')).toEqual({ a: { b: "}" } })
    expect(value('<think>the user wants {"x": 0}</think>\n{"a": 1}')).toEqual({ a: 1 })
  })

  it("repairs what is almost JSON", () => {
    expect(value("{'a': 1, \"b\": [1, 2,],}")).toEqual({ a: 1, b: [1, 2] })
    expect(value('```json\n{"a": "cut off')).toEqual({ a: "cut off" })
    expect(value('{"a": 1 // one\n}')).toEqual({ a: 1 })
  })

  it("says why an answer is not JSON", () => {
    expect(parseJsonAnswer("")).toEqual({ _tag: "NotJson", error: expect.stringContaining("empty") })
    expect(parseJsonAnswer("I do not know.")).toEqual({ _tag: "NotJson", error: expect.stringContaining("no JSON") })
  })
})

describe("schemaErrors", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string" },
      items: { type: "array", items: { type: "object", properties: { p: { type: "number" } }, required: ["p"] } },
      kind: { enum: ["a", "b"] },
    },
    required: ["name"],
    additionalProperties: false,
  }

  it("is empty for a valid value", () => {
    expect(schemaErrors(schema, { name: "x", items: [{ p: 1 }], kind: "a" })).toEqual([])
  })

  it("gives one message per problem, with its pointer, without the summaries", () => {
    expect(schemaErrors(schema, { items: [{ p: "1" }, {}], kind: "c", extra: true })).toEqual([
      '(root): Instance does not have required property "name".',
      '/items/0/p: Instance type "string" is invalid. Expected "number".',
      '/items/1: Instance does not have required property "p".',
      '/kind: Instance does not match any of ["a","b"].',
      '(root): Property "extra" does not match additional properties schema.',
    ])
  })

  it("reads $defs and definitions", () => {
    const withDefs = {
      type: "object",
      properties: { a: { $ref: "#/$defs/A" }, b: { $ref: "#/definitions/B" } },
      $defs: { A: { type: "string" } },
      definitions: { B: { type: "integer" } },
    }
    expect(schemaErrors(withDefs, { a: "x", b: 1 })).toEqual([])
    expect(schemaErrors(withDefs, { a: 1, b: 1.5 })).toHaveLength(2)
  })

  it("reports a schema it cannot use rather than throwing", () => {
    expect(schemaErrors({ type: "object", properties: { a: { $ref: "#/$defs/Nope" } } }, { a: 1 })).toEqual([
      expect.stringContaining("the schema cannot be used"),
    ])
  })
})

describe("LlmUsage", () => {
  it.effect("sums tokens per owner", () =>
    Effect.gen(function* () {
      const usage = yield* LlmUsage.LlmUsage
      yield* usage.record("key-a", { inputTokens: 100, outputTokens: 10 })
      yield* usage.record("key-a", { inputTokens: 50, outputTokens: 5 })
      yield* usage.record(null, { inputTokens: 7, outputTokens: 1 })
      expect(yield* usage.usageOf("key-a")).toEqual({ inputTokens: 150, outputTokens: 15 })
      expect(yield* usage.usageOf(null)).toEqual({ inputTokens: 7, outputTokens: 1 })
      expect(yield* usage.usageOf("key-b")).toEqual({ inputTokens: 0, outputTokens: 0 })
    }).pipe(Effect.provide(LlmUsage.layer)),
  )
})
