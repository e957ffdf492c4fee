/**
 * A monitor's webhooks survive a restart: the receiver is down while the first process runs the check, the process
 * stops, and the next process on the same SQLite file delivers them, in order.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, Monitor } from "@webdata/core"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { page, startEditableSite } from "../../core/test/support/editableSite.js"
import { startWebhookReceiver } from "../../core/test/support/webhookReceiver.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-monitor-webhooks-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const engine = (filename: string) =>
  ManagedRuntime.make(
    Engine.layer({ store: SqliteJobStore.layer({ filename }), allowPrivateAddresses: true, worker: { pollMs: 20 } }),
  )

describe("monitor webhooks across a restart", () => {
  it("are delivered by the next process when the receiver was down", async () => {
    const filename = join(dir, "webhooks.db")
    const site = await startEditableSite({ "/": page("Home", "<p>Hello.</p>") })
    let up = false
    const receiver = await startWebhookReceiver(() => (up ? 200 : 503))
    try {
      const first = engine(filename)
      const monitors = <A, E>(use: (service: Monitor.Monitor["Type"]) => Effect.Effect<A, E>) =>
        first.runPromise(Effect.flatMap(Monitor.Monitor, use))
      const created = await monitors((service) =>
        service.create(
          {
            name: "Home",
            schedule: { text: "daily" },
            targets: [{ type: "scrape", urls: [`${site.url}/`] }],
            webhook: { url: receiver.url },
          },
          null,
        ),
      )
      const check = await monitors((service) => service.run(created.id, null))
      for (const deadline = Date.now() + 15_000; receiver.requests.length === 0; ) {
        if (Date.now() > deadline) throw new Error("no delivery was attempted")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await first.dispose()
      expect(receiver.events).toHaveLength(0)

      up = true
      const second = engine(filename)
      try {
        await second.runPromise(Effect.void)
        const events = await receiver.waitFor(2, 30_000)
        expect(events.map((event) => [event.type, event.id])).toEqual([
          ["monitor.page", check.id],
          ["monitor.check.completed", check.id],
        ])
        expect(events[1]?.data[0]).toMatchObject({ monitorId: created.id, status: "completed", summary: { new: 1 } })
      } finally {
        await second.dispose()
      }
    } finally {
      await site.close()
      await receiver.close()
    }
  }, 60_000)
})
