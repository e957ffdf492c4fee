/**
 * The agent end to end: a fake model decides each step from what its prompt shows (the goal and the steps so far);
 * the tools run for real against a local shop (search through a fake provider that answers the shop's URLs).
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Webdata } from "../../src/index.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import type { LlmSettings } from "../../src/Llm/LlmConfig.js"
import { SearchProvider } from "../../src/Search/SearchProvider.js"
import { type FakeReply, type RecordedRequest, startFakeModel } from "../support/fakeModels.js"
import { useLlmKit } from "../support/llmKit.js"
import { PRODUCTS } from "../support/shopSite.js"
import { startWebhookReceiver } from "../support/webhookReceiver.js"

const kit = useLlmKit()

const kettle = PRODUCTS[0]!
const searches: Array<string> = []

const search = Layer.succeed(SearchProvider, {
  name: "scripted",
  sources: ["web"],
  search: ({ query }) =>
    Effect.sync(() => {
      searches.push(query)
      return {
        provider: "scripted",
        hits: PRODUCTS.map((product) => ({ url: `${kit.site.url}${product.path}`, title: product.name })),
      }
    }),
})

/** The steps already taken, as the prompt lists them. */
const stepsIn = (request: RecordedRequest) => [...request.text.matchAll(/Step (\d+): (\w+)/g)].map((match) => match[2])

const run = async (script: (request: RecordedRequest, steps: ReadonlyArray<string | undefined>) => FakeReply) => {
  const model = await kit.model((request) => script(request, stepsIn(request)))
  const webdata = kit.engine(kit.chat(model), { search })
  return { model, webdata }
}

const ANSWER_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, price: { type: "number" } },
  required: ["name", "price"],
}

