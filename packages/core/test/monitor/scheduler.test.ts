/**
 * Scheduled checks under a controlled clock (Effect's TestClock decides what is due; pages are fetched for real from
 * a site on 127.0.0.1 the test edits): same stays same, cosmetic edits and an ignored timestamp stay same, a real edit
 * is changed with its diff, a 404 is removed, a crawl's new page is new and its unreachable page removed, missed runs
 * collapse into one check, a running check is not overlapped, and a paused monitor does not run.
 */
import { Effect, ManagedRuntime, TestClock, TestContext } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { sweepMonitors } from "../../src/Monitor/Scheduler.js"
import type { CheckView, MonitorView } from "../../src/Monitor.js"
import { Monitor } from "../../src/Monitor.js"
import { page, startEditableSite } from "../support/editableSite.js"

// The worker runs the checks' pages; the test's clock alone decides when checks start.
const runtime = ManagedRuntime.make(
  Engine.layer({ allowPrivateAddresses: true, worker: { pollMs: 20, monitorSweepMs: 3_600_000 } }),
)
afterAll(() => runtime.dispose())

// Far ahead of the real clock, which the worker's own first sweep (as it starts) reads: nothing is due for it.
const T0 = Date.parse("2099-11-26T10:05:00Z")
const MINUTE = 60_000

/** The effect with the test clock set to `time`. */
const at = <A, E>(time: number, effect: Effect.Effect<A, E, Monitor | Engine.EngineServices>) =>
  runtime.runPromise(Effect.zipRight(TestClock.setTime(time), effect).pipe(Effect.provide(TestContext.TestContext)))

const sweep = (time: number) => at(time, sweepMonitors)
const monitors = <A, E>(use: (service: Monitor["Type"]) => Effect.Effect<A, E>) =>
  runtime.runPromise(Effect.flatMap(Monitor, use))

const checksOf = (id: string) => monitors((service) => service.checks(id, null, { limit: 100 }))

/** Waits until the monitor has `count` checks and none runs; answers them newest first. */
const settled = async (id: string, count: number): Promise<ReadonlyArray<CheckView>> => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const checks = await checksOf(id)
    if (checks.length >= count && checks.every((check) => !["queued", "running"].includes(check.status))) return checks
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  throw new Error(`the monitor did not reach ${count} ended checks in time`)
}

const pagesOf = async (id: string, checkId: string) => {
  const { check } = await monitors((service) => service.check(id, checkId, null, { limit: 100 }))
  return Object.fromEntries(check.pages.map((entry) => [new URL(entry.url).pathname, entry]))
}

