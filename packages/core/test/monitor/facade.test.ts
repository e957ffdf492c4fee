/** Monitors through the Promise facade: a fixture site the test edits, checks run on demand and awaited. */
import { afterAll, describe, expect, it } from "vitest"
import { Webdata } from "../../src/Webdata.js"
import { page, startEditableSite } from "../support/editableSite.js"
import { failure } from "../support/webdataFailure.js"

const webdata = new Webdata({ allowPrivateAddresses: true })
const site = await startEditableSite({ "/news": page("News", "<p>The first paragraph says hello.</p><p>Stays.</p>") })
afterAll(async () => {
  await webdata.close()
  await site.close()
})

const wait = { pollMs: 50, timeoutMs: 30_000 }

describe("webdata.monitors", () => {
  it("creates a monitor, runs its checks and reports what changed", async () => {
    const created = await webdata.monitors.create({
      name: "News",
      schedule: { text: "every 30 minutes", timezone: "Europe/Paris" },
      targets: [{ type: "scrape", urls: [`${site.url}/news`] }],
    })
    expect(created).toMatchObject({ name: "News", status: "active", schedule: { timezone: "Europe/Paris" } })
    expect(created.nextRunAt).not.toBeNull()

    const first = await webdata.monitors.runAndWait(created.id, wait)
    expect(first).toMatchObject({ monitorId: created.id, status: "completed", trigger: "manual" })
    expect(first.pages.map((found) => found.status)).toEqual(["new"])
    expect(first.next).toBeUndefined()

    site.pages.set("/news", page("News", "<p>The first paragraph says goodbye.</p><p>Stays.</p>"))
    const second = await webdata.monitors.runAndWait(created.id, wait)
    expect(second.summary).toMatchObject({ totalPages: 1, changed: 1 })
    expect(second.pages[0]?.status).toBe("changed")
    expect(second.pages[0]?.diff?.text).toContain("+The first paragraph says goodbye.")

    const checks = await webdata.monitors.checks(created.id)
    expect(checks.map((check) => check.id).sort()).toEqual([first.id, second.id].sort())
    expect(await webdata.monitors.checks(created.id, { status: "failed" })).toEqual([])
    const read = await webdata.monitors.check(created.id, second.id, { status: "changed", limit: 1 })
    expect(read.pages.map((found) => found.url)).toEqual([`${site.url}/news`])
    expect((await webdata.monitors.get(created.id)).lastCheckSummary).toMatchObject({ changed: 1 })
  })

  it("lists, pauses, resumes and deletes", async () => {
    const created = await webdata.monitors.create({
      name: "Paused soon",
      schedule: { cron: "0 9 * * *" },
      targets: [{ type: "scrape", urls: [`${site.url}/news`] }],
    })
    expect((await webdata.monitors.list({ limit: 100 })).map((monitor) => monitor.id)).toContain(created.id)

    const paused = await webdata.monitors.update(created.id, { status: "paused" })
    expect(paused).toMatchObject({ status: "paused", nextRunAt: null })
    const resumed = await webdata.monitors.update(created.id, { status: "active", name: "Resumed" })
    expect(resumed).toMatchObject({ status: "active", name: "Resumed" })
    expect(resumed.nextRunAt).not.toBeNull()
    expect(await webdata.monitors.get(created.id)).toMatchObject({ name: "Resumed" })

    await webdata.monitors.delete(created.id)
    expect(await failure(webdata.monitors.get(created.id))).toMatchObject({ code: "NOT_FOUND", status: 404 })
    expect((await webdata.monitors.list({ limit: 100 })).map((monitor) => monitor.id)).not.toContain(created.id)
  })

  it("stops waiting after timeoutMs, and the check goes on", async () => {
    const created = await webdata.monitors.create({
      name: "Slow",
      schedule: { text: "hourly" },
      targets: [{ type: "scrape", urls: [`${site.url}/news`] }],
    })
    const late = await failure(webdata.monitors.runAndWait(created.id, { timeoutMs: 1 }))
    expect(late.code).toBe("MONITOR_CHECK_TIMEOUT")
    const [check] = await webdata.monitors.checks(created.id)
    expect(check).toBeDefined()
    await webdata.monitors.delete(created.id)
  })

  it("refuses a bad schedule and an unknown option with BAD_REQUEST", async () => {
    const target = { type: "scrape" as const, urls: [`${site.url}/news`] }
    const schedule = await failure(
      webdata.monitors.create({ name: "Never", schedule: { text: "every blue moon" }, targets: [target] }),
    )
    expect(schedule).toMatchObject({ code: "BAD_REQUEST", status: 400 })
    expect(schedule.message).toContain('Unrecognized schedule text "every blue moon"')
    const unknown = await failure(
      webdata.monitors.create({
        name: "Typo",
        schedule: { text: "hourly" },
        targets: [target],
        ...({ retentionDay: 3 } as object),
      }),
    )
    expect(unknown).toMatchObject({ code: "BAD_REQUEST", message: 'Unrecognized option: "retentionDay"' })
  })
})
