/**
 * Judging and search targets, with the library's facade-free service: a model (a scripted OpenAI-compatible server on
 * 127.0.0.1) judges changed pages against the goal, rules judge without a model, and a search target reports new
 * results once (pages on 127.0.0.1 stand in for what a search engine finds).
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import type { LlmSettings } from "../../src/Llm/LlmConfig.js"
import { judgeByRules } from "../../src/Monitor/Judge.js"
import { Monitor } from "../../src/Monitor.js"
import { type SearchHit, SearchProvider } from "../../src/Search/SearchProvider.js"
import { page, startEditableSite } from "../support/editableSite.js"
import { startFakeModel } from "../support/fakeModels.js"

const open: Array<{ close: () => Promise<void> } | { dispose: () => Promise<void> }> = []
afterAll(async () => {
  for (const resource of open.reverse()) await ("close" in resource ? resource.close() : resource.dispose())
})

type Runtime = ManagedRuntime.ManagedRuntime<Monitor, never>

/** Runs the monitor's check now and answers its pages once it has ended. */
const runCheck = async (runtime: Runtime, id: string) => {
  const started = await runtime.runPromise(Effect.flatMap(Monitor, (service) => service.run(id, null)))
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const { check } = await runtime.runPromise(
      Effect.flatMap(Monitor, (service) => service.check(id, started.id, null)),
    )
    if (!["queued", "running"].includes(check.status)) return check
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  throw new Error("the check did not end in time")
}

const create = (runtime: Runtime, input: object) =>
  runtime.runPromise(Effect.flatMap(Monitor, (service) => service.create(input, null)))

describe("judging changes", () => {
  it("asks the model whether a change matters for the goal, and keeps its judgment", async () => {
    const model = await startFakeModel({
      reply: () => ({
        json: {
          meaningful: true,
          confidence: "high",
          reason: "The price of the Pro plan went up.",
          meaningfulChanges: [{ type: "changed", before: "Pro costs 20", after: "Pro costs 25", reason: "price" }],
        },
      }),
    })
    open.push(model)
    const site = await startEditableSite({ "/pricing": page("Pricing", "<p>Pro costs 20 dollars.</p>") })
    open.push(site)
    const llm: LlmSettings = { model: "openai-chat:judge-test", baseUrl: model.baseUrl, apiKey: "k" }
    const runtime = ManagedRuntime.make(Engine.layer({ allowPrivateAddresses: true, llm, worker: { pollMs: 20 } }))
    open.push(runtime)
    const monitor = await create(runtime, {
      name: "Prices",
      schedule: { text: "hourly" },
      goal: "Tell me when a plan's price changes",
      targets: [{ type: "scrape", urls: [`${site.url}/pricing`] }],
    })
    expect(monitor.judgeEnabled).toBe(true)
    await runCheck(runtime, monitor.id)
    expect(model.requests).toHaveLength(0) // a new page is not judged
    site.pages.set("/pricing", page("Pricing", "<p>Pro costs 25 dollars.</p>"))
    const check = await runCheck(runtime, monitor.id)
    expect(check.pages[0]?.judgment).toMatchObject({ meaningful: true, reason: "The price of the Pro plan went up." })
    expect(model.requests).toHaveLength(1)
    expect(model.requests[0]?.text).toContain("Tell me when a plan's price changes")
    expect(model.requests[0]?.text).toContain("+Pro costs 25 dollars.")
  })

  it("judges by keywords and patterns without a model", () => {
    const diff = "--- a/page\n+++ b/page\n@@ -1,2 +1,2 @@\n-Status: open\n+Status: closed\n Footer\n"
    const judged = judgeByRules(
      { keywords: ["CLOSED"] },
      { goal: null, mode: "rules", url: "u", status: "changed", diff, owner: null },
    )
    expect(judged).toMatchObject({ meaningful: true, meaningfulChanges: [{ type: "added", after: "Status: closed" }] })
    expect(
      judgeByRules(
        { patterns: ["\\bv\\d+\\.\\d+"] },
        { goal: null, mode: "rules", url: "u", status: "changed", diff, owner: null },
      ).meaningful,
    ).toBe(false)
    expect(
      judgeByRules(
        { patterns: ["Status: (open|closed)"] },
        { goal: null, mode: "rules", url: "u", status: "changed", diff, owner: null },
      ).meaningfulChanges,
    ).toHaveLength(2)
  })
})

describe("search targets", () => {
  it("reports each result once: new, then already seen; new results the rules find beside the goal are ignored", async () => {
    const site = await startEditableSite({
      "/r/1": page("Launch of the widget", "<p>The widget launches today.</p>"),
      "/r/2": page("Gardening", "<p>Roses and tulips.</p>"),
      "/r/3": page("Widget review", "<p>A widget review.</p>"),
    })
    open.push(site)
    const results: Array<string> = ["/r/1", "/r/2"]
    const queries: Array<string> = []
    const search = Layer.succeed(SearchProvider, {
      name: "scripted",
      sources: ["web"],
      search: (query) =>
        Effect.sync(() => {
          queries.push(query.query)
          const hits: Array<SearchHit> = results.map((path) => ({ url: `${site.url}${path}`, title: path }))
          return { hits, provider: "scripted" }
        }),
    })
    const runtime = ManagedRuntime.make(Engine.layer({ allowPrivateAddresses: true, search, worker: { pollMs: 20 } }))
    open.push(runtime)
    const monitor = await create(runtime, {
      name: "Widget news",
      schedule: { text: "every 2 hours" },
      goal: "News about the widget",
      judgeRules: { keywords: ["widget"] },
      targets: [{ type: "search", queries: ["widget news"], maxResults: 5 }],
    })
    const first = await runCheck(runtime, monitor.id)
    expect(queries).toEqual(["widget news"])
    const byPath = (pages: typeof first.pages) =>
      Object.fromEntries(pages.map((entry) => [new URL(entry.url).pathname, entry]))
    expect(byPath(first.pages)["/r/1"]).toMatchObject({ status: "new", metadata: { searchStatus: "alert" } })
    expect(byPath(first.pages)["/r/2"]).toMatchObject({ status: "same", metadata: { searchStatus: "ignored" } })
    results.push("/r/3")
    const second = await runCheck(runtime, monitor.id)
    expect(byPath(second.pages)["/r/1"]).toMatchObject({ status: "same", metadata: { searchStatus: "already_seen" } })
    expect(byPath(second.pages)["/r/3"]).toMatchObject({ status: "new", judgment: { meaningful: true } })
    expect(site.hits("/r/1")).toBe(1)
  })

  it("needs a goal unless judging is off", async () => {
    const runtime = ManagedRuntime.make(Engine.layer({ worker: false }))
    open.push(runtime)
    const refused = await runtime.runPromise(
      Effect.flip(
        Effect.flatMap(Monitor, (service) =>
          service.create(
            { name: "x", schedule: { text: "daily" }, targets: [{ type: "search", queries: ["q"] }] },
            null,
          ),
        ),
      ),
    )
    expect(refused).toMatchObject({ _tag: "RequestError", message: expect.stringContaining("goal") })
  })
})
