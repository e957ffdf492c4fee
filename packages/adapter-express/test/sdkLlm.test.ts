/**
 * The official Firecrawl SDK's LLM calls against `serve()` with a model (a fake OpenAI-compatible server on
 * 127.0.0.1): scrape with json and summary, extract (waiting and step by step), agent with status and cancel.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, SearchProvider, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CrawlSite } from "../../core/test/support/crawlSite.js"
import { type FakeModel, type RecordedRequest, startFakeModel } from "../../core/test/support/fakeModels.js"
import { PRODUCTS, startShopSite } from "../../core/test/support/shopSite.js"

let site: CrawlSite
let model: FakeModel
let api: RunningServer
let client: Firecrawl
/** While true, the model never answers the agent (for cancelling a run that is under way). */
let agentHangs = false

const kettle = PRODUCTS[0]!

const reply = (request: RecordedRequest) => {
  if (request.text.includes("web research agent")) {
    if (agentHangs) return { hang: true } as const
    const steps = [...request.text.matchAll(/Step (\d+): (\w+)/g)].length
    return steps === 0
      ? { json: { tool: "scrape", url: `${site.url}${kettle.path}` } }
      : { json: { tool: "finish", data: { name: kettle.name, price: kettle.price } } }
  }
  if (request.text.includes("Summarise")) return { text: "A copper kettle for 49.50 euros." }
  const product = PRODUCTS.find((each) => request.text.includes(`The ${each.name} by`))
  return { json: product === undefined ? {} : { name: product.name, price: product.price } }
}

beforeAll(async () => {
  site = await startShopSite()
  model = await startFakeModel({ reply })
  api = await serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      llm: { model: "openai-chat:sdk-test", baseUrl: model.baseUrl, apiKey: "k" },
      search: Layer.succeed(SearchProvider, {
        name: "empty",
        sources: ["web"],
        search: () => Effect.succeed({ hits: [], provider: "empty" }),
      }),
    }),
    serverConfig: ServerConfig.layer({ apiKeys: ["test-key"] }),
  })
  client = new Firecrawl({ apiUrl: api.url, apiKey: "test-key" })
})
afterAll(async () => {
  await api?.close()
  await model?.close()
  await site?.close()
})

const SCHEMA = { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } }

describe("the Firecrawl SDK's LLM calls against the Express adapter", () => {
  it("scrape() with json and summary formats", async () => {
    const document = await client.scrape(`${site.url}${kettle.path}`, {
      formats: [{ type: "json", schema: SCHEMA, prompt: "The product" }, "summary"],
    })
    expect(document.json).toEqual({ name: kettle.name, price: kettle.price })
    expect(document.summary).toBe("A copper kettle for 49.50 euros.")
  })

  it("extract() waits for the merged data; startExtract() + getExtractStatus() follow it", async () => {
    const done = await client.extract({
      urls: [`${site.url}${kettle.path}`],
      schema: SCHEMA,
      pollInterval: 0.1,
      timeout: 30,
    })
    expect(done.status).toBe("completed")
    expect(done.data).toEqual({ name: kettle.name, price: kettle.price })

    const mug = PRODUCTS[1]!
    const started = await client.startExtract({
      urls: [`${site.url}${mug.path}`],
      prompt: "The product",
      showSources: true,
    })
    expect(started.success).toBe(true)
    let status = await client.getExtractStatus(started.id ?? "")
    for (const deadline = Date.now() + 30_000; status.status === "processing" && Date.now() < deadline; )
      status = await client.getExtractStatus(started.id ?? "")
    expect(status.status).toBe("completed")
    expect(status.data).toEqual({ name: mug.name, price: mug.price })
    expect(status.sources).toMatchObject({ name: [`${site.url}${mug.path}`] })
  })

  it("agent() runs to schema-valid data; getAgentStatus() shows it; cancelAgent() stops a running one", async () => {
    const done = await client.agent({
      prompt: "What does the copper kettle cost?",
      schema: SCHEMA,
      pollInterval: 0.1,
      timeout: 30,
    })
    expect(done.status).toBe("completed")
    expect(done.data).toEqual({ name: kettle.name, price: kettle.price })
    expect(done.model).toBe("openai-chat:sdk-test")

    agentHangs = true
    const started = await client.startAgent({ prompt: "Wait", urls: [site.url] })
    expect(started.success).toBe(true)
    expect((await client.getAgentStatus(started.id ?? "")).status).toBe("processing")
    const cancelled = await client.cancelAgent(started.id ?? "")
    expect(cancelled).toBe(true)
    expect((await client.getAgentStatus(started.id ?? "")).status).toBe("cancelled")
    agentHangs = false
  })

  it("answers the SDK's errors for bad input in Firecrawl's envelope", async () => {
    await expect(client.startExtract({ urls: [] })).rejects.toThrow(/Either 'urls' or 'prompt' must be provided/)
    await expect(client.getAgentStatus("not-a-uuid")).rejects.toThrow(/Invalid job ID format/)
  })
})
