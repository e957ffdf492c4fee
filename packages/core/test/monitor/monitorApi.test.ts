/** Monitors through the web handler: a fixture site the test edits, checks run on demand, pages compared. */
import { Effect, Layer } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { type EditableSite, page, startEditableSite } from "../support/editableSite.js"

// The store is the test's too: it purges what has expired.
const store = MemoryJobStore.make()
const web = makeWebHandler(
  Layer.merge(
    Engine.layer({ store: Layer.succeed(JobStore, store), allowPrivateAddresses: true, worker: { pollMs: 20 } }),
    ServerConfig.layer(),
  ),
)
afterAll(() => web.dispose())
const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const resource of open.splice(0)) await resource.close()
})

// biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely.
const call = async (method: string, path: string, body?: object): Promise<{ status: number; body: any }> => {
  const response = await web.handler(
    new Request(`http://api.test${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  )
  return { status: response.status, body: await response.json() }
}

const site = async (pages: Record<string, string>): Promise<EditableSite> => {
  const started = await startEditableSite(pages)
  open.push(started)
  return started
}

/** Runs the monitor's check and waits for its end; answers the check with its pages. */
const check = async (id: string) => {
  const run = await call("POST", `/v2/monitor/${id}/run`)
  expect(run.status, JSON.stringify(run.body)).toBe(200)
  const checkId = run.body.id as string
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const detail = await call("GET", `/v2/monitor/${id}/checks/${checkId}`)
    if (!["queued", "running"].includes(detail.body.data.status)) return detail.body.data
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("the check did not end in time")
}

describe("monitor API", () => {
  it("reports same, changed with the diff, and removed for a 404", async () => {
    const s = await site({ "/news": page("News", "<p>The first paragraph says hello.</p><p>Stays.</p>") })
    const created = await call("POST", "/v2/monitor", {
      name: "News",
      schedule: { text: "every 30 minutes" },
      targets: [{ type: "scrape", urls: [`${s.url}/news`] }],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.data.id
    expect(created.body.data).toMatchObject({
      status: "active",
      schedule: { cron: expect.any(String), timezone: "UTC" },
    })
    const first = await check(id)
    expect(first.status).toBe("completed")
    expect(first.pages.map((p: { status: string }) => p.status)).toEqual(["new"])
    const second = await check(id)
    expect(second.pages[0].status).toBe("same")
    s.pages.set("/news", page("News", "<p>The first paragraph says goodbye.</p><p>Stays.</p>"))
    const third = await check(id)
    expect(third.summary).toMatchObject({ totalPages: 1, changed: 1 })
    expect(third.pages[0].diff.text).toContain("-The first paragraph says hello.")
    expect(third.pages[0].diff.text).toContain("+The first paragraph says goodbye.")
    expect(third.pages[0].diff.json.files[0].chunks.length).toBeGreaterThan(0)
    s.pages.delete("/news")
    const fourth = await check(id)
    expect(fourth.pages[0].status).toBe("removed")
  })

  it("prunes checks older than retentionDays with the store's expired records", async () => {
    const s = await site({ "/": page("Home", "<p>Hi.</p>") })
    const created = await call("POST", "/v2/monitor", {
      name: "Short memory",
      schedule: { text: "daily" },
      retentionDays: 1,
      targets: [{ type: "scrape", urls: [`${s.url}/`] }],
    })
    const id = created.body.data.id
    const ended = await check(id)
    expect((await call("GET", `/v2/monitor/${id}/checks`)).body.data).toHaveLength(1)
    const purged = await Effect.runPromise(store.purgeExpired(Date.now() + 2 * 24 * 60 * 60_000))
    expect(purged.records).toBeGreaterThanOrEqual(2) // the check and the page's snapshot
    expect(purged.jobs).toBeGreaterThanOrEqual(1) // the check's job, with its pages
    expect((await call("GET", `/v2/monitor/${id}/checks`)).body.data).toHaveLength(0)
    expect((await call("GET", `/v2/monitor/${id}/checks/${ended.id}`)).status).toBe(404)
    expect((await call("GET", `/v2/monitor/${id}`)).body.data.lastCheckSummary).toMatchObject({ new: 1 })
  })

  it("answers Firecrawl's errors: unknown monitor, bad body, a check already running", async () => {
    const unknown = await call("GET", "/v2/monitor/01a21700-0000-7000-8000-000000000000")
    expect(unknown).toMatchObject({ status: 404, body: { success: false, code: "NOT_FOUND" } })
    const bad = await call("POST", "/v2/monitor", { name: "x", schedule: { text: "daily" }, targets: [] })
    expect(bad.status).toBe(400)
    const robots = await call("POST", "/v2/monitor", {
      name: "x",
      schedule: { text: "daily" },
      targets: [{ type: "crawl", url: "https://example.com", crawlOptions: { ignoreRobotsTxt: true } }],
    })
    expect(robots).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } })
    const huge = await call("POST", "/v2/monitor", {
      name: "x",
      schedule: { text: "daily" },
      targets: Array.from({ length: 2 }, () => ({
        type: "crawl",
        url: "https://example.com",
        crawlOptions: { limit: 6000 },
      })),
    })
    expect(huge.status).toBe(400)
    expect(huge.body.error).toMatch(/12000 pages per check/)
    const empty = await call("PATCH", "/v2/monitor/01a21700-0000-7000-8000-000000000000", {})
    expect(empty.status).toBe(400)
    const s = await site({ "/slow": page("Slow", "<p>Slow.</p>") })
    s.delays.set("/slow", 500)
    const created = await call("POST", "/v2/monitor", {
      name: "Slow",
      schedule: { text: "daily" },
      targets: [{ type: "scrape", urls: [`${s.url}/slow`] }],
    })
    const id = created.body.data.id
    expect((await call("POST", `/v2/monitor/${id}/run`)).status).toBe(200)
    const again = await call("POST", `/v2/monitor/${id}/run`)
    expect(again).toMatchObject({ status: 409, body: { success: false, code: "MONITOR_CHECK_RUNNING" } })
    const wrongStatus = await call("GET", `/v2/monitor/${id}/checks?status=sideways`)
    expect(wrongStatus.status).toBe(400)
    expect((await call("DELETE", `/v2/monitor/${id}`)).body).toEqual({ success: true })
    expect((await call("GET", `/v2/monitor/${id}`)).status).toBe(404)
  })
})
