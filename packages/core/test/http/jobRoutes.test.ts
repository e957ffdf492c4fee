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

describe("job submission", () => {
  it("refuses scrape options this build cannot honour with the scrape's 400, before any job exists", async () => {
    const scrape = await call("POST", "/v2/scrape", { url: "https://example.com", formats: ["screenshot"] })
    for (const [path, body] of [
      ["/v2/crawl", { url: "https://example.com/refused", scrapeOptions: { formats: ["screenshot"] } }],
      ["/v2/batch/scrape", { urls: ["https://example.com/a"], formats: ["screenshot"] }],
    ] as const) {
      const answer = await call("POST", path, body)
      expect(answer.status, path).toBe(400)
      expect(answer.body, path).toEqual(scrape.body)
    }
    const json = await call("POST", "/v2/crawl", {
      url: "https://example.com/refused",
      scrapeOptions: { formats: [{ type: "json", prompt: "the price" }] },
    })
    expect(json.body).toMatchObject({ success: false, code: "LLM_NOT_CONFIGURED" })
    const actions = await call("POST", "/v2/batch/scrape", {
      urls: ["https://example.com/a"],
      actions: [{ type: "click", selector: "#more" }],
    })
    expect(actions.status).toBe(400)
    expect(actions.body.code).toBe("SCRAPE_ACTIONS_NOT_SUPPORTED")
    expect(actions.body.error).toContain("Actions need the browser engine")
    expect((await call("GET", "/v2/crawl/active")).body.crawls).not.toContainEqual(
      expect.objectContaining({ url: "https://example.com/refused" }),
    )
  })

  it("runs a crawl whose prompt gives no options with the explicit ones and a warning; ignores an empty prompt", async () => {
    const unreadable = await call("POST", "/v2/crawl", { url: "https://example.com", prompt: "hmm", limit: 4 })
    expect(unreadable.status).toBe(200)
    expect(unreadable.body.warning).toContain('"hmm" gave no crawler options')
    expect(unreadable.body.promptGeneratedOptions).toBeUndefined()
    const empty = await call("POST", "/v2/crawl", { url: "https://example.com", prompt: "  ", limit: 4 })
    expect(empty.status).toBe(200)
    expect(empty.body.warning).toBeUndefined()
  })

  it("reports a job's duration in seconds", async () => {
    const started = await call("POST", "/v2/batch/scrape", { urls: ["https://example.com/a"] })
    await new Promise((resolve) => setTimeout(resolve, 30))
    const status = await call("GET", `/v2/batch/scrape/${started.body.id}`)
    expect(typeof status.body.duration).toBe("number")
    expect(status.body.duration).toBeGreaterThanOrEqual(0.03)
    expect(status.body.duration).toBeLessThan(60)
  })
})

describe("hostile bodies", () => {
  const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
  const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

  it("refuses bodies nested thousands of levels deep with a 400, on every route", async () => {
    const bodies: Array<readonly [string, string]> = [
      ["/v2/scrape", `{"url":"https://example.com","redactPII":${deepObject(5000)}}`],
      ["/v2/crawl", `{"url":"https://example.com","allowSubdomains":${deepArray(5000)}}`],
      ["/v2/map", `{"url":"https://example.com","search":${deepArray(5000)}}`],
      ["/v2/batch/scrape", `{"urls":${deepArray(5000)}}`],
      ["/v2/crawl", `{"url":"https://example.com","scrapeOptions":${deepObject(65)}}`],
    ]
    for (const [path, body] of bodies) {
      const response = await web.handler(
        new Request(`http://api.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
      )
      expect(response.status, path).toBe(400)
      expect(await response.json(), path).toMatchObject({ success: false, code: "BAD_REQUEST" })
    }
    expect((await call("GET", "/")).status).toBe(200)
  })
})

describe("webhooks at submission", () => {
  it("refuses a webhook URL the guard refuses with a 400, before any job exists", async () => {
    for (const [path, body] of [
      ["/v2/crawl", { url: "https://example.com/hooked", webhook: "http://user:pass@127.0.0.1:9/hook" }],
      ["/v2/batch/scrape", { urls: ["https://example.com/a"], webhook: { url: "http://169.254.169.254/latest" } }],
    ] as const) {
      const answer = await call("POST", path, body)
      expect(answer.status, path).toBe(400)
      expect(answer.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      expect(answer.body.error).toMatch(/^The webhook URL is refused: Refusing to connect to/)
    }
    expect((await call("GET", "/v2/crawl/active")).body.crawls).not.toContainEqual(
      expect.objectContaining({ url: "https://example.com/hooked" }),
    )
  })
})
