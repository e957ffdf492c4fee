/**
 * The tasks one worker runs at once: leases due tasks into its free slots, keeps each lease fresh while its task runs
 * and interrupts a task whose lease is lost (the store gave it to another worker after a stall). The long-running
 * worker (`Worker.ts`) and the bounded runs of hosts that start workers on demand (`Drain.ts`) share it.
 *
 * For as long as its scope lasts it follows the news: a job cancelled in this process (`WorkSignal`) or in another
 * (the store's `news`, else a poll of the running tasks' jobs) has its tasks stopped; new work ends a `wait`.
 */
import { Duration, Effect, Either, FiberMap, Option, Queue, Ref, Schedule, type Scope, Stream } from "effect"
import { JobStore, type StoreError, type Task } from "./JobStore.js"
import { TaskRunner } from "./TaskRunner.js"
import { type WorkEvent, WorkSignal } from "./WorkSignal.js"

export interface TaskSlotsOptions {
  /** The lease holder's name (`WorkerIdentity.newHolder()`). */
  readonly holder: string
  readonly concurrency: number
  /** Lease length; renewed once a third of it has passed while the task runs (see `renewAll`). */
  readonly leaseMs: number
  /** Running tasks' jobs are polled every other `pollMs` for an end decided elsewhere (stores without news). */
  readonly pollMs: number
}

export interface TaskSlots {
  /** Leases due tasks into the free slots and starts them; true when it filled every free slot (more may be due). */
  readonly fill: Effect.Effect<boolean, StoreError>
  /** Tasks running now. */
  readonly running: Effect.Effect<number>
  /** Waits until a task ends or `wake` is called, or `timeout` passes. */
  readonly wait: (timeout: Duration.Duration) => Effect.Effect<void>
  /** Ends a `wait` (new work, a lease came back). */
  readonly wake: Effect.Effect<void>
  /** Tasks started so far. */
  readonly started: Effect.Effect<number>
  /**
   * Stops every running task and gives its lease back, due at once and without counting an attempt (the task did not
   * fail: its worker ran out of time). Returns how many were given back.
   */
  readonly release: Effect.Effect<number>
  /** Lets the running tasks finish until `deadline` (epoch ms), then `release`s the rest; answers how many. */
  readonly settle: (deadline: number) => Effect.Effect<number>
}

