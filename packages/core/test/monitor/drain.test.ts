/**
 * Monitors on a host without a long-running worker (AWS Lambda's schedule and worker functions): the sweep starts the
 * due check, a bounded run reads its pages, and the check's end and webhook are sent before the run returns.
 */
import { Effect, ManagedRuntime, TestClock, TestContext } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { Drain } from "../../src/Jobs/Drain.js"
import { Monitor } from "../../src/Monitor.js"
import { page, startEditableSite } from "../support/editableSite.js"
import { startWebhookReceiver } from "../support/webhookReceiver.js"

const runtime = ManagedRuntime.make(Engine.layer({ allowPrivateAddresses: true, worker: false, deliverWebhooks: true }))
afterAll(() => runtime.dispose())

describe("monitors on bounded runs", () => {
  it("the sweep starts the due check; a run ends it and sends its webhook", async () => {
    const site = await startEditableSite({ "/": page("Home", "<p>Hello.</p>") })
    const receiver = await startWebhookReceiver()
    try {
      // Made two hours ago, every hour: due now.
      const created = await runtime.runPromise(
        Effect.zipRight(
          TestClock.setTime(Date.now() - 2 * 60 * 60_000),
          Effect.flatMap(Monitor, (service) =>
            service.create(
              {
                name: "Home",
                schedule: { text: "hourly" },
                targets: [{ type: "scrape", urls: [`${site.url}/`] }],
                webhook: { url: receiver.url, events: ["monitor.check.completed"] },
              },
              null,
            ),
          ),
        ).pipe(Effect.provide(TestContext.TestContext)),
      )
      const pending = await runtime.runPromise(Effect.flatMap(Drain, (drain) => drain.sweep(Date.now() + 10_000)))
      expect(pending.due).toBe(1)
      const report = await runtime.runPromise(
        Effect.flatMap(Drain, (drain) => drain.run({ deadline: Date.now() + 20_000 })),
      )
      expect(report).toMatchObject({ started: 1, deliveriesSent: true, pending: { due: 0 } })
      const [check] = await runtime.runPromise(Effect.flatMap(Monitor, (service) => service.checks(created.id, null)))
      expect(check).toMatchObject({ status: "completed", trigger: "scheduled", summary: { new: 1 } })
      expect(receiver.events).toMatchObject([{ type: "monitor.check.completed", id: check?.id }])
      const after = await runtime.runPromise(Effect.flatMap(Monitor, (service) => service.get(created.id, null)))
      expect(Date.parse(after.nextRunAt ?? "")).toBeGreaterThan(Date.now())
    } finally {
      await site.close()
      await receiver.close()
    }
  })
})
