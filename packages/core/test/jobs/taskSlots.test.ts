/**
 * The leases of running tasks (`TaskSlots`): kept fresh while a task runs, and a task whose lease is lost is stopped.
 * Memory store; the task runner is a stand-in that runs until it is stopped.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Ref } from "effect"
import { JobStore, MemoryJobStore, type Task } from "../../src/Jobs/index.js"
import { TaskRunner } from "../../src/Jobs/TaskRunner.js"
import * as TaskSlots from "../../src/Jobs/TaskSlots.js"
import * as WorkSignal from "../../src/Jobs/WorkSignal.js"
import { newJob, tasks } from "./conformance.js"

const LEASE_MS = 300

/** A runner whose tasks run until stopped; `stopped` gets the lease the task held then. */
const idleRunner = (stopped: Deferred.Deferred<Task>) =>
  Layer.succeed(TaskRunner, {
    run: (lease: Ref.Ref<Task>) =>
      Effect.never.pipe(
        Effect.onInterrupt(() => Effect.flatMap(Ref.get(lease), (task) => Deferred.succeed(stopped, task))),
      ),
  })

/** The memory store, whose renewals answer "lost" once `lost` is set. */
const storeLosingLeases = (lost: { value: boolean }) =>
  Layer.effect(
    JobStore,
    Effect.map(JobStore, (store) => ({
      ...store,
      renewLease: (task: Task, leaseUntil: number) =>
        lost.value ? Effect.succeedNone : store.renewLease(task, leaseUntil),
    })),
  ).pipe(Layer.provide(MemoryJobStore.layer()))

const slotsWithOneTask = Effect.gen(function* () {
  const store = yield* JobStore
  yield* store.createJob(newJob(), tasks(1))
  const slots = yield* TaskSlots.make({ holder: "w1", concurrency: 4, leaseMs: LEASE_MS, pollMs: 50 })
  yield* slots.fill
  expect(yield* slots.running).toBe(1)
  return { store, slots }
})

describe("TaskSlots leases", () => {
  it.scopedLive("renews a running task's lease before it runs out, for as long as the task runs", () => {
    const lost = { value: false }
    return Effect.gen(function* () {
      const stopped = yield* Deferred.make<Task>()
      const { store, slots } = yield* slotsWithOneTask.pipe(Effect.provide(idleRunner(stopped)))
      // Three lease lengths: without renewals another worker would have leased the task twice over.
      yield* Effect.sleep(3 * LEASE_MS)
      expect(yield* store.leaseTasks({ worker: "w2", now: Date.now(), leaseMs: LEASE_MS, max: 1 })).toEqual([])
      expect(yield* slots.running).toBe(1)
      expect(yield* Deferred.isDone(stopped)).toBe(false)
    }).pipe(Effect.provide(Layer.merge(storeLosingLeases(lost), WorkSignal.layer)))
  })

  it.scopedLive("stops a task whose lease was lost, before the lease would have run out", () => {
    const lost = { value: false }
    return Effect.gen(function* () {
      const stopped = yield* Deferred.make<Task>()
      const { slots } = yield* slotsWithOneTask.pipe(Effect.provide(idleRunner(stopped)))
      lost.value = true
      const begun = Date.now()
      const task = yield* Deferred.await(stopped).pipe(Effect.timeout(2 * LEASE_MS))
      // Renewed from a third of the lease on, checked every sixth: the loss is seen by half of it, well before the
      // lease would have run out and another worker could have begun the same page.
      expect(Date.now() - begun).toBeLessThan(LEASE_MS)
      expect(task.leaseOwner).toBe("w1")
      expect(yield* slots.running).toBe(0)
    }).pipe(Effect.provide(Layer.merge(storeLosingLeases(lost), WorkSignal.layer)))
  })
})
