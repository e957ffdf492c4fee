/**
 * The `json` and `summary` formats end to end: scraped from a local site through the engine, answered by a fake model
 * server that speaks each provider's wire format, or by the offline extractors when no model is configured.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decodeStrict } from "../../src/Domain/Decode.js"
import { ScrapeRequest } from "../../src/Domain/ScrapeOptions.js"
import * as Engine from "../../src/Engine.js"
import { WebdataError } from "../../src/index.js"
import * as LlmUsage from "../../src/Llm/LlmUsage.js"
import * as Scrape from "../../src/Scrape.js"
import { useLlmKit } from "../support/llmKit.js"
import { ARTICLE_SENTENCES, PRODUCTS } from "../support/shopSite.js"

const kit = useLlmKit()
const { model, engine, chat } = kit

const PRODUCT_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, price: { type: "number" }, brand: { type: "string" } },
  required: ["name", "price"],
}

const kettle = PRODUCTS[0]!

describe("without a model", () => {
  it("fills a json schema from the page's JSON-LD with the offline extractor, and says so", async () => {
    const document = await engine().scrape(`${kit.site.url}${kettle.path}`, {
      formats: [{ type: "json", schema: PRODUCT_SCHEMA }],
    })
    expect(document.json).toMatchObject({ name: kettle.name, price: kettle.price, brand: kettle.brand })
    expect(document.metadata.jsonMode).toBe("offline")
    expect(document.markdown).toBeUndefined()
  })

  it("summarises with real sentences of the page, in the page's order", async () => {
    const document = await engine().scrape(`${kit.site.url}/article`, { formats: ["summary", "markdown"] })
    expect(document.metadata.summaryMode).toBe("extractive")
    const summary = document.summary ?? ""
    const used = ARTICLE_SENTENCES.filter((sentence) => summary.includes(sentence))
    expect(used.length).toBeGreaterThan(0)
    // Nothing but those sentences, in document order.
    expect(summary.replace(/\s+/g, " ").trim()).toBe(used.join(" "))
    expect(document.markdown).toContain("Tidal power")
  })

  it("answers 400 LLM_NOT_CONFIGURED for json with only a prompt, and for onlyCleanContent", async () => {
    const webdata = engine()
    const prompted = await webdata
      .scrape(`${kit.site.url}${kettle.path}`, { formats: [{ type: "json", prompt: "The product's name" }] })
      .catch((error: unknown) => error)
    expect(prompted).toBeInstanceOf(WebdataError)
    expect(prompted).toMatchObject({ code: "LLM_NOT_CONFIGURED", status: 400 })
    expect((prompted as Error).message).toMatch(/WEBDATA_LLM/)
    const clean = await webdata
      .scrape(`${kit.site.url}${kettle.path}`, { onlyCleanContent: true })
      .catch((error: unknown) => error)
    expect(clean).toMatchObject({ code: "LLM_NOT_CONFIGURED" })
  })
})

describe("with a model", () => {
  it("asks the model for json with the page's markdown and the prompt, and reports the tokens", async () => {
    const fake = await model(() => ({
      json: { name: "Copper Kettle", price: 49.5 },
      usage: { inputTokens: 300, outputTokens: 20 },
    }))
    const document = await engine(chat(fake)).scrape(`${kit.site.url}${kettle.path}`, {
      formats: [{ type: "json", schema: PRODUCT_SCHEMA, prompt: "The product on sale" }],
    })
    expect(document.json).toEqual({ name: "Copper Kettle", price: 49.5 })
    expect(document.metadata.jsonMode).toBe("model")
    expect(document.metadata.llmUsage).toEqual({ model: "openai-chat:test-model", inputTokens: 300, outputTokens: 20 })
    const request = fake.requests[0]!
    expect(request.api).toBe("chat")
    expect(request.text).toContain("The product on sale")
    expect(request.text).toContain("checked by hand before it leaves the workshop")
    expect(request.schema).toMatchObject({ properties: { name: { type: "string" } } })
  })

  it("counts the tokens of each owner", async () => {
    const fake = await model(() => ({ json: { name: "x", price: 1 }, usage: { inputTokens: 100, outputTokens: 7 } }))
    const totals = await Effect.runPromise(
      Effect.gen(function* () {
        const scraper = yield* Scrape.Scrape
        const options = yield* decodeStrict(ScrapeRequest)({
          url: `${kit.site.url}${kettle.path}`,
          formats: [{ type: "json", schema: PRODUCT_SCHEMA }],
        })
        yield* scraper.scrape({ ...options, owner: "key-a" })
        yield* scraper.scrape({ ...options, owner: "key-a", maxAge: 0 })
        yield* scraper.scrape({ ...options, owner: "key-b" })
        const usage = yield* LlmUsage.LlmUsage
        return [yield* usage.usageOf("key-a"), yield* usage.usageOf("key-b"), yield* usage.usageOf(null)]
      }).pipe(Effect.provide(Engine.layer({ allowPrivateAddresses: true, llm: chat(fake), worker: false }))),
    )
    expect(totals).toEqual([
      { inputTokens: 200, outputTokens: 14 },
      { inputTokens: 100, outputTokens: 7 },
      { inputTokens: 0, outputTokens: 0 },
    ])
  })

  it("wraps a top-level array schema for the model and unwraps its answer", async () => {
    const fake = await model(() => ({ json: { items: ["Copper Kettle"] } }))
    const document = await engine(chat(fake)).scrape(`${kit.site.url}${kettle.path}`, {
      formats: [{ type: "json", schema: { type: "array", items: { type: "string" } } }],
    })
    expect(document.json).toEqual(["Copper Kettle"])
  })

  it("asks OpenAI's Responses API and Anthropic's Messages API in their own formats", async () => {
    const fake = await model((request) =>
      request.text.includes("Summarise")
        ? { text: "A kettle made of copper." }
        : { json: { name: kettle.name, price: kettle.price } },
    )
    const openai = await engine({ model: "openai:gpt-4.1-mini", baseUrl: fake.baseUrl, apiKey: "sk-test" }).scrape(
      `${kit.site.url}${kettle.path}`,
      { formats: [{ type: "json", schema: PRODUCT_SCHEMA }, "summary"] },
    )
    expect(openai.json).toEqual({ name: kettle.name, price: kettle.price })
    expect(openai.summary).toBe("A kettle made of copper.")
    const anthropic = await engine({
      model: "anthropic:claude-sonnet-4-5",
      baseUrl: fake.baseUrl.replace(/\/v1$/, ""),
      apiKey: "sk-ant-test",
    }).scrape(`${kit.site.url}${kettle.path}`, { formats: [{ type: "json", schema: PRODUCT_SCHEMA }] })
    expect(anthropic.json).toEqual({ name: kettle.name, price: kettle.price })
    expect(fake.requests.map((request) => request.api).sort()).toEqual(["anthropic", "responses", "responses"])
  })

  it("shows the model its invalid answer and takes the corrected one", async () => {
    let calls = 0
    const fake = await model(() =>
      calls++ === 0
        ? { text: '{"name": "Copper Kettle", "price": "cheap"' }
        : { json: { name: "Copper Kettle", price: 49.5 } },
    )
    const document = await engine(chat(fake, { structured: "prompt" })).scrape(`${kit.site.url}${kettle.path}`, {
      formats: [{ type: "json", schema: PRODUCT_SCHEMA }],
    })
    expect(document.json).toEqual({ name: "Copper Kettle", price: 49.5 })
    expect(fake.requests).toHaveLength(2)
    expect(fake.requests[1]!.text).toMatch(/price/)
  })

  it("fails with a clear error, not a hang, when the model server answers 500 or never answers", async () => {
    const failing = await model(() => ({ status: 500 }))
    const started = Date.now()
    const error = await engine(chat(failing, { timeoutMs: 2000 }))
      .scrape(`${kit.site.url}${kettle.path}`, { formats: ["summary"] })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: "LLM_UNAVAILABLE", status: 502 })
    expect(Date.now() - started).toBeLessThan(20_000)

    const hanging = await model(() => ({ hang: true }))
    const slow = await engine(chat(hanging, { timeoutMs: 1000 }))
      .scrape(`${kit.site.url}${kettle.path}`, { formats: ["summary"] })
      .catch((caught: unknown) => caught)
    expect(slow).toMatchObject({ code: "LLM_TIMEOUT", status: 504 })
  })
})
