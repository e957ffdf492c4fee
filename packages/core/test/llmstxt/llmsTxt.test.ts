/**
 * llms.txt generation end to end: `POST /v1/llmstxt` and its status over real HTTP driven by the official SDK's v1
 * client, the library's `llmsTxt()`, and descriptions by a (fake) model — against a small site on 127.0.0.1.
 */
import { createServer } from "node:http"
import Firecrawl, { type FirecrawlAppV1 } from "@mendable/firecrawl-js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveApi } from "../support/apiOnLoopback.js"
import { useLlmKit } from "../support/llmKit.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

const KEY = "llmstxt-key"
const OTHER_KEY = "llmstxt-other-key"

interface Page {
  readonly title?: string
  readonly description?: string
  readonly body: string
  readonly links?: ReadonlyArray<string>
}

const html = (page: Page) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">${page.title !== undefined ? `<title>${page.title}</title>` : ""}` +
  `${page.description !== undefined ? `<meta name="description" content="${page.description}">` : ""}</head>` +
  `<body><nav><a href="/">Home</a></nav><main><article>${page.body}` +
  `<ul>${(page.links ?? []).map((link) => `<li><a href="${link}">${link}</a></li>`).join("")}</ul>` +
  "</article></main></body></html>"

const numbered = Array.from({ length: 12 }, (_, index) => `/many/n${String(index).padStart(2, "0")}`)

const pages: Record<string, Page> = {
  "/": {
    title: "Acme Docs",
    description: "Acme builds rockets for hobbyists.",
    body: "<h1>Acme</h1><p>Welcome to Acme.</p>",
    links: ["/about", "/docs/intro", "/docs/install"],
  },
  "/about": {
    title: "About Acme",
    body: "<h1>About</h1><p>We are a small team of engineers. Founded in 2020 in a garage.</p>",
  },
  "/docs/intro": { title: "Introduction", description: "Start here.", body: "<h1>Intro</h1><p>Read this first.</p>" },
  "/docs/install": {
    title: "Install [beta]",
    body: "<h1>Install</h1><p>Run the installer! It takes a minute.</p>",
  },
  // A second site on the same server: many pages, to bound the file.
  "/many": { title: "Many", body: "<p>Index of notes.</p>", links: numbered },
  ...Object.fromEntries(
    numbered.map((path) => [path, { title: `Note ${path.slice(-2)}`, body: `<p>Note ${path}.</p>` }]),
  ),
}

let site: Listening
const hits = new Map<string, number>()
let api: Listening
let v1: FirecrawlAppV1

beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://site").pathname
      hits.set(path, (hits.get(path) ?? 0) + 1)
      if (path === "/start") {
        response.writeHead(301, { location: "/" }).end()
        return
      }
      const page = pages[path]
      if (page === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found")
        return
      }
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html(page))
    }),
  )
  api = await serveApi([KEY, OTHER_KEY])
  v1 = new Firecrawl({ apiKey: KEY, apiUrl: api.url }).v1
})
afterAll(async () => {
  await api?.close()
  await site?.close()
})

const call = async (method: string, path: string, body?: unknown, key = KEY) => {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely in assertions.
  return { status: response.status, body: (await response.json()) as any }
}

/** Polls a generation's status until it is no longer processing. */
const settled = async (id: string, key = KEY) => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const answer = await call("GET", `/v1/llmstxt/${id}`, undefined, key)
    if (answer.body.status !== "processing" || Date.now() > deadline) return answer
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const linkLines = (text: string) => text.split("\n").filter((line) => line.startsWith("- ["))

