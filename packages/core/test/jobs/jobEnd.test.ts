/**
 * What follows the commit that ends a job (a monitor check's end, an extract's announcement, the page's usage) runs
 * whole, even though the worker stops the tasks of a job that is no longer running as soon as it sees it ended: a
 * store that is slow to answer the commit (a busy database) leaves the worker that moment.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { Monitor } from "../../src/Monitor.js"
import { page, startEditableSite } from "../support/editableSite.js"

/** The memory store, answering a commit that ends its job only after the worker has looked for ended jobs. */
const slowToAnswer = Layer.effect(
  JobStore,
  Effect.map(JobStore, (store) =>
    JobStore.of({
      ...store,
      completeTask: (task, outcome) =>
        Effect.tap(store.completeTask(task, outcome), (result) =>
          result.finished ? Effect.sleep("300 millis") : Effect.void,
        ),
    }),
  ),
).pipe(Layer.provide(MemoryJobStore.layer()))

const runtime = ManagedRuntime.make(
  // The worker looks for ended jobs every 40 ms; no sweep would end the check for it within the test.
  Engine.layer({ store: slowToAnswer, allowPrivateAddresses: true, worker: { pollMs: 20, monitorSweepMs: 3_600_000 } }),
)
afterAll(() => runtime.dispose())

describe("the end of a job", () => {
  it("is recorded by the task whose commit ended it, however late the store answers", async () => {
    const site = await startEditableSite({ "/page": page("Page", "<p>Text.</p>") })
    try {
      const checkOf = await runtime.runPromise(
        Effect.gen(function* () {
          const monitors = yield* Monitor
          const created = yield* monitors.create(
            { name: "Page", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${site.url}/page`] }] },
            null,
          )
          const check = yield* monitors.run(created.id, null)
          return () => Effect.map(monitors.checks(created.id, null, { limit: 10 }), (checks) => ({ check, checks }))
        }),
      )
      let status = "running"
      for (const deadline = Date.now() + 5000; status === "running" && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        const { check, checks } = await runtime.runPromise(checkOf())
        status = checks.find((entry) => entry.id === check.id)?.status ?? "missing"
      }
      expect(status).toBe("completed")
      expect(site.hits("/page")).toBe(1)
    } finally {
      await site.close()
    }
  })
})
