/**
 * Run as a child process by the multi-process test: one worker that leases and completes tasks of the store's
 * only job until the job is completed, then prints the ids of the tasks it recorded as JSON.
 */
import { JobStore } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { SqliteJobStore } from "../../src/index.js"

const [filename, worker, jobId] = process.argv.slice(2)

const program = Effect.gen(function* () {
  const store = yield* JobStore
  const recorded: Array<string> = []
  for (;;) {
    const leased = yield* store.leaseTasks({ worker: worker!, now: Date.now(), leaseMs: 60_000, max: 4 })
    for (const task of leased) {
      const result = yield* store.completeTask(task, {
        now: Date.now(),
        document: { by: worker, url: task.url },
        discovered: [],
        robotsBlocked: [],
      })
      if (result.recorded) recorded.push(task.id)
    }
    if (leased.length === 0) {
      const job = Option.getOrThrow(yield* store.getJob(jobId!))
      if (job.status !== "scraping") break
      yield* Effect.sleep("5 millis")
    }
  }
  process.stdout.write(JSON.stringify(recorded))
})

Effect.runPromise(program.pipe(Effect.provide(SqliteJobStore.layer({ filename: filename! })))).catch((error) => {
  console.error(error)
  process.exit(1)
})
