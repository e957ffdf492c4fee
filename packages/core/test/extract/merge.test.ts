import { describe, expect, it } from "vitest"
import { prepareSchema, schemaProblem } from "../../src/Domain/JsonSchema.js"
import { mergeValues } from "../../src/Extract/Merge.js"

describe("mergeValues", () => {
  it("concatenates arrays without duplicates and traces each element to every page that gave it", () => {
    const merged = mergeValues([
      { source: "https://a.test/1", value: { products: [{ name: "Kettle" }, { name: "Mug" }] } },
      { source: "https://a.test/2", value: { products: [{ name: " mug " }, { name: "Toaster" }] } },
    ])
    expect(merged.value).toEqual({ products: [{ name: "Kettle" }, { name: "Mug" }, { name: "Toaster" }] })
    expect(merged.sources["/products/1"]).toEqual(["https://a.test/1", "https://a.test/2"])
    expect(merged.sources["/products/2"]).toEqual(["https://a.test/2"])
  })

  it("takes the scalar most pages agree on, the first page breaking a tie, and ignores empty values", () => {
    const merged = mergeValues([
      { source: "p1", value: { price: 10, brand: "Acme", note: "" } },
      { source: "p2", value: { price: 12, brand: null, note: "kept" } },
      { source: "p3", value: { price: 12, brand: "Other" } },
    ])
    expect(merged.value).toEqual({ price: 12, brand: "Acme", note: "kept" })
    expect(merged.sources["/price"]).toEqual(["p2", "p3"])
    expect(merged.sources["/brand"]).toEqual(["p1"])
  })

  it("escapes keys in the pointers it gives", () => {
    const merged = mergeValues([{ source: "p", value: { "a/b": { "c~d": 1 } } }])
    expect(merged.sources).toEqual({ "/a~1b/c~0d": ["p"] })
  })
})

describe("prepareSchema", () => {
  it("drops additionalProperties where properties are listed and required names without a property", () => {
    const prepared = prepareSchema({
      type: "object",
      additionalProperties: false,
      properties: {
        name: { type: "string" },
        offers: { type: "object", additionalProperties: true, properties: { price: { type: "number" } } },
      },
      required: ["name", "missing"],
    })
    expect(prepared.schema).toEqual({
      type: "object",
      properties: { name: { type: "string" }, offers: { type: "object", properties: { price: { type: "number" } } } },
      required: ["name"],
    })
    expect(prepared.unwrap({ name: "x" })).toEqual({ name: "x" })
  })

  it("reads a schema without keywords as its properties, and keeps a property named like a keyword", () => {
    expect(prepareSchema({ title: { type: "string" } }).schema).toEqual({
      type: "object",
      properties: { title: { type: "string" } },
    })
    const withKeywordName = prepareSchema({ type: "object", properties: { type: { type: "string" } } })
    expect(withKeywordName.schema).toEqual({ type: "object", properties: { type: { type: "string" } } })
  })

  it("wraps a top-level array in an object and unwraps the answer", () => {
    const prepared = prepareSchema({ type: "array", items: { type: "string" } })
    expect(prepared.schema).toEqual({
      type: "object",
      properties: { items: { type: "array", items: { type: "string" } } },
      required: ["items"],
    })
    expect(prepared.callerSchema).toEqual({ type: "array", items: { type: "string" } })
    expect(prepared.unwrap({ items: ["a"] })).toEqual(["a"])
  })

  it("refuses an object that allows any property but lists none, as Firecrawl does", () => {
    expect(
      schemaProblem({ type: "object", properties: { meta: { type: "object", additionalProperties: true } } }),
    ).toMatch(/object type with no 'properties' defined but 'additionalProperties: true'/)
    expect(
      schemaProblem({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }),
    ).toBeUndefined()
  })
})