describe("agent", () => {
  it("searches, reads a page and finishes with schema-valid data, every step recorded and streamed", async () => {
    const { model, webdata } = await run((_request, steps) => {
      if (steps.length === 0) return { json: { thought: "find it", tool: "search", query: "copper kettle price" } }
      if (steps.length === 1) return { json: { tool: "scrape", url: `${kit.site.url}${kettle.path}` } }
      return { json: { tool: "finish", data: { name: kettle.name, price: kettle.price } } }
    })
    const agent = webdata.agent("What does the copper kettle cost?", { schema: ANSWER_SCHEMA })
    const streamed = []
    for await (const step of agent) streamed.push(step)
    const result = await agent.result()
    expect(result.status).toBe("completed")
    expect(result.data).toEqual({ name: kettle.name, price: kettle.price })
    expect(result.steps.map((step) => step.tool)).toEqual(["search", "scrape", "finish"])
    expect(streamed.map((step) => step.tool)).toEqual(["search", "scrape", "finish"])
    expect(result.steps[0]).toMatchObject({
      input: { query: "copper kettle price" },
      output: "3 results",
      thought: "find it",
    })
    expect(searches).toContain("copper kettle price")
    expect(kit.site.hits(kettle.path)).toBeGreaterThanOrEqual(1)
    // The page's text reached the model for its last decision.
    expect(model.requests[2]!.text).toContain("checked by hand before it leaves the workshop")
    expect(result.creditsUsed).toBeGreaterThanOrEqual(2)
    expect(result.tokensUsed).toBeGreaterThan(0)
  })

  it("ends as failed with a clear error when its credits run out", async () => {
    let page = 0
    const { webdata } = await run(() => ({
      json: { tool: "scrape", url: `${kit.site.url}${PRODUCTS[page++ % 3]!.path}?v=${page}` },
    }))
    const result = await webdata.agent("Read everything", { maxCredits: 3 }).result()
    expect(result.status).toBe("failed")
    expect(result.error).toMatch(/^Budget exhausted: the run used \d+ credits \(maxCredits 3\)/)
    expect(result.steps.length).toBeGreaterThan(0)
  })

  it("does not run the same call twice, and fails a run that keeps repeating itself", async () => {
    const { webdata } = await run(() => ({ json: { tool: "scrape", url: `${kit.site.url}${kettle.path}` } }))
    const before = kit.site.hits(kettle.path)
    const result = await webdata.agent("Loop").result()
    expect(result.status).toBe("failed")
    expect(result.error).toMatch(/kept repeating itself/)
    expect(result.steps.map((step) => step.output)).toEqual([
      "Read Copper Kettle | Shop",
      "Repeated call, not run",
      "Repeated call, not run",
    ])
    // Read once, whatever the model asked.
    expect(kit.site.hits(kettle.path) - before).toBe(1)
  })

  it("shows the model its invalid answers: a schema mismatch at once, a finish without data as a step", async () => {
    let asked = 0
    const { model, webdata } = await run((_request, steps) => {
      asked++
      if (steps.length === 0) return { json: { tool: "finish", thought: "done already?" } }
      // The first try at the real answer breaks the schema; the model is shown why and fixes it.
      return asked === 2
        ? { json: { tool: "finish", data: { name: kettle.name, price: "49.50 EUR" } } }
        : { json: { tool: "finish", data: { name: kettle.name, price: 49.5 } } }
    })
    const result = await webdata.agent("Price of the kettle", { schema: ANSWER_SCHEMA }).result()
    expect(result.status).toBe("completed")
    expect(result.data).toEqual({ name: kettle.name, price: 49.5 })
    expect(result.steps.map((step) => step.tool)).toEqual(["finish", "finish"])
    expect(result.steps[0]!.output).toMatch(/^Answer rejected: /)
    expect(model.requests[1]!.text).toMatch(/does not match the schema/)
    expect(model.requests[2]!.text).toMatch(/price/)
    expect(model.requests).toHaveLength(3)
  })

  it("fails with the model's error instead of hanging when the model refuses", async () => {
    const { webdata } = await run(() => ({ status: 401 }))
    const result = await webdata.agent("Anything").result()
    expect(result.status).toBe("failed")
    expect(result.error).toMatch(/^The model failed at step 0: /)
  })

  it("can be cancelled; a finished run cannot", async () => {
    const { webdata } = await run(() => ({ hang: true }))
    const agent = webdata.agent("Wait forever")
    const id = await agent.id
    await webdata.cancelAgent(id)
    const status = await webdata.getAgentStatus(id)
    expect(status.status).toBe("cancelled")
    await expect(webdata.cancelAgent(id)).rejects.toMatchObject({ code: "JOB_ALREADY_COMPLETED", status: 409 })
  })

  it("resumes on another worker from its recorded steps, and tells its webhook each step", async () => {
    const hook = kit.track(await startWebhookReceiver())
    let slow = true
    const model = await startFakeModel({
      reply: (request) => {
        const steps = stepsIn(request)
        if (steps.length === 0) return { json: { tool: "scrape", url: `${kit.site.url}${kettle.path}` } }
        return {
          json: { tool: "finish", data: { name: kettle.name, price: kettle.price } },
          ...(slow ? { delayMs: 3000 } : {}),
        }
      },
    })
    kit.track(model)
    const store = Layer.succeed(JobStore, MemoryJobStore.make())
    const llm: LlmSettings = { model: "openai-chat:agent-test", baseUrl: model.baseUrl, apiKey: "k" }
    const options = { allowPrivateAddresses: true, browser: false, parser: false, llm, store } as const
    const first = new Webdata({ ...options, worker: { leaseMs: 1000 } })
    const { id } = await first.startAgent("Kettle price", { schema: ANSWER_SCHEMA, webhook: hook.url })
    // Step 0 is recorded; step 1 is with the (slow) model when the worker stops.
    for (const deadline = Date.now() + 10_000; model.requests.length < 2 && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 20))
    await first.close()
    slow = false
    const second = new Webdata({ ...options, worker: { leaseMs: 1000, pollMs: 50 } })
    kit.track(second)
    let status = await second.getAgentStatus(id)
    for (const deadline = Date.now() + 30_000; status.status === "processing" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await second.getAgentStatus(id)
    }
    expect(status.status).toBe("completed")
    expect(status.steps.map((step) => step.tool)).toEqual(["scrape", "finish"])
    expect(kit.site.hits(kettle.path)).toBeGreaterThanOrEqual(1)
    const events = await hook.waitFor(4)
    expect(events.map((event) => event.type)).toEqual([
      "agent.started",
      "agent.action",
      "agent.action",
      "agent.completed",
    ])
    expect(events[1]!.data[0]!.tool).toBe("scrape")
  })

  it("answers 400 LLM_NOT_CONFIGURED without a model", async () => {
    const webdata = new Webdata({ browser: false, parser: false })
    kit.track(webdata)
    await expect(webdata.startAgent("anything")).rejects.toMatchObject({ code: "LLM_NOT_CONFIGURED", status: 400 })
  })
})
