/**
 * Run as a child process by the crash test: completes the leased task given on the command line with a very large
 * outcome (a document and 300 000 discovered tasks), saying "completing" on stdout right before. The parent kills
 * the process with SIGKILL while that transaction runs.
 */
import { JobStore, type Task } from "@webdata/core/jobs"
import { Effect } from "effect"
import { SqliteJobStore } from "../../src/index.js"

const [filename, taskJson] = process.argv.slice(2)
const task = JSON.parse(taskJson!) as Task

const program = Effect.gen(function* () {
  const store = yield* JobStore
  const discovered = Array.from({ length: 300_000 }, (_, i) => ({
    url: `https://example.test/crash/${i}`,
    key: `example.test/crash/${i}`,
    depth: 1,
    host: "example.test",
  }))
  process.stdout.write("completing\n")
  yield* store.completeTask(task, {
    now: task.leaseUntil! - 1,
    document: { markdown: "# root" },
    discovered,
    robotsBlocked: [],
  })
  process.stdout.write("committed\n")
})

Effect.runPromise(program.pipe(Effect.provide(SqliteJobStore.layer({ filename: filename! })))).catch((error) => {
  console.error(error)
  process.exit(1)
})