describe("scheduled checks", () => {
  it("compare each run with the last, ignoring cosmetic edits", async () => {
    const article = (paragraph: string, updated: string, spacing = " ") =>
      page("Article", `<p>Updated ${updated}</p><p>${paragraph}</p><p>Second${spacing}paragraph stays the same.</p>`)
    const site = await startEditableSite({
      "/article": article("The launch is on Monday.", "2026-11-26 10:00:01"),
      "/docs": page("Docs", "<p>Index.</p>", ["/docs/1", "/docs/2"]),
      "/docs/1": page("One", "<p>First doc.</p>"),
      "/docs/2": page("Two", "<p>Second doc.</p>"),
    })
    try {
      const created: MonitorView = await at(
        T0,
        Effect.flatMap(Monitor, (service) =>
          service.create(
            {
              name: "Site",
              schedule: { text: "every 30 minutes" },
              targets: [
                {
                  id: "article",
                  type: "scrape",
                  urls: [`${site.url}/article`],
                  scrapeOptions: {
                    formats: ["markdown", { type: "changeTracking", ignore: ["Updated \\d{4}-\\d{2}-\\d{2} [\\d:]+"] }],
                  },
                },
                { id: "docs", type: "crawl", url: `${site.url}/docs`, crawlOptions: { limit: 10, sitemap: "skip" } },
              ],
            },
            null,
          ),
        ),
      )
      expect(created.nextRunAt).toBe("2099-11-26T10:30:00.000Z")
      const id = created.id

      await sweep(T0 + 24 * MINUTE)
      expect(await checksOf(id)).toHaveLength(0)

      await sweep(Date.parse("2099-11-26T10:30:00Z"))
      const [first] = await settled(id, 1)
      expect(first).toMatchObject({
        status: "completed",
        trigger: "scheduled",
        scheduledFor: "2099-11-26T10:30:00.000Z",
      })
      expect(first?.summary).toEqual({ totalPages: 4, same: 0, changed: 0, new: 4, removed: 0, error: 0 })

      // Whitespace, a non-breaking space and the ignored timestamp change: nothing to report.
      site.pages.set("/article", article("The  launch is\u00a0on Monday. ", "2026-11-26 10:59:42", "\n  "))
      await sweep(Date.parse("2099-11-26T11:00:00Z"))
      const [second] = await settled(id, 2)
      expect(second?.summary).toMatchObject({ totalPages: 4, same: 4 })

      // A real edit, and a new page in the crawled part of the site.
      site.pages.set("/article", article("The launch is on Tuesday.", "2026-11-26 11:29:00"))
      site.pages.set("/docs", page("Docs", "<p>Index.</p>", ["/docs/1", "/docs/2", "/docs/3"]))
      site.pages.set("/docs/3", page("Three", "<p>Third doc.</p>"))
      await sweep(Date.parse("2099-11-26T11:30:00Z"))
      const [third] = await settled(id, 3)
      // The docs index changed too: it links the new page.
      expect(third?.summary).toMatchObject({ totalPages: 5, same: 2, changed: 2, new: 1 })
      const thirdPages = await pagesOf(id, third?.id ?? "")
      expect(thirdPages["/docs/3"]?.status).toBe("new")
      expect(thirdPages["/article"]?.status).toBe("changed")
      expect(thirdPages["/article"]?.diff?.text).toContain("-The launch is on Monday.\n+The launch is on Tuesday.")
      expect(thirdPages["/article"]?.diff?.text).not.toContain("Updated")

      // The article is gone; /docs/2 is no longer linked. Ten hours later: one catch-up check, not twenty.
      site.pages.delete("/article")
      site.pages.set("/docs", page("Docs", "<p>Index.</p>", ["/docs/1", "/docs/3"]))
      const late = Date.parse("2099-11-26T21:40:00Z")
      await sweep(late)
      await sweep(late)
      await sweep(late + MINUTE)
      const checks = await settled(id, 4)
      expect(checks).toHaveLength(4)
      const fourth = checks[0]
      expect(fourth?.summary).toMatchObject({ totalPages: 5, removed: 2, changed: 1, same: 2 })
      const fourthPages = await pagesOf(id, fourth?.id ?? "")
      expect(fourthPages["/article"]?.status).toBe("removed")
      expect(fourthPages["/docs/2"]?.status).toBe("removed")
      const after = await monitors((service) => service.get(id, null))
      expect(after.nextRunAt).toBe("2099-11-26T22:00:00.000Z")
      expect(after.lastCheckSummary).toMatchObject({ removed: 2 })

      // A check still running when the next is due is not overlapped: that run is recorded as skipped.
      site.delays.set("/docs/1", 1500)
      await sweep(Date.parse("2099-11-26T22:00:00Z"))
      await sweep(Date.parse("2099-11-26T22:30:00Z"))
      const withSkip = await settled(id, 6)
      expect(
        withSkip
          .map((check) => check.status)
          .slice(0, 2)
          .sort(),
      ).toEqual(["completed", "skipped_overlap"])
      site.delays.clear()

      // Paused: due times pass without a check.
      await monitors((service) => service.update(id, { status: "paused" }, null))
      await sweep(Date.parse("2099-11-27T09:00:00Z"))
      expect(await checksOf(id)).toHaveLength(6)
    } finally {
      await site.close()
    }
  }, 60_000)
})
