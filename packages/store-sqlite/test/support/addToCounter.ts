/**
 * Run as a child process by the multi-process counter test: waits until every process has checked in (through a
 * counter of the shared file), then adds 1 to the counter `hot` `adds` times and prints the answers as JSON.
 */
import { JobStore } from "@webdata/core/jobs"
import { Effect } from "effect"
import { SqliteJobStore } from "../../src/index.js"

const [filename, processes, adds] = process.argv.slice(2)
const expiresAt = Date.now() + 60_000

const program = Effect.gen(function* () {
  const store = yield* JobStore
  yield* store.addToCounter("ready", 1, expiresAt)
  // Started together, so that the adds of the processes interleave.
  while ((yield* store.readCounters(["ready"]))[0]! < Number(processes)) yield* Effect.sleep("5 millis")
  const answers: Array<number> = []
  for (let i = 0; i < Number(adds); i++) answers.push(yield* store.addToCounter("hot", 1, expiresAt))
  process.stdout.write(JSON.stringify(answers))
})

Effect.runPromise(program.pipe(Effect.provide(SqliteJobStore.layer({ filename: filename! })))).catch((error) => {
  console.error(error)
  process.exit(1)
})
