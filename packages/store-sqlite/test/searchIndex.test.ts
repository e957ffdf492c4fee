/**
 * The local search index on SQLite, end to end: a key crawls a site on loopback into a database file, the server
 * stops, a new one opens the same file, and search finds the crawled pages, best first, for that key only.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, makeWebHandler, ServerConfig } from "@webdata/core"
import { Layer } from "effect"
import { afterAll, expect, it } from "vitest"
import { startCrawlSite } from "../../core/test/support/crawlSite.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-search-index-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Answer {
  readonly success: boolean
  readonly id?: string
  readonly status?: string
  readonly data?: { readonly web?: ReadonlyArray<{ readonly url: string; readonly title?: string }> }
}

/** A server over the database file, with two keys. */
const server = (filename: string, worker: boolean) => {
  const handler = makeWebHandler(
    Layer.merge(
      Engine.layer({
        store: SqliteJobStore.layer({ filename }),
        allowPrivateAddresses: true,
        worker: worker ? { concurrency: 4 } : false,
      }),
      ServerConfig.layer({ apiKeys: ["key-a", "key-b"] }),
    ),
  )
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await handler.handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    )
    return (await response.json()) as Answer
  }
  const search = async (key: string, query: string) => {
    const answer = await call(key, "POST", "/v2/search", { query, limit: 10 })
    expect(answer.success).toBe(true)
    return (answer.data?.web ?? []).map((hit) => new URL(hit.url).pathname)
  }
  return { call, search, close: () => handler.dispose() }
}

it("finds a crawl's pages after a restart, the best first, for the key that crawled only", async () => {
  const site = await startCrawlSite({
    pages: {
      "/": { title: "Energy notes", links: ["/tides", "/wind", "/solar", "/about"] },
      "/tides": { title: "Tidal energy and the tides", links: ["/tides/history"] },
      "/tides/history": { title: "A history of tide mills" },
      "/wind": { title: "Wind turbines offshore" },
      "/solar": { title: "Solar panels on roofs" },
      "/about": { title: "About this site" },
    },
  })
  const filename = join(dir, "search.db")
  try {
    const first = server(filename, true)
    const started = await first.call("key-a", "POST", "/v2/crawl", { url: site.url, sitemap: "skip", limit: 20 })
    expect(started.success).toBe(true)
    for (let status = ""; status !== "completed"; ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      status = (await first.call("key-a", "GET", `/v2/crawl/${started.id}`)).status ?? ""
      expect(status).not.toMatch(/failed|cancelled/)
    }
    await first.close()

    const second = server(filename, false)
    try {
      expect(await second.search("key-a", "tidal")).toEqual(["/tides"])
      // The title counts most, then the URL and the text.
      expect(await second.search("key-a", "tides")).toEqual(["/tides", "/tides/history"])
      expect((await second.search("key-a", "wind turbines"))[0]).toBe("/wind")
      expect((await second.search("key-a", "solar roof"))[0]).toBe("/solar")
      // Pages with every word first; then those with some (the page that links "/tides/history").
      expect(await second.search("key-a", "history mills")).toEqual(["/tides/history", "/tides"])
      expect(await second.search("key-b", "tides")).toEqual([])
      expect(await second.search("key-b", "solar")).toEqual([])
    } finally {
      await second.close()
    }
  } finally {
    await site.close()
  }
}, 30_000)
