/**
 * The official Firecrawl SDK's monitor methods against `serve()`: create, list, get, update, run, checks and a check's
 * pages over a site on 127.0.0.1 the test edits, with the monitor's webhooks signed and verified.
 */
import { createHmac } from "node:crypto"
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EditableSite, page, startEditableSite } from "../../core/test/support/editableSite.js"
import { startWebhookReceiver, type WebhookReceiver } from "../../core/test/support/webhookReceiver.js"

const SECRET = "monitor-secret"

let site: EditableSite
let api: RunningServer
let client: Firecrawl
let receiver: WebhookReceiver

beforeAll(async () => {
  site = await startEditableSite({
    "/pricing": page("Pricing", "<p>Basic costs 10 dollars.</p><p>Pro costs 20 dollars.</p>"),
    "/blog": page("Blog", "<p>First post.</p>"),
  })
  // The receiver is down for its first two deliveries: they are retried.
  receiver = await startWebhookReceiver((index) => (index < 2 ? 503 : 200))
  api = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true, webhookSecret: SECRET, worker: { pollMs: 20 } }),
    serverConfig: ServerConfig.layer({ apiKeys: ["fc-test"] }),
  })
  client = new Firecrawl({ apiKey: "fc-test", apiUrl: api.url })
})

afterAll(async () => {
  await api?.close()
  await site?.close()
  await receiver?.close()
})

/** Runs the monitor and polls its check until it has ended. */
const runToEnd = async (monitorId: string) => {
  const started = await client.runMonitor(monitorId)
  expect(started).toMatchObject({ monitorId, trigger: "manual" })
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const detail = await client.getMonitorCheck(monitorId, started.id)
    if (!["queued", "running"].includes(detail.status)) return detail
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("the check did not end in time")
}

describe("the SDK's monitor methods", () => {
  it("create, run twice, see the change, list checks, pause, delete", async () => {
    const monitor = await client.createMonitor({
      name: "Prices",
      schedule: { text: "daily at 9am", timezone: "Europe/Paris" },
      targets: [{ type: "scrape", urls: [`${site.url}/pricing`, `${site.url}/blog`] }],
      webhook: { url: `${receiver.url}/hook`, metadata: { team: "pricing" } },
      judgeEnabled: false,
    })
    expect(monitor).toMatchObject({
      name: "Prices",
      status: "active",
      schedule: { cron: "0 9 * * *", timezone: "Europe/Paris" },
      judgeEnabled: false,
    })
    expect(Date.parse(monitor.nextRunAt ?? "")).toBeGreaterThan(Date.now())
    expect((await client.listMonitors()).map((entry) => entry.id)).toContain(monitor.id)

    const first = await runToEnd(monitor.id)
    expect(first.status).toBe("completed")
    expect(first.summary).toMatchObject({ totalPages: 2, new: 2 })

    site.pages.set("/pricing", page("Pricing", "<p>Basic costs 12 dollars.</p><p>Pro costs 20 dollars.</p>"))
    const second = await runToEnd(monitor.id)
    expect(second.summary).toMatchObject({ totalPages: 2, same: 1, changed: 1 })
    const changed = second.pages.find((entry) => entry.status === "changed")
    expect(changed?.url).toBe(`${site.url}/pricing`)
    expect(changed?.diff?.text).toMatch(/-Basic costs 10 dollars\.\n\+Basic costs 12 dollars\./)
    expect(changed?.previousScrapeId).toEqual(expect.any(String))

    const paged = await client.getMonitorCheck(monitor.id, second.id, { limit: 1, autoPaginate: false })
    expect(paged.pages).toHaveLength(1)
    expect(paged.next).toContain(`/v2/monitor/${monitor.id}/checks/${second.id}?skip=1`)
    const all = await client.getMonitorCheck(monitor.id, second.id, { limit: 1 })
    expect(all.pages).toHaveLength(2)

    const checks = await client.listMonitorChecks(monitor.id)
    expect(checks.map((check) => check.id)).toEqual([second.id, first.id])

    const paused = await client.updateMonitor(monitor.id, { status: "paused" })
    expect(paused).toMatchObject({ status: "paused", nextRunAt: null })
    expect((await client.getMonitor(monitor.id)).lastCheckSummary).toMatchObject({ changed: 1 })

    // Each check: a monitor.page per page, then monitor.check.completed; all signed, the first two retried.
    const events = await receiver.waitFor(6, 20_000)
    expect(receiver.requests.slice(0, 2).map((request) => request.status)).toEqual([503, 503])
    for (const request of receiver.requests)
      expect(request.headers["x-firecrawl-signature"]).toBe(
        `sha256=${createHmac("sha256", SECRET).update(request.raw).digest("hex")}`,
      )
    // A check's events arrive in order; two checks' deliveries are independent (the first check's were retried).
    const ofCheck = (id: string) => events.filter((event) => event.id === id)
    for (const check of [first, second])
      expect(ofCheck(check.id).map((event) => event.type)).toEqual([
        "monitor.page",
        "monitor.page",
        "monitor.check.completed",
      ])
    expect(ofCheck(second.id)[2]).toMatchObject({
      success: true,
      metadata: { team: "pricing" },
      data: [{ monitorId: monitor.id, checkId: second.id, status: "completed", summary: { changed: 1, same: 1 } }],
    })
    const changedEvent = ofCheck(second.id).find((event) => event.data[0].status === "changed")
    expect(changedEvent?.data[0]).toMatchObject({ url: `${site.url}/pricing`, isMeaningful: null })

    expect(await client.deleteMonitor(monitor.id)).toBe(true)
    await expect(client.getMonitor(monitor.id)).rejects.toThrow(/not found/i)
  })

  it("refuses a schedule below the minimum interval and an unknown text schedule", async () => {
    await expect(
      client.createMonitor({
        name: "Too often",
        schedule: { cron: "* * * * *" },
        targets: [{ type: "scrape", urls: [`${site.url}/blog`] }],
      }),
    ).rejects.toThrow(/minimum interval is 5 minutes/)
    await expect(
      client.createMonitor({
        name: "Odd",
        schedule: { text: "whenever it rains" },
        targets: [{ type: "scrape", urls: [`${site.url}/blog`] }],
      }),
    ).rejects.toThrow(/schedule/i)
  })
})
