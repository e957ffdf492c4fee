/**
 * Extract end to end: a wildcard expanded through map, each page read by a fake model (or the offline extractor),
 * the values merged and traced to their pages, failures that end the job clearly, and the job's durability.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Webdata } from "../../src/index.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { SearchProvider } from "../../src/Search/SearchProvider.js"
import type { FakeReply, RecordedRequest } from "../support/fakeModels.js"
import { useLlmKit } from "../support/llmKit.js"
import { PRODUCTS } from "../support/shopSite.js"
import { startWebhookReceiver } from "../support/webhookReceiver.js"

const kit = useLlmKit()
const { engine } = kit
const fakeModel = kit.model

const LIST_SCHEMA = {
  type: "object",
  properties: {
    products: {
      type: "array",
      items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } },
    },
  },
}

/** Answers with the product whose name the page mentions, and nothing for the listing. */
const productReply = (request: RecordedRequest): FakeReply => {
  const product = PRODUCTS.find(
    (each) => request.text.includes(`It ships within two days`) && request.text.includes(`The ${each.name} by`),
  )
  return { json: { products: product === undefined ? [] : [{ name: product.name, price: product.price }] } }
}

describe("extract", () => {
  it("expands a wildcard through map, reads every page with the model and merges the values with their sources", async () => {
    const model = await fakeModel(productReply)
    const result = await engine({ model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "k" }).extract({
      urls: [`${kit.site.url}/shop/*`],
      prompt: "Every product with its price",
      schema: LIST_SCHEMA,
      showSources: true,
    })
    expect(result.status).toBe("completed")
    const products = (result.data as { products: Array<{ name: string; price: number }> }).products
    expect(products.map((product) => product.name).sort()).toEqual(PRODUCTS.map((product) => product.name).sort())
    for (const product of PRODUCTS) {
      expect(kit.site.hits(product.path)).toBeGreaterThanOrEqual(1)
      const index = products.findIndex((each) => each.name === product.name)
      expect(result.sources?.[`products[${index}]`]).toEqual([`${kit.site.url}${product.path}`])
    }
    expect(result.pages).toBe(PRODUCTS.length + 1)
    expect(result.tokensUsed).toBeGreaterThan(0)
    expect(model.requests.every((request) => request.text.includes("Every product with its price"))).toBe(true)
  })

  it("finds its pages with the search provider when it has only a prompt, and drops invalid URLs", async () => {
    const queries: Array<string> = []
    const search = Layer.succeed(SearchProvider, {
      name: "scripted",
      sources: ["web"],
      search: ({ query }) =>
        Effect.sync(() => {
          queries.push(query)
          return {
            provider: "scripted",
            hits: [{ url: `${kit.site.url}${PRODUCTS[1]!.path}` }, { url: `${kit.site.url}${PRODUCTS[2]!.path}` }],
          }
        }),
    })
    const model = await fakeModel(productReply)
    const webdata = engine({ model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "k" }, { search })
    const result = await webdata.extract({ prompt: "stoneware and toasters", schema: LIST_SCHEMA })
    expect(queries).toEqual(["stoneware and toasters"])
    expect(result.status).toBe("completed")
    const names = (result.data as { products: Array<{ name: string }> }).products.map((product) => product.name)
    expect(names.sort()).toEqual([PRODUCTS[1]!.name, PRODUCTS[2]!.name].sort())

    const started = await webdata.startExtract({
      urls: [`${kit.site.url}${PRODUCTS[0]!.path}`, "ftp://example.com/file", "http://http://x"],
      schema: LIST_SCHEMA,
    })
    expect(started.invalidURLs).toEqual(["ftp://example.com/file", "http://http://x"])
  })

  it("fills a schema offline from a page's structured data when there is no model", async () => {
    const kettle = PRODUCTS[0]!
    const result = await engine().extract({
      urls: [`${kit.site.url}${kettle.path}`],
      schema: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } },
    })
    expect(result.status).toBe("completed")
    expect(result.data).toEqual({ name: kettle.name, price: kettle.price })
  })

  it("refuses a schema-less extract without a model, and one with neither URLs nor prompt", async () => {
    const webdata = engine()
    await expect(webdata.startExtract({ urls: [`${kit.site.url}/shop/`], prompt: "products" })).rejects.toMatchObject({
      code: "LLM_NOT_CONFIGURED",
      status: 400,
    })
    await expect(webdata.startExtract({ schema: LIST_SCHEMA })).rejects.toMatchObject({ code: "BAD_REQUEST" })
  })

  it("finds its pages in the local index of scraped pages by default", async () => {
    const webdata = engine()
    const mug = PRODUCTS[1]!
    await webdata.scrape(`${kit.site.url}${mug.path}`)
    const result = await webdata.extract({
      prompt: mug.name,
      schema: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } },
    })
    expect(result.status).toBe("completed")
    expect(result.data).toEqual({ name: mug.name, price: mug.price })
  })

  it("ends as failed with the model's error when no page can be read, instead of completing empty", async () => {
    const model = await fakeModel(() => ({ status: 401 }))
    const result = await engine({ model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "bad" }).extract({
      urls: [`${kit.site.url}${PRODUCTS[1]!.path}`],
      prompt: "The product",
    })
    expect(result.status).toBe("failed")
    expect(result.success).toBe(false)
    expect(result.error).toMatch(/No page could be read: .*401|No page could be read/)
    expect(result.error).toContain(PRODUCTS[1]!.path)
  })

  it("ends as failed with a timeout, not a stuck job, when the model server never answers", async () => {
    const model = await fakeModel(() => ({ hang: true }))
    const started = Date.now()
    const result = await engine({
      model: "openai-chat:test",
      baseUrl: model.baseUrl,
      apiKey: "k",
      timeoutMs: 300,
    }).extract({
      urls: [`${kit.site.url}${PRODUCTS[0]!.path}`],
      prompt: "The product",
    })
    expect(result.status).toBe("failed")
    expect(result.error).toBe(
      `No page could be read: ${kit.site.url}${PRODUCTS[0]!.path}: openai-chat:test gave no answer within 300 ms`,
    )
    // The page was tried again (a model that times out may answer later), then given up on.
    expect(model.requests.length).toBeGreaterThanOrEqual(2)
    expect(Date.now() - started).toBeLessThan(30_000)
  })

  it("resumes on another worker when the one running it stops mid-way, losing no page", async () => {
    const store = Layer.succeed(JobStore, MemoryJobStore.make())
    let slow = true
    const model = await fakeModel((request) => ({ ...productReply(request), ...(slow ? { delayMs: 3000 } : {}) }))
    const llm = { model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "k" }
    const first = new Webdata({
      allowPrivateAddresses: true,
      browser: false,
      parser: false,
      llm,
      store,
      worker: { leaseMs: 1000 },
    })
    const { id } = await first.startExtract({ urls: [`${kit.site.url}/shop/*`], schema: LIST_SCHEMA })
    for (const deadline = Date.now() + 10_000; model.requests.length === 0 && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(model.requests.length).toBeGreaterThan(0)
    // The worker stops while the model is answering: its leases are left to expire.
    await first.close()
    slow = false
    const second = engine(llm, { store, worker: { leaseMs: 1000, pollMs: 50 } })
    let status = await second.getExtractStatus(id)
    for (const deadline = Date.now() + 30_000; status.status === "processing" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await second.getExtractStatus(id)
    }
    expect(status.status).toBe("completed")
    expect(status.pages).toBe(PRODUCTS.length + 1)
    const names = (status.data as { products: Array<{ name: string }> }).products.map((product) => product.name)
    expect(names.sort()).toEqual(PRODUCTS.map((product) => product.name).sort())
  })

  it("fails once past its timeout, instead of waiting on a slow model", async () => {
    const model = await fakeModel((request) => ({ ...productReply(request), delayMs: 5000 }))
    const webdata = engine({ model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "k" })
    const { id } = await webdata.startExtract({
      urls: [`${kit.site.url}${PRODUCTS[0]!.path}`],
      schema: LIST_SCHEMA,
      timeout: 1000,
    })
    expect((await webdata.getExtractStatus(id)).status).toBe("processing")
    await new Promise((resolve) => setTimeout(resolve, 1200))
    const status = await webdata.getExtractStatus(id)
    expect(status).toMatchObject({
      status: "failed",
      success: false,
      error: "The extract did not finish within its timeout.",
    })
  })

  it("sends extract.started and extract.completed with the merged data to its webhook", async () => {
    const hook = kit.track(await startWebhookReceiver())
    const model = await fakeModel(productReply)
    const webdata = engine({ model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "k" })
    await webdata.extract({ urls: [`${kit.site.url}${PRODUCTS[2]!.path}`], schema: LIST_SCHEMA, webhook: hook.url })
    const received = await hook.waitFor(2)
    expect(received.map((event) => event.type)).toEqual(["extract.started", "extract.completed"])
    expect(received[1]!.data).toEqual([
      expect.objectContaining({ data: { products: [{ name: PRODUCTS[2]!.name, price: PRODUCTS[2]!.price }] } }),
    ])
  })
})
