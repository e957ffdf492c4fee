/**
 * Claim latency of each job store with 100 000 pending tasks: how long one `leaseTasks` call (max 16, what a worker
 * asks when it has 16 free slots) takes on SQLite, Postgres and Redis, with the memory store as the floor.
 *
 * Each store gets 10 jobs of 10 000 pending tasks (so the fairness rule has jobs to rotate through). A measured lease
 * is followed by an unmeasured `deferTask` of every task it took (due again at once, no attempt burned), so the queue
 * stays at 100 000 pending tasks for the whole run. Batches of 100 leases rotate between the stores, since this
 * machine's speed drifts; each store's client is its real layer (Postgres over TCP on 127.0.0.1, Redis likewise,
 * SQLite on a file in the temporary directory).
 *
 * Run: `npm run store-claim -w @webdata/bench` (TASKS=100000, JOBS=10, LEASES=2000; STORES=sqlite,postgres,redis,memory).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { JobStore, type JobStoreShape, MemoryJobStore, type NewTask } from "@webdata/core/jobs"
import { SqliteJobStore } from "@webdata/store-sqlite"
import { Effect, type Layer, ManagedRuntime } from "effect"
import { type Backend, freshPostgres, freshRedis } from "../../packages/server/test/support/backends.js"

const TASKS = Number(process.env.TASKS ?? 100_000)
const JOBS = Number(process.env.JOBS ?? 10)
const LEASES = Number(process.env.LEASES ?? 2000)
const STORES = (process.env.STORES ?? "sqlite,postgres,redis,memory").split(",")
const BATCH = 100
const MAX = 16
const CHUNK = 1000

const dir = mkdtempSync(join(tmpdir(), "webdata-claim-"))

interface Lane {
  readonly name: string
  readonly runtime: ManagedRuntime.ManagedRuntime<JobStore, unknown>
  readonly cleanUp: () => Promise<void>
  readonly samples: Array<number>
}

const inProcess = (backend: Backend) => ({ layer: backend.layer(), cleanUp: backend.cleanUp })

const layers: Record<string, () => { layer: Layer.Layer<JobStore, unknown>; cleanUp: () => Promise<void> }> = {
  sqlite: () => ({ layer: SqliteJobStore.layer({ filename: join(dir, "claim.db") }), cleanUp: async () => {} }),
  postgres: () => inProcess(freshPostgres()),
  redis: () => inProcess(freshRedis()),
  memory: () => ({ layer: MemoryJobStore.layer(), cleanUp: async () => {} }),
}

const use = <A>(lane: Lane, body: (store: JobStoreShape) => Effect.Effect<A, unknown>) =>
  lane.runtime.runPromise(Effect.flatMap(JobStore, body))

const fill = (lane: Lane) =>
  use(lane, (store) =>
    Effect.gen(function* () {
      const perJob = TASKS / JOBS
      for (let j = 0; j < JOBS; j++) {
        const newTask = (i: number): NewTask => ({
          url: `https://site${j}.test/p/${i}`,
          key: `site${j}.test/p/${i}`,
          depth: 1,
          host: `site${j}.test`,
        })
        const job = yield* store.createJob(
          {
            kind: "crawl",
            owner: null,
            url: `https://site${j}.test/`,
            options: {},
            limit: perJob,
            zeroDataRetention: false,
            createdAt: Date.now(),
            expiresAt: Date.now() + 86_400_000,
          },
          Array.from({ length: CHUNK }, (_, i) => newTask(i)),
        )
        for (let from = CHUNK; from < perJob; from += CHUNK)
          yield* store.addTasks(
            job.id,
            Array.from({ length: Math.min(CHUNK, perJob - from) }, (_, i) => newTask(from + i)),
            Date.now(),
          )
      }
    }),
  )

const measureBatch = (lane: Lane, count: number) =>
  use(lane, (store) =>
    Effect.gen(function* () {
      for (let i = 0; i < count; i++) {
        const started = performance.now()
        const tasks = yield* store.leaseTasks({ worker: "bench", now: Date.now(), leaseMs: 60_000, max: MAX })
        lane.samples.push(performance.now() - started)
        if (tasks.length !== MAX) throw new Error(`${lane.name}: leased ${tasks.length} tasks, expected ${MAX}`)
        for (const task of tasks) yield* store.deferTask(task, 0)
      }
    }),
  )

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

const lanes: Array<Lane> = []
for (const name of STORES) {
  const make = layers[name]
  if (make === undefined) throw new Error(`Unknown store ${name}: expected ${Object.keys(layers).join(", ")}`)
  const { layer, cleanUp } = make()
  const lane: Lane = { name, runtime: ManagedRuntime.make(layer), cleanUp, samples: [] }
  const started = performance.now()
  await fill(lane)
  console.log(
    `${name}: ${TASKS} pending tasks in ${JOBS} jobs written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
  lanes.push(lane)
}

try {
  for (let done = 0, round = 0; done < LEASES; done += BATCH, round++) {
    // Each store takes each place in the rotation in turn.
    for (let k = 0; k < lanes.length; k++) await measureBatch(lanes[(k + round) % lanes.length]!, BATCH)
  }
  console.log(`\nleaseTasks (max ${MAX}) with ${TASKS} pending tasks, ${LEASES} calls per store:`)
  console.log("| store | p50 ms | p99 ms | mean ms |")
  console.log("| --- | --- | --- | --- |")
  for (const lane of lanes) {
    const mean = lane.samples.reduce((a, b) => a + b, 0) / lane.samples.length
    console.log(
      `| ${lane.name} | ${percentile(lane.samples, 50).toFixed(2)} | ${percentile(lane.samples, 99).toFixed(2)} | ${mean.toFixed(2)} |`,
    )
  }
} finally {
  for (const lane of lanes) {
    await lane.runtime.dispose()
    await lane.cleanUp()
  }
  rmSync(dir, { recursive: true, force: true })
}
