import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { it } from "@effect/vitest"
import { JobStore, type JobStoreShape, type Task } from "@webdata/core/jobs"
import { ConfigProvider, Effect, Fiber, Option } from "effect"
import { afterAll, describe, expect } from "vitest"
import { newJob, runJobStoreConformance, task, tasks } from "../../core/test/jobs/conformance.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-store-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let databases = 0
const freshFile = () => join(dir, `test-${++databases}.db`)

runJobStoreConformance("sqlite", () => SqliteJobStore.layer({ filename: freshFile() }))

const T0 = 1_700_000_000_000

/** Runs `body` on the store in `filename`, opened for the call and closed after it. */
const withFile = <A, E>(filename: string, body: (store: JobStoreShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(JobStore, body).pipe(Effect.provide(SqliteJobStore.layer({ filename })))

/** Runs raw SQL on `filename` through a second connection (what another process would see). */
const raw = <A>(filename: string, body: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, body).pipe(Effect.provide(SqliteClient.layer({ filename })))

/** Starts `script` (in ./support) as a Node process running the TypeScript sources. */
const runChild = (script: string, args: ReadonlyArray<string>) =>
  spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=source", fileURLToPath(new URL(`./support/${script}`, import.meta.url)), ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  )

/** Asserts that the completion of `root` (job with the single seed "/") left no trace. */
const expectUntouched = (store: JobStoreShape, jobId: string, root: Task) =>
  Effect.gen(function* () {
    expect(Option.getOrThrow(yield* store.getJob(jobId))).toMatchObject({
      status: "scraping",
      total: 1,
      completed: 0,
      failed: 0,
      updatedAt: T0,
    })
    expect(yield* store.countDocuments(jobId)).toBe(0)
    expect(yield* store.errors(jobId)).toEqual({ errors: [], robotsBlocked: [] })
    expect(Option.getOrThrow(yield* store.getTask(root.id))).toMatchObject({
      status: "leased",
      leaseOwner: root.leaseOwner,
      leaseUntil: root.leaseUntil,
    })
    // No discovered task got in: once the lease runs out, the root is all there is to lease.
    const leased = yield* store.leaseTasks({ worker: "w9", now: root.leaseUntil!, leaseMs: 60_000, max: 100 })
    expect(leased.map((t) => [t.id, t.attempts])).toEqual([[root.id, 1]])
    return leased[0]!
  })

describe("SQLite store", () => {
  it.effect("keeps everything across closing and reopening the file", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const before = yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          const job = yield* store.createJob(newJob({ maxConcurrency: 4 }), tasks(3))
          const [a, b] = yield* store.leaseTasks({ worker: "w1", now: T0, leaseMs: 60_000, max: 2 })
          yield* store.completeTask(a!, {
            now: T0 + 1,
            document: { markdown: "# a" },
            discovered: [task("/new", { depth: 1 })],
            robotsBlocked: ["https://example.test/private"],
          })
          yield* store.putScrape({ id: "s-1", owner: "key-a", document: { markdown: "# s" }, expiresAt: T0 + 10 })
          yield* store.cacheSet("https://example.test/", {
            url: "https://example.test/",
            statusCode: 200,
            contentType: "text/html",
            body: "<p>cached</p>",
            cachedAt: T0,
          })
          yield* store.enqueueDelivery({ jobId: job.id, payload: { event: "started" }, createdAt: T0 })
          yield* store.holdGate("host example.test", T0 + 60_000)
          const monitor = yield* store.putRecord({ kind: "monitor", id: "m1", owner: null, value: { n: 1 }, now: T0 })
          return { job: Option.getOrThrow(yield* store.getJob(job.id)), inFlight: b!, monitor }
        }),
      )
      expect(before.job).toMatchObject({ total: 4, completed: 1 })

      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          expect(yield* store.getJob(before.job.id)).toEqual(Option.some(before.job))
          expect((yield* store.documents(before.job.id, { skip: 0, limit: 10 })).map((d) => d.document)).toEqual([
            { markdown: "# a" },
          ])
          expect((yield* store.errors(before.job.id)).robotsBlocked).toEqual(["https://example.test/private"])
          expect(Option.getOrThrow(yield* store.getScrape("s-1")).document).toEqual({ markdown: "# s" })
          expect(Option.getOrThrow(yield* store.cacheGet("https://example.test/")).body).toBe("<p>cached</p>")
          expect(yield* store.getRecord("monitor", "m1")).toEqual(before.monitor)
          // A webhook delivery queued before the restart is sent after it; the host's back-off still holds.
          const [queued] = yield* store.leaseDeliveries({ worker: "w2", now: T0 + 1, leaseMs: 1000, max: 10 })
          expect(queued?.payload).toEqual({ event: "started" })
          expect(yield* store.passGates([{ key: "host example.test", spacingMs: 0 }], T0 + 1)).toEqual(
            Option.some(T0 + 60_000),
          )
          // The lease taken before the restart is still the holder's, and the frontier goes on where it was.
          expect(
            (yield* store.completeTask(before.inFlight, { now: T0 + 2, discovered: [], robotsBlocked: [] })).recorded,
          ).toBe(true)
          const rest = yield* store.leaseTasks({ worker: "w2", now: T0 + 3, leaseMs: 60_000, max: 10 })
          expect(rest.map((t) => t.url)).toEqual(["https://example.test/p2", "https://example.test/new"])
        }),
      )

      // WAL mode, and the schema migrated once however often the file is opened.
      const [mode, migrations] = yield* raw(filename, (sql) =>
        Effect.all([
          sql<{ journal_mode: string }>`PRAGMA journal_mode`,
          sql<{ migration_id: number }>`SELECT migration_id FROM effect_sql_migrations`,
        ]),
      )
      expect(mode[0]!.journal_mode).toBe("wal")
      expect(migrations.map((row) => row.migration_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    }),
  )

  it.effect("a transaction that fails midway leaves nothing written", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          const job = yield* store.createJob(newJob(), [task("/")])
          const [root] = yield* store.leaseTasks({ worker: "w1", now: T0, leaseMs: 60_000, max: 1 })
          // Another connection adds a trigger that aborts the insert of the last discovered task: by then the
          // document, the task's new status, the robots-blocked URL and the first 500 discovered tasks are written.
          yield* raw(
            filename,
            (sql) => sql`
              CREATE TRIGGER boom BEFORE INSERT ON tasks WHEN NEW.url LIKE '%/boom'
              BEGIN SELECT RAISE(ABORT, 'boom'); END`,
          )
          const outcome = {
            now: T0 + 1,
            document: { markdown: "# root" },
            discovered: [...tasks(600, "/d"), task("/boom")],
            robotsBlocked: ["https://example.test/private"],
          }
          const error = yield* Effect.flip(store.completeTask(root!, outcome))
          expect(error).toMatchObject({ _tag: "StoreError", reason: "QueryFailed" })
          expect(error.message).toContain("boom")
          const again = yield* expectUntouched(store, job.id, root!)

          yield* raw(filename, (sql) => sql`DROP TRIGGER boom`)
          const result = yield* store.completeTask(again, outcome)
          expect(Option.getOrThrow(result.job)).toMatchObject({ total: 602, completed: 1 })
        }),
      )
    }),
  )

  it.live("a completion interrupted at any step writes all of it or nothing", () =>
    Effect.gen(function* () {
      const outcomes: Array<string> = []
      // Interrupted at once, after a few turns of the scheduler, after a while: early ones land before the write,
      // late ones after it.
      const waits = [0, 1, 2, 3, 5, 8].map((turns) => Effect.repeatN(Effect.yieldNow(), turns))
      for (const wait of [...waits, Effect.sleep("20 millis"), Effect.sleep("200 millis")]) {
        yield* withFile(freshFile(), (store) =>
          Effect.gen(function* () {
            const job = yield* store.createJob(newJob({ limit: 1_000_000 }), [task("/")])
            const [root] = yield* store.leaseTasks({ worker: "w1", now: T0, leaseMs: 60_000, max: 1 })
            const outcome = {
              now: T0 + 1,
              document: { markdown: "# root" },
              discovered: tasks(20_000, "/d"),
              robotsBlocked: ["https://example.test/private"],
            }
            const fiber = yield* Effect.fork(store.completeTask(root!, outcome))
            yield* wait
            yield* Fiber.interrupt(fiber)
            const stored = Option.getOrThrow(yield* store.getJob(job.id))
            if (stored.completed === 0) {
              outcomes.push("nothing")
              const again = yield* expectUntouched(store, job.id, root!)
              const result = yield* store.completeTask(again, outcome)
              expect(Option.getOrThrow(result.job)).toMatchObject({ total: 20_001, completed: 1 })
            } else {
              outcomes.push("all")
              expect(stored).toMatchObject({ total: 20_001, completed: 1 })
              expect(yield* store.countDocuments(job.id)).toBe(1)
              expect((yield* store.errors(job.id)).robotsBlocked).toEqual(["https://example.test/private"])
            }
          }),
        )
      }
      // Both sides of the write were reached, so the assertions above covered each.
      expect(outcomes).toContain("nothing")
      expect(outcomes).toContain("all")
    }),
  )

  it.live("a process killed in the middle of a commit leaves nothing written", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const { jobId, root } = yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          const job = yield* store.createJob(newJob({ limit: 1_000_000 }), [task("/")])
          const [root] = yield* store.leaseTasks({ worker: "w1", now: T0, leaseMs: 60_000, max: 1 })
          return { jobId: job.id, root: root! }
        }),
      )
      const output = yield* Effect.promise(
        () =>
          new Promise<string>((resolve, reject) => {
            const child = runChild("completeUntilKilled.ts", [filename, JSON.stringify(root)])
            let out = ""
            child.stdout.on("data", (chunk: Buffer) => {
              out += chunk.toString()
              if (out.includes("completing")) setTimeout(() => child.kill("SIGKILL"), 300)
            })
            child.on("error", reject)
            child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(out) : reject(new Error(out))))
          }),
      )
      expect(output).toBe("completing\n")
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          const again = yield* expectUntouched(store, jobId, root)
          const result = yield* store.completeTask(again, {
            now: T0 + 2,
            document: { markdown: "# root" },
            discovered: [task("/a")],
            robotsBlocked: [],
          })
          expect(Option.getOrThrow(result.job)).toMatchObject({ total: 2, completed: 1 })
        }),
      )
    }),
  )

  it.live("several processes share one database: every task is recorded exactly once", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const job = yield* withFile(filename, (store) => store.createJob(newJob({ createdAt: Date.now() }), tasks(3000)))
      const workers = ["p1", "p2", "p3"].map(
        (worker) =>
          new Promise<ReadonlyArray<string>>((resolve, reject) => {
            const child = runChild("leaseUntilDone.ts", [filename, worker, job.id])
            let out = ""
            child.stdout.on("data", (chunk: Buffer) => {
              out += chunk.toString()
            })
            child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))))
          }),
      )
      const recorded = yield* Effect.promise(() => Promise.all(workers))
      const ids = recorded.flat()
      expect(ids).toHaveLength(3000)
      expect(new Set(ids).size).toBe(3000)
      expect(recorded.filter((mine) => mine.length > 0).length).toBeGreaterThan(1)
      yield* withFile(filename, (store) =>
        Effect.gen(function* () {
          expect(Option.getOrThrow(yield* store.getJob(job.id))).toMatchObject({
            status: "completed",
            total: 3000,
            completed: 3000,
          })
          const docs = yield* store.documents(job.id, { skip: 0, limit: 5000 })
          expect(docs.map((d) => d.seq)).toEqual(Array.from({ length: 3000 }, (_, i) => i))
          expect(new Set(docs.map((d) => d.url)).size).toBe(3000)
        }),
      )
    }),
  )

  it.live("several processes adding to one counter at once get each value once", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      // Migrated before the children open it, so that they only race on the counter.
      yield* withFile(filename, (store) => store.readCounters(["hot"]))
      const answers = yield* Effect.promise(() =>
        Promise.all(
          Array.from(
            { length: 3 },
            () =>
              new Promise<ReadonlyArray<number>>((resolve, reject) => {
                const child = runChild("addToCounter.ts", [filename, "3", "200"])
                let out = ""
                child.stdout.on("data", (chunk: Buffer) => {
                  out += chunk.toString()
                })
                child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))))
              }),
          ),
        ),
      )
      expect(answers.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1))
      // Each process saw values the others wrote between its own: the adds did interleave.
      expect(
        answers.filter((mine) => mine.some((value, i) => i > 0 && value > mine[i - 1]! + 1)).length,
      ).toBeGreaterThan(0)
      expect(yield* withFile(filename, (store) => store.readCounters(["hot", "ready"]))).toEqual([600, 3])
    }),
  )

  it.effect("layerConfig opens the store WEBDATA_STORE names", () =>
    Effect.gen(function* () {
      const withStore = (spec: string) =>
        Effect.flatMap(JobStore, (store) => store.createJob(newJob(), [task("/")])).pipe(
          Effect.provide(SqliteJobStore.layerConfig),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["WEBDATA_STORE", spec]]))),
        )
      const nested = join(dir, "config", "nested", "store.db")
      const created = yield* withStore(`sqlite:${nested}`)
      expect(existsSync(nested)).toBe(true)
      const reopened = yield* withFile(nested, (store) => store.getJob(created.id))
      expect(Option.isSome(reopened)).toBe(true)

      expect((yield* withStore("memory:")).status).toBe("scraping")
      for (const bad of ["postgres://localhost/db", "sqlite:", "nonsense"]) {
        const error = yield* Effect.flip(withStore(bad))
        expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
        expect(error.message).toContain("expected sqlite:<path> or memory:")
      }
    }),
  )

  it.effect("a file that is not a database fails with StoreError Unavailable", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(withFile(fileURLToPath(import.meta.url), (store) => store.getJob("x")))
      expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
    }),
  )
})
