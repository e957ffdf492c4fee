/** The job routes' wire details through the web handler: absolute links, Firecrawl's envelopes, the prompt preview. */
import { Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"

// No worker: the routes are under test, not the crawling.
const web = makeWebHandler(Layer.merge(Engine.layer({ worker: false }), ServerConfig.layer()))
afterAll(() => web.dispose())

const call = async (method: string, path: string, body?: object, headers: Record<string, string> = {}) => {
  const response = await web.handler(
    new Request(`http://api.test${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  )
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe("job routes", () => {
  it("builds the status URL and next from the forwarded scheme, host and prefix", async () => {
    const started = await call(
      "POST",
      "/v2/crawl",
      { url: "https://example.com" },
      {
        "x-forwarded-proto": "https",
        "x-forwarded-host": "crawl.example.org",
        "x-forwarded-prefix": "/firecrawl/",
      },
    )
    expect(started.status).toBe(200)
    const id = started.body.id as string
    expect(started.body.url).toBe(`https://crawl.example.org/firecrawl/v2/crawl/${id}`)
    const status = await call("GET", `/v2/crawl/${id}?limit=5`, undefined, { "x-forwarded-proto": "https" })
    expect(status.body).toMatchObject({ success: true, status: "scraping", completed: 0, total: 1, data: [] })
    expect(status.body.next).toBe(`https://api.test/v2/crawl/${id}?skip=0&limit=5`)
    const plain = await call("POST", "/v2/batch/scrape", { urls: ["https://example.com/a"] })
    expect(plain.body.url).toBe(`http://api.test/v2/batch/scrape/${plain.body.id}`)
    expect(plain.body.invalidURLs).toEqual([])
  })

  it("answers Firecrawl's envelopes for bad and unknown ids, and cancel's bare shape", async () => {
    expect(await call("GET", "/v2/crawl/not-a-uuid")).toEqual({
      status: 400,
      body: { success: false, code: "BAD_REQUEST", error: "Invalid job ID format. Job ID must be a valid UUID." },
    })
    const unknown = "0190f3a0-0000-7000-8000-000000000000"
    for (const [method, path] of [
      ["GET", `/v2/crawl/${unknown}`],
      ["DELETE", `/v2/crawl/${unknown}`],
      ["GET", `/v2/batch/scrape/${unknown}/errors`],
      ["GET", `/v2/scrape/${unknown}`],
    ] as const) {
      const answer = await call(method, path)
      expect(answer.status, path).toBe(404)
      expect(answer.body).toMatchObject({ success: false, error: "Job not found" })
    }
    const started = await call("POST", "/v2/crawl", { url: "https://example.com" })
    expect(await call("DELETE", `/v2/crawl/${started.body.id}`)).toEqual({ status: 200, body: { status: "cancelled" } })
    const status = await call("GET", `/v2/crawl/${started.body.id}`)
    expect(status.body.status).toBe("cancelled")
    expect(status.body.next).toBeUndefined()
  })

  it("previews the options a prompt stands for, and refuses a prompt it cannot read", async () => {
    const preview = await call("POST", "/v2/crawl/params-preview", {
      url: "https://example.com",
      prompt: "only the blog, no more than 50 pages, up to 2 levels deep",
      origin: "ignored",
    })
    expect(preview.status).toBe(200)
    expect(preview.body.data).toMatchObject({ url: "https://example.com", limit: 50, maxDiscoveryDepth: 2 })
    expect((preview.body.data as { includePaths: string[] }).includePaths).toHaveLength(1)
    const unreadable = await call("POST", "/v2/crawl/params-preview", { url: "https://example.com", prompt: "hmm" })
    expect(unreadable.status).toBe(400)
    const crawl = await call("POST", "/v2/crawl", {
      url: "https://example.com",
      prompt: "no more than 7 pages",
      limit: 9,
    })
    expect(crawl.body.promptGeneratedOptions).toEqual({ limit: 7 })
    expect(crawl.body.finalCrawlerOptions).toMatchObject({ limit: 9 })
  })

  it("lists running crawls of the caller only as crawls", async () => {
    const started = await call("POST", "/v2/crawl", { url: "https://example.com/docs", limit: 3 })
    const active = await call("GET", "/v2/crawl/active")
    const entry = (active.body.crawls as Array<Record<string, unknown>>).find((crawl) => crawl.id === started.body.id)
    expect(entry).toMatchObject({ url: "https://example.com/docs", teamId: "bypass", options: { limit: 3 } })
    expect((await call("GET", "/v2/crawl/ongoing")).body.crawls).toEqual(active.body.crawls)
  })
})
