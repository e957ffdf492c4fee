/**
 * The server as deployed: `serve()` configured from the environment on an ephemeral loopback port, and the entry
 * points as processes — an API process without a worker (`main.ts`, behind `npm start` and `webdata-server`) and a
 * worker process (`workerMain.ts`, behind `webdata-worker`) sharing one SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../core/test/support/fixtureSite.js"
import { serve } from "../src/index.js"
import { startEntry } from "./support/entry.js"

const KEY = "server-test-key"
const dir = mkdtempSync(join(tmpdir(), "webdata-server-"))
let site: FixtureSite

beforeAll(async () => {
  site = await startFixtureSite()
  Object.assign(process.env, {
    WEBDATA_STORE: "memory:",
    WEBDATA_API_KEYS: KEY,
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
  })
})
afterAll(async () => {
  await site.close()
  rmSync(dir, { recursive: true, force: true })
})

const post = (url: string, body: unknown, key: string | null = KEY) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key !== null ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  })

describe("serve()", () => {
  it("listens on an ephemeral loopback port and answers the API with the environment's keys", async () => {
    const server = await serve({ port: 0 })
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(server.url).not.toMatch(/:0$/)
      const scraped = await post(`${server.url}/v2/scrape`, { url: `${site.url}/article`, formats: ["markdown"] })
      expect(scraped.status).toBe(200)
      const body = (await scraped.json()) as { data: { markdown: string } }
      expect(body.data.markdown).toContain("Tidal")
      const refused = await post(`${server.url}/v2/scrape`, { url: `${site.url}/article` }, null)
      expect(refused.status).toBe(401)
    } finally {
      await server.close()
    }
    await expect(fetch(`${server.url}/`)).rejects.toThrow()
  })

  it("refuses to start on a store it does not know, with one line", async () => {
    process.env.WEBDATA_STORE = "mongodb://app:hunter2@127.0.0.1/webdata"
    try {
      const error = (await serve({ port: 0 }).then(
        () => undefined,
        (failure: unknown) => failure,
      )) as Error | undefined
      expect(error?.message).toMatch(
        /^Unsupported WEBDATA_STORE "mongodb:\/\/app:\*\*\*@127\.0\.0\.1\/webdata": expected/,
      )
      expect(error?.message).not.toContain("\n")
    } finally {
      process.env.WEBDATA_STORE = "memory:"
    }
  })
})

describe("the entry points", () => {
  it("an API process without a worker and a worker process share the jobs of one store, and stop on SIGTERM", async () => {
    const store = `sqlite:${join(dir, "shared.db")}`
    const api = startEntry("main.ts", { PORT: "0", WEBDATA_STORE: store, WEBDATA_WORKER: "0" })
    const worker = startEntry("workerMain.ts", { WEBDATA_STORE: store })
    try {
      const [, url] = await api.waitFor(/webdata API listening on (http:\/\/127\.0\.0\.1:\d+)/)
      await worker.waitFor(/webdata worker running on sqlite:/)
      const started = await post(`${url}/v2/batch/scrape`, { urls: [`${site.url}/article`], formats: ["markdown"] })
      expect(started.status).toBe(200)
      const { id } = (await started.json()) as { id: string }
      let status: { status: string; data: Array<{ markdown: string }> } = { status: "scraping", data: [] }
      for (let attempt = 0; attempt < 200 && status.status === "scraping"; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        const answer = await fetch(`${url}/v2/batch/scrape/${id}`, { headers: { authorization: `Bearer ${KEY}` } })
        status = (await answer.json()) as typeof status
      }
      expect(status.status).toBe("completed")
      expect(status.data[0]?.markdown).toContain("Tidal")
      api.process.kill("SIGTERM")
      worker.process.kill("SIGTERM")
      expect(await api.exited).toBe(0)
      expect(await worker.exited).toBe(0)
    } finally {
      api.process.kill("SIGKILL")
      worker.process.kill("SIGKILL")
    }
  })

  it("a worker refuses the memory store, which no other process can see, with one line", async () => {
    const worker = startEntry("workerMain.ts", { WEBDATA_STORE: "memory:" })
    expect(await worker.exited).toBe(1)
    expect(worker.output().trim()).toBe(
      "webdata: cannot start the worker: WEBDATA_STORE=memory: is private to this process; a worker needs the API's durable store: sqlite:<path>, postgres://… or redis://…",
    )
  })
})
