/**
 * Scheduled checks with two workers on one store: every due check starts once and reads each page once, whichever
 * worker sweeps and however often; a claim whose worker died before making the check's job is finished by the next
 * sweep under the same check id. Run by each store's tests with two connections of its own.
 */
import { Effect, identity, Layer, ManagedRuntime, Option, TestClock, TestContext } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import { JobStore, type StoreError } from "../../src/Jobs/JobStore.js"
import { CLAIM_LEASE_MS, getMonitor, putMonitor, updateMonitor } from "../../src/Monitor/MonitorStore.js"
import { MONITOR } from "../../src/Monitor/Records.js"
import { sweepMonitors } from "../../src/Monitor/Scheduler.js"
import { Monitor } from "../../src/Monitor.js"
import { page, startEditableSite } from "../support/editableSite.js"

const HALF_HOUR = 30 * 60_000
// Far ahead of the real clock, which the workers' own first sweep (as they start) reads: nothing is due for it.
const T0 = Date.parse("2099-11-26T10:05:00Z")
const FIRST_RUN = Date.parse("2099-11-26T10:30:00Z")

type Runtime = ManagedRuntime.ManagedRuntime<Engine.EngineServices, never>

/** `effect` with the clock at `time`. */
const at = <A, E>(runtime: Runtime, time: number, effect: Effect.Effect<A, E, Engine.EngineServices>) =>
  runtime.runPromise(Effect.zipRight(TestClock.setTime(time), effect).pipe(Effect.provide(TestContext.TestContext)))

/** A monitor of one page `url`, made at `T0`. */
const monitorOf = (runtime: Runtime, name: string, schedule: string, url: string) =>
  at(
    runtime,
    T0,
    Effect.flatMap(Monitor, (service) =>
      service.create({ name, schedule: { text: schedule }, targets: [{ type: "scrape", urls: [url] }] }, null),
    ),
  )

const checksOf = (runtime: Runtime, id: string) =>
  runtime.runPromise(Effect.flatMap(Monitor, (service) => service.checks(id, null, { limit: 100 })))