describe("POST /v1/llmstxt through the SDK's v1 client", () => {
  it("writes the llmstxt.org file of the site and, with showFullText, each page's markdown", async () => {
    const answer = await v1.generateLLMsText(`${site.url}/`, { maxUrls: 4, showFullText: true })
    if (!answer.success || !("data" in answer)) throw new Error(`generation failed: ${JSON.stringify(answer)}`)
    expect(answer.status).toBe("completed")
    const text = answer.data.llmstxt
    expect(text.startsWith("# Acme Docs\n\n> Acme builds rockets for hobbyists.\n\n## Pages\n\n")).toBe(true)
    expect(linkLines(text)).toEqual([
      `- [Acme Docs](${site.url}/): Acme builds rockets for hobbyists.`,
      `- [About Acme](${site.url}/about): We are a small team of engineers.`,
      `- [Install \\[beta\\]](${site.url}/docs/install): Run the installer!`,
      `- [Introduction](${site.url}/docs/intro): Start here.`,
    ])
    expect(text).toContain("\n## Docs\n\n")
    expect(text.indexOf("## Docs")).toBeGreaterThan(text.indexOf(`(${site.url}/about)`))
    const full = answer.data.llmsfulltxt ?? ""
    expect(full).toContain(`## About Acme\n\nSource: ${site.url}/about\n`)
    expect(full).toContain("Founded in 2020 in a garage.")
    expect(full).toContain("Run the installer! It takes a minute.")
  })

  it("lists maxUrls pages at most (10 by default), each once, and charges a credit per page", async () => {
    const started = await call("POST", "/v1/llmstxt", { url: `${site.url}/many` })
    expect(started.status).toBe(200)
    expect(started.body).toEqual({ success: true, id: expect.any(String) })
    const done = await settled(started.body.id)
    expect(done.body).toMatchObject({ success: true, status: "completed", creditsUsed: 10 })
    expect(done.body.data.llmsfulltxt).toBeUndefined()
    const lines = linkLines(done.body.data.llmstxt)
    expect(lines).toHaveLength(10)
    expect(new Set(lines).size).toBe(10)
    expect(lines[0]).toBe(`- [Many](${site.url}/many): Index of notes.`)
    expect(new Date(done.body.expiresAt).getTime()).toBeGreaterThan(Date.now())

    const two = await settled((await call("POST", "/v1/llmstxt", { url: `${site.url}/many`, maxUrls: 2 })).body.id)
    expect(linkLines(two.body.data.llmstxt)).toHaveLength(2)
  })

  it("reuses pages read in the last two days unless cache is false", async () => {
    const first = await settled((await call("POST", "/v1/llmstxt", { url: `${site.url}/about`, maxUrls: 1 })).body.id)
    expect(first.body.status).toBe("completed")
    const read = hits.get("/about") ?? 0
    await settled((await call("POST", "/v1/llmstxt", { url: `${site.url}/about`, maxUrls: 1 })).body.id)
    // The map fetches the start page for its links; the page itself comes from the cache.
    const cached = hits.get("/about") ?? 0
    const fresh = await settled(
      (await call("POST", "/v1/llmstxt", { url: `${site.url}/about`, maxUrls: 1, cache: false })).body.id,
    )
    expect(fresh.body.status).toBe("completed")
    expect((hits.get("/about") ?? 0) - cached).toBeGreaterThan(cached - read)
  })

  it("knows the start page by the URL asked for when it redirects, and lists a page once", async () => {
    const started = await call("POST", "/v1/llmstxt", { url: `${site.url}/start`, maxUrls: 2 })
    const done = await settled(started.body.id)
    expect(done.body.status).toBe("completed")
    const text: string = done.body.data.llmstxt
    expect(text.startsWith("# Acme Docs\n\n> Acme builds rockets for hobbyists.\n")).toBe(true)
    expect(linkLines(text)[0]).toBe(`- [Acme Docs](${site.url}/): Acme builds rockets for hobbyists.`)
    expect(new Set(linkLines(text)).size).toBe(linkLines(text).length)
  })

  it("answers failed, with the reason, when no page of the site can be read", async () => {
    const started = await call("POST", "/v1/llmstxt", { url: `${site.url}/missing`, maxUrls: 2 })
    const done = await settled(started.body.id)
    expect(done.body.success).toBe(false)
    expect(done.body.status).toBe("failed")
    expect(done.body.error).toContain(`${site.url}/missing`)
    expect(done.body.data).toEqual({ llmstxt: "" })
  })

  it("refuses bad bodies with 400, and another key's or an unknown id with 404", async () => {
    for (const body of [
      {},
      { url: "not a url" },
      { url: `${site.url}/`, maxUrls: 0 },
      { url: `${site.url}/`, maxUrls: 101 },
      { url: `${site.url}/`, showFullText: "yes" },
      { url: `${site.url}/`, unknown: true },
    ]) {
      const answer = await call("POST", "/v1/llmstxt", body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body.success).toBe(false)
      expect(typeof answer.body.error).toBe("string")
    }
    const mine = await call("POST", "/v1/llmstxt", { url: `${site.url}/about`, maxUrls: 1, origin: "js-sdk@1.29.3" })
    expect(mine.status).toBe(200)
    expect((await call("GET", `/v1/llmstxt/${mine.body.id}`, undefined, OTHER_KEY)).status).toBe(404)
    expect((await call("GET", "/v1/llmstxt/0190f3a0-0000-7000-8000-000000000000")).status).toBe(404)
    expect((await call("GET", "/v1/llmstxt/not-an-id")).status).toBe(400)
    await settled(mine.body.id)
  })
})

describe("llms.txt from the library", () => {
  const kit = useLlmKit()

  it("webdata.llmsTxt() generates the file without a model, from meta descriptions and first sentences", async () => {
    const webdata = kit.engine()
    const answer = await webdata.llmsTxt(`${site.url}/`, { maxUrls: 2 })
    expect(answer.status).toBe("completed")
    expect(linkLines(answer.data.llmstxt)).toEqual([
      `- [Acme Docs](${site.url}/): Acme builds rockets for hobbyists.`,
      `- [About Acme](${site.url}/about): We are a small team of engineers.`,
    ])
    expect(answer.tokensUsed).toBe(0)
  })

  it("describes each page with the configured model", async () => {
    const model = await kit.model((request) => ({
      json: { description: `Model summary of ${/Page: (\S+)/.exec(request.text)?.[1] ?? "a page"}` },
    }))
    const webdata = kit.engine(kit.chat(model))
    const answer = await webdata.llmsTxt(`${site.url}/`, { maxUrls: 2, cache: false })
    expect(answer.status).toBe("completed")
    const lines = linkLines(answer.data.llmstxt)
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).toMatch(/\): Model summary of /)
    expect(model.requests.length).toBe(2)
    expect(model.requests[0]?.text).toContain("one sentence")
    expect(answer.tokensUsed).toBeGreaterThan(0)
  })
})
