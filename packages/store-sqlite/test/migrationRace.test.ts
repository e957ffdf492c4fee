/**
 * Opening a file another process is migrating: the process whose Migrator stands back waits for the schema instead
 * of running statements on tables that are not there yet; a file a newer build migrated further opens at once
 * (migrations only add, docs/deploy.md).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { it } from "@effect/vitest"
import { JobStore } from "@webdata/core/jobs"
import { Deferred, Effect, Fiber } from "effect"
import { afterAll, describe, expect } from "vitest"
import { newJob, task } from "../../core/test/jobs/conformance.js"
import { SqliteJobStore } from "../src/index.js"
import { loader } from "../src/migrations/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-migration-race-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let databases = 0
const freshFile = () => join(dir, `race-${++databases}.db`)

/** The latest migration of this build. */
const LATEST = 9

/**
 * A process that, for each file named on a line of its stdin, opens the store on it, adds 1 to a counter (a table
 * of the latest migration) and answers with a JSON line: `{ value }` or `{ error }`. It says "ready" once loaded, so
 * that both processes get the same file at the same moment.
 */
const CHILD = `
import { createInterface } from "node:readline"
import { JobStore } from "@webdata/core/jobs"
import { Effect } from "effect"
const { SqliteJobStore } = await import(process.argv[1])
const openAndAdd = (filename) =>
  Effect.runPromise(
    Effect.flatMap(JobStore, (store) => store.addToCounter("opened", 1, Date.now() + 60_000)).pipe(
      Effect.provide(SqliteJobStore.layer({ filename })),
    ),
  )
process.stdout.write("ready\\n")
for await (const filename of createInterface({ input: process.stdin })) {
  const answer = await openAndAdd(filename).then(
    (value) => ({ value }),
    (error) => ({ error: String(error?.message ?? error) }),
  )
  process.stdout.write(JSON.stringify(answer) + "\\n")
}
`

/** A child process running `CHILD` on the TypeScript sources, with its stdout as lines. */
const startChild = () => {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=source",
      "--input-type=module",
      "--eval",
      CHILD,
      new URL("../src/index.ts", import.meta.url).href,
    ],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["pipe", "pipe", "inherit"] },
  )
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const line = await lines.next()
    if (line.done) throw new Error("the child process exited")
    return line.value
  }
  return { child, nextLine }
}

/** Migrates `filename` as another process would, the last migration waiting for `proceed` inside the transaction. */
const migrateHeldBack = (filename: string, started: Deferred.Deferred<void>, proceed: Effect.Effect<void>) =>
  Migrator.make({})({
    loader: Effect.map(loader, (migrations) =>
      migrations.map(([id, name, load]) =>
        id === LATEST
          ? ([
              id,
              name,
              Effect.map(load, (migration) =>
                Effect.zipRight(Effect.zipRight(Deferred.succeed(started, undefined), proceed), migration),
              ),
            ] as const)
          : ([id, name, load] as const),
      ),
    ),
  }).pipe(Effect.provide(SqliteClient.layer({ filename })))

/** Opens the store on `filename` and creates a job through it. */
const openAndCreate = (filename: string, options: Omit<SqliteJobStore.SqliteJobStoreOptions, "filename"> = {}) =>
  Effect.flatMap(JobStore, (store) => store.createJob(newJob(), [task("/")])).pipe(
    Effect.provide(SqliteJobStore.layer({ filename, ...options })),
  )

describe("SQLite store opened while another process migrates", () => {
  it.live(
    "two processes opening the same fresh file at once both get the whole schema",
    () =>
      Effect.gen(function* () {
        const children = [startChild(), startChild()]
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const { child } of children) child.kill()
          }),
        )
        yield* Effect.promise(() => Promise.all(children.map(({ nextLine }) => nextLine())))
        for (let round = 0; round < 10; round++) {
          const filename = freshFile()
          for (const { child } of children) child.stdin!.write(`${filename}\n`)
          const answers = yield* Effect.promise(() =>
            Promise.all(children.map(async ({ nextLine }) => JSON.parse(await nextLine()))),
          )
          expect(answers.map((answer) => answer.value ?? answer.error).sort()).toEqual([1, 2])
        }
      }).pipe(Effect.scoped),
    20_000,
  )

  it.live("waits until the other process's migration commits, then uses the file", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const started = yield* Deferred.make<void>()
      const other = yield* Effect.fork(migrateHeldBack(filename, started, Effect.sleep("600 millis")))
      yield* Deferred.await(started)
      const startedAt = Date.now()
      // Our Migrator finds the write lock taken (after a short busy timeout) and stands back.
      const job = yield* openAndCreate(filename, { busyTimeoutMs: 50 })
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500)
      expect((yield* Fiber.join(other)).map(([id]) => id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(job.status).toBe("scraping")
    }),
  )

  it.live("fails with a clear error when the other process's migration does not end in time", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      const started = yield* Deferred.make<void>()
      const proceed = yield* Deferred.make<void>()
      const other = yield* Effect.fork(migrateHeldBack(filename, started, Deferred.await(proceed)))
      yield* Deferred.await(started)
      const startedAt = Date.now()
      const error = yield* Effect.flip(openAndCreate(filename, { busyTimeoutMs: 50, migrationWaitMs: 400 }))
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400)
      expect(error).toMatchObject({ _tag: "StoreError", reason: "Unavailable" })
      expect(error.message).toContain(
        `The schema of ${filename} is at version 0, this build needs ${LATEST}: another process is migrating it`,
      )
      // Once the other process is done, the file opens.
      yield* Deferred.succeed(proceed, undefined)
      yield* Fiber.join(other)
      expect((yield* openAndCreate(filename)).status).toBe("scraping")
    }),
  )

  it.live("opens at once a file a newer version migrated further", () =>
    Effect.gen(function* () {
      const filename = freshFile()
      yield* openAndCreate(filename)
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (${LATEST + 1}, 'from_the_future')`,
      ).pipe(Effect.provide(SqliteClient.layer({ filename })))
      const startedAt = Date.now()
      expect((yield* openAndCreate(filename)).status).toBe("scraping")
      expect(Date.now() - startedAt).toBeLessThan(1000)
    }),
  )
})