/** Waits until each monitor has `count` ended checks (more would fail the caller's count). */
const settled = async (runtime: Runtime, ids: ReadonlyArray<string>, count: number) => {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const all = await Promise.all(ids.map((id) => checksOf(runtime, id)))
    if (all.every((checks) => checks.length >= count && checks.every((check) => check.status !== "running"))) return all
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the monitors did not reach ${count} ended checks in time`)
}

/**
 * The store of a worker whose every sweep is overtaken: each due monitor it reads is written again (as the end of its
 * last check is, by another worker) before the sweep claims it.
 */
const overtaken = (store: Layer.Layer<JobStore, StoreError>): Layer.Layer<JobStore, StoreError> =>
  Layer.effect(
    JobStore,
    Effect.map(JobStore, (inner) => ({
      ...inner,
      dueRecords: (kind: string, now: number, max: number) =>
        Effect.tap(inner.dueRecords(kind, now, max), (records) =>
          kind === MONITOR
            ? Effect.forEach(records, (record) =>
                updateMonitor(inner, record.id, (current) => Option.some(current.state)),
              )
            : Effect.void,
        ),
    })),
  ).pipe(Layer.provide(store))

/**
 * `connect` opens a connection to one shared store (each call a new connection: a second worker); `cleanup` runs
 * after the suite.
 */
export const runMonitorClaims = (
  name: string,
  connect: () => Layer.Layer<JobStore, StoreError>,
  cleanup: () => Promise<void> = async () => {},
) =>
  describe(`monitor claims: ${name}`, () => {
    const runtimes: Array<Runtime> = []
    const worker = (
      around: (store: Layer.Layer<JobStore, StoreError>) => Layer.Layer<JobStore, StoreError> = identity,
    ) => {
      const runtime = ManagedRuntime.make(
        Engine.layer({
          store: around(connect()),
          allowPrivateAddresses: true,
          // The test's clock alone starts checks; the workers run their pages.
          worker: { pollMs: 20, monitorSweepMs: 3_600_000 },
        }),
      )
      runtimes.push(runtime)
      return runtime
    }
    afterAll(async () => {
      for (const runtime of runtimes) await runtime.dispose()
      await cleanup()
    })

    it("starts every due check once with two workers sweeping at once", async () => {
      const paths = Array.from({ length: 8 }, (_, i) => `/page/${i}`)
      const site = await startEditableSite(Object.fromEntries(paths.map((path) => [path, page(path, "<p>Text.</p>")])))
      try {
        const [first, second] = [worker(), worker()]
        if (first === undefined || second === undefined) throw new Error("two workers")
        const ids = await Promise.all(
          paths.map((path) =>
            monitorOf(first, path, "every 30 minutes", `${site.url}${path}`).then((created) => created.id),
          ),
        )
        for (const [round, time] of [FIRST_RUN, FIRST_RUN + HALF_HOUR].entries()) {
          await Promise.all(
            [first, second, first, second, first, second].map((runtime) => at(runtime, time, sweepMonitors)),
          )
          const checks = await settled(first, ids, round + 1)
          for (const list of checks) expect(list).toHaveLength(round + 1)
          for (const path of paths) expect(site.hits(path), path).toBe(round + 1)
        }
      } finally {
        await site.close()
      }
    }, 60_000)

    it("claims a due run whose monitor another write changed after the sweep read it, and skips an overlapping one", async () => {
      const site = await startEditableSite({ "/slow": page("Slow", "<p>Text.</p>") })
      site.delays.set("/slow", 1500)
      try {
        const runtime = worker(overtaken)
        const created = await monitorOf(runtime, "Slow", "every 30 minutes", `${site.url}/slow`)
        await at(runtime, FIRST_RUN, sweepMonitors)
        expect((await checksOf(runtime, created.id)).map((check) => check.status)).toEqual(["running"])
        // The first check still runs when the next run is due: that run is recorded as skipped.
        await at(runtime, FIRST_RUN + HALF_HOUR, sweepMonitors)
        const checks = await settled(runtime, [created.id], 2)
        expect(checks[0]?.map((check) => check.status).sort()).toEqual(["completed", "skipped_overlap"])
        expect(site.hits("/slow")).toBe(1)
      } finally {
        await site.close()
      }
    }, 60_000)

    it("finishes a claim whose worker died before making the check, under the claimed id", async () => {
      const site = await startEditableSite({ "/claimed": page("Claimed", "<p>Text.</p>") })
      try {
        const runtime = worker()
        const created = await monitorOf(runtime, "Claimed", "hourly", `${site.url}/claimed`)
        const checkId = "01a21700-0000-7000-8000-00000000c1a1"
        // What a worker leaves when it dies between its claim and the check's job.
        await runtime.runPromise(
          Effect.gen(function* () {
            const store = yield* JobStore
            const found = yield* getMonitor(store, created.id)
            if (Option.isNone(found)) throw new Error("the monitor is gone")
            const { record, state } = found.value
            const claimed = {
              ...state,
              pending: { checkId, trigger: "scheduled" as const, scheduledFor: FIRST_RUN, claimedAt: FIRST_RUN },
            }
            yield* putMonitor(store, record.id, record.owner, claimed, FIRST_RUN, record.version)
          }),
        )
        // Before its lease runs out the claim is its worker's; after, the next sweep makes the check.
        await at(runtime, FIRST_RUN + CLAIM_LEASE_MS - 1000, sweepMonitors)
        expect(await checksOf(runtime, created.id)).toHaveLength(0)
        await at(runtime, FIRST_RUN + CLAIM_LEASE_MS, sweepMonitors)
        const [checks] = await settled(runtime, [created.id], 1)
        expect(checks?.map((check) => check.id)).toEqual([checkId])
        expect(checks?.[0]).toMatchObject({ status: "completed", scheduledFor: new Date(FIRST_RUN).toISOString() })
        expect(site.hits("/claimed")).toBe(1)
      } finally {
        await site.close()
      }
    }, 60_000)
  })
