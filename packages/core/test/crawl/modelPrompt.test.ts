/**
 * Crawl prompts read by a language model (a fake one on 127.0.0.1): it sees a sample of the site's URLs, what it
 * answers is checked like a request's options, and when it fails the deterministic reader takes over.
 */
import { Effect } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { Crawl } from "../../src/Crawl.js"
import * as Engine from "../../src/Engine.js"
import { Webdata } from "../../src/index.js"
import type { LlmSettings } from "../../src/Llm/LlmConfig.js"
import { type CrawlSite, startCrawlSite } from "../support/crawlSite.js"
import { type FakeReply, type RecordedRequest, startFakeModel } from "../support/fakeModels.js"

let site: CrawlSite
const open: Array<{ close: () => Promise<void> }> = []

beforeAll(async () => {
  site = await startCrawlSite({
    pages: {
      "/": { links: ["/articles/first", "/articles/second", "/about", "/tags/sea"] },
      "/articles/first": { links: ["/articles/second"] },
      "/articles/second": {},
      "/about": {},
      "/tags/sea": {},
    },
  })
})
afterAll(() => site.close())
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close()
})

const withModel = async (reply: (request: RecordedRequest) => FakeReply) => {
  const model = await startFakeModel({ reply })
  open.push(model)
  const llm: LlmSettings = { model: "openai-chat:crawl-test", baseUrl: model.baseUrl, apiKey: "k" }
  return { model, llm }
}

const preview = (llm: LlmSettings, prompt: string) =>
  Effect.runPromise(
    Effect.flatMap(Crawl, (crawl) => crawl.previewParams({ url: site.url, prompt })).pipe(
      Effect.provide(Engine.layer({ allowPrivateAddresses: true, llm, worker: false })),
    ),
  )

describe("crawl prompts with a model", () => {
  it("gives the model the site's URLs and keeps only the options that check out", async () => {
    const { model, llm } = await withModel(() => ({
      json: { includePaths: ["^/articles/.*"], limit: 20, excludePaths: ["(unclosed"] },
    }))
    const previewed = await preview(llm, "just the articles, twenty at most")
    expect(previewed.options).toEqual({ includePaths: ["^/articles/.*"], limit: 20 })
    expect(previewed.understood.some((line) => /excludePaths .* dropped/.test(line))).toBe(true)
    const request = model.requests[0]!
    expect(request.text).toContain("just the articles, twenty at most")
    expect(request.text).toContain(`${site.url}/articles/first`)
  })

  it("falls back to the deterministic reader when the model fails", async () => {
    const { llm } = await withModel(() => ({ status: 401 }))
    const previewed = await preview(llm, "only the blog")
    expect(previewed.options).toEqual({ includePaths: ["^/blog(?:/|$)"] })
  })

  it("crawls what the model's options allow", async () => {
    const { llm } = await withModel(() => ({ json: { includePaths: ["^/articles/"] } }))
    const webdata = new Webdata({ allowPrivateAddresses: true, browser: false, parser: false, llm })
    open.push(webdata)
    const job = await webdata.crawl(site.url, { prompt: "the articles", sitemap: "skip" })
    const paths = job.data.map((document) => new URL(document.metadata.sourceURL).pathname).sort()
    expect(paths).toEqual(["/", "/articles/first", "/articles/second"])
  })
})