export const make = (
  options: TaskSlotsOptions,
): Effect.Effect<TaskSlots, never, JobStore | TaskRunner | WorkSignal | Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const runner = yield* TaskRunner
    const signal = yield* WorkSignal
    const fibers = yield* FiberMap.make<string>()
    /** The current lease of each running task, by task id. */
    const leases = new Map<string, Ref.Ref<Task>>()
    const tasksOfJob = new Map<string, Set<string>>()
    const changed = yield* Queue.sliding<void>(1)

    let started = 0
    const wake = Effect.asVoid(Queue.offer(changed, undefined))

    const interruptJob = (jobId: string) =>
      Effect.forEach(tasksOfJob.get(jobId) ?? [], (taskId) => FiberMap.remove(fibers, taskId), { discard: true })

    const interruptEnded = Effect.suspend(() =>
      Effect.forEach(
        [...tasksOfJob.keys()],
        (jobId) =>
          store.getJob(jobId).pipe(
            Effect.flatMap((job) =>
              Option.isNone(job) || job.value.status !== "scraping" ? interruptJob(jobId) : Effect.void,
            ),
            Effect.ignore,
          ),
        { discard: true },
      ),
    )

    /**
     * Keeps the running tasks' leases fresh, all in one loop (a fiber racing each task cost ~35 µs of CPU per page,
     * measured): every sixth of the lease, each lease past a third of its length is renewed, and a task whose lease
     * is lost is stopped. A store that fails to answer once is asked again at the next turn: a lease outlives at least
     * two missed renewals.
     */
    const renewOne = (taskId: string, lease: Ref.Ref<Task>, now: number) =>
      Effect.gen(function* () {
        const task = yield* Ref.get(lease)
        if ((task.leaseUntil ?? 0) - now > (2 * options.leaseMs) / 3) return
        const renewed = yield* Effect.either(store.renewLease(task, now + options.leaseMs))
        if (Either.isLeft(renewed)) yield* Effect.logWarning("Renewing a lease failed; trying again", renewed.left)
        // The same ref: not a later run of the same task (a retry leased again) that this renewal knows nothing of.
        else if (Option.isNone(renewed.right)) {
          if (leases.get(taskId) === lease) yield* FiberMap.remove(fibers, taskId)
        } else yield* Ref.set(lease, renewed.right.value)
      })
    const renewAll = Effect.suspend(() => {
      const now = Date.now()
      return Effect.forEach([...leases], ([taskId, lease]) => renewOne(taskId, lease, now), {
        concurrency: "unbounded",
        discard: true,
      })
    })
    yield* Effect.forkScoped(
      Effect.repeat(
        // A loop that died would leave every later task's lease to run out: whatever happens, it goes on.
        Effect.catchAllCause(renewAll, (cause) => Effect.logWarning("Renewing leases failed; trying again", cause)),
        Schedule.spaced(Duration.millis(Math.max(1, Math.floor(options.leaseMs / 6)))),
      ),
    )

    const start = (task: Task) =>
      Effect.gen(function* () {
        const lease = yield* Ref.make(task)
        const running = tasksOfJob.get(task.jobId) ?? new Set<string>()
        running.add(task.id)
        tasksOfJob.set(task.jobId, running)
        leases.set(task.id, lease)
        started++
        const done = Effect.sync(() => {
          leases.delete(task.id)
          running.delete(task.id)
          if (running.size === 0) tasksOfJob.delete(task.jobId)
        }).pipe(Effect.zipRight(Queue.offer(changed, undefined)))
        yield* FiberMap.run(
          fibers,
          task.id,
          runner.run(lease).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logWarning(`Task ${task.id} (${task.url}) ended abnormally; its lease will expire`, cause),
            ),
            Effect.ensuring(done),
          ),
        )
      })

    const fill = Effect.gen(function* () {
      const free = options.concurrency - leases.size
      if (free <= 0) return false
      const tasks = yield* store.leaseTasks({
        worker: options.holder,
        now: Date.now(),
        leaseMs: options.leaseMs,
        max: free,
      })
      yield* Effect.forEach(tasks, start, { discard: true })
      return tasks.length === free
    })

    const release = Effect.gen(function* () {
      const refs = [...leases.values()]
      yield* FiberMap.clear(fibers)
      // Read after the tasks stopped: the latest renewal is the lease the store knows.
      const held = yield* Effect.forEach(refs, Ref.get)
      const now = Date.now()
      // A task that recorded its end before it was stopped holds no lease any more: the store answers false.
      const given = yield* Effect.forEach(held, (task) =>
        store.deferTask(task, now).pipe(Effect.orElseSucceed(() => false)),
      )
      return given.filter(Boolean).length
    })

    const settle = (deadline: number) =>
      Effect.gen(function* () {
        while (leases.size > 0 && Date.now() < deadline)
          // Interruptible, so that the timeout can end the wait in a finalizer too (a stopping worker's).
          yield* Queue.take(changed).pipe(
            Effect.interruptible,
            Effect.timeout(Duration.millis(Math.max(1, Math.min(options.pollMs, deadline - Date.now())))),
            Effect.ignore,
          )
        return yield* release
      })

    const onEvent = (event: WorkEvent) => (event._tag === "JobCancelled" ? interruptJob(event.jobId) : wake)
    const events = yield* signal.subscribe
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(events), onEvent)))
    yield* Effect.forkScoped(Stream.runForEach(store.news, onEvent))
    yield* Effect.forkScoped(Effect.repeat(interruptEnded, Schedule.spaced(Duration.millis(options.pollMs * 2))))

    return {
      fill,
      running: Effect.sync(() => leases.size),
      wait: (timeout) => Queue.take(changed).pipe(Effect.timeout(timeout), Effect.ignore),
      wake,
      started: Effect.sync(() => started),
      release,
      settle,
    } satisfies TaskSlots
  })
