/**
 * The store's connection (src/Connection.ts): synchronous write bodies asked for together share one commit, each
 * undone alone when it throws; a lone writer does not wait, and a body interrupted before it ran never runs; a body
 * never lands inside an `@effect/sql` transaction that is open on the same connection; and a write that finds the
 * file's lock held by another connection waits for it without stopping the event loop, up to `lockWaitMs`.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Effect, Either, Fiber } from "effect"
import { afterAll, describe, expect } from "vitest"
import * as Connection from "../src/Connection.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-store-sqlite-conn-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let databases = 0

/** A connection to a fresh file in WAL mode with one table, `rows (n)`, past its opening (`stopBlocking`). */
const withConnection = <A, E>(
  groupCommitMs: number,
  body: (connection: Connection.Connection, file: string) => Effect.Effect<A, E>,
  lockWaitMs = 5000,
) => {
  const file = join(dir, `test-${++databases}.db`)
  return Effect.gen(function* () {
    const connection = yield* Connection.open(file, { groupCommitMs, lockWaitMs })
    yield* connection.sql.unsafe("PRAGMA journal_mode = WAL")
    yield* connection.sql.unsafe("CREATE TABLE rows (n INTEGER NOT NULL)")
    yield* connection.stopBlocking
    return yield* body(connection, file)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
}

const insert = (n: number) => (db: Connection.Statements) => {
  db.prepare("INSERT INTO rows (n) VALUES (?)").run(n)
  return n
}

const rows = (connection: Connection.Connection) =>
  Effect.map(connection.sql<{ readonly n: number }>`SELECT n FROM rows ORDER BY n`, (found) =>
    found.map((row) => row.n),
  )

/** Frames in the write-ahead log after a checkpoint emptied it: each commit writes every page it changed. */
const walFramesAfter = <A, E>(connection: Connection.Connection, file: string, writes: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    yield* connection.sql.unsafe("PRAGMA wal_checkpoint(TRUNCATE)")
    yield* writes
    return (statSync(`${file}-wal`).size - 32) / (4096 + 24)
  })

/** Another connection to `file` holding its write lock until `end` commits or rolls back (and closes it). */
const lockHeldByAnother = (file: string) => {
  const other = new Sqlite(file)
  other.prepare("BEGIN IMMEDIATE").run()
  return {
    other,
    end: (how: "COMMIT" | "ROLLBACK") => {
      other.prepare(how).run()
      other.close()
    },
  }
}

describe("SQLite connection", () => {
  it.live("bodies asked for together share one commit", () =>
    withConnection(20, (connection, file) =>
      Effect.gen(function* () {
        const together = yield* walFramesAfter(
          connection,
          file,
          Effect.all(
            Array.from({ length: 8 }, (_, n) => connection.exclusive(insert(n))),
            { concurrency: "unbounded" },
          ),
        )
        const oneByOne = yield* walFramesAfter(
          connection,
          file,
          Effect.forEach(
            Array.from({ length: 8 }, (_, n) => 8 + n),
            (n) => connection.exclusive(insert(n)),
          ),
        )
        // Each of the eight commits one by one rewrote the table's page; together they wrote it once.
        expect(oneByOne).toBe(8)
        expect(together).toBe(1)
        expect(yield* rows(connection)).toEqual(Array.from({ length: 16 }, (_, n) => n))
      }),
    ),
  )

  it.live("a body that throws undoes its own writes only, in a shared commit or alone", () =>
    withConnection(20, (connection) =>
      Effect.gen(function* () {
        const failing = (db: Connection.Statements) => {
          insert(99)(db)
          throw new Error("boom")
        }
        const results = yield* Effect.all(
          [connection.exclusive(insert(1)), connection.exclusive(failing), connection.exclusive(insert(2))].map(
            Effect.either,
          ),
          { concurrency: "unbounded" },
        )
        expect(results.map(Either.isRight)).toEqual([true, false, true])
        const alone = yield* Effect.either(connection.exclusive(failing))
        expect(Either.isLeft(alone) && alone.left._tag).toBe("SqlError")
        expect(yield* rows(connection)).toEqual([1, 2])
      }),
    ),
  )

  it.live("a body interrupted while it waits for company never runs; a lone writer does not wait", () =>
    withConnection(50, (connection) =>
      Effect.gen(function* () {
        // A lone writer's body commits at once: it is in before the interruption.
        const lone = yield* Effect.fork(connection.exclusive(insert(1)))
        yield* Effect.sleep("5 millis")
        yield* Fiber.interrupt(lone)
        // Another lone writer (past the 10 ms in which writes count as contended), committed; a fiber writing right
        // after it waits up to 50 ms for company: interrupted meanwhile, it never runs. No timer between the two
        // writes: on a loaded machine a sleep of a few ms often lasts past those 10 ms, and the second would not wait.
        yield* Effect.sleep("20 millis")
        yield* connection.exclusive(insert(2))
        const waiting = yield* Effect.fork(connection.exclusive(insert(3)))
        yield* Effect.yieldNow()
        yield* Fiber.interrupt(waiting)
        yield* Effect.sleep("100 millis")
        expect(yield* rows(connection)).toEqual([1, 2])
      }),
    ),
  )

  it.live("a body waits for an @effect/sql transaction open on the connection, and sees all of it", () =>
    withConnection(0, (connection) =>
      Effect.gen(function* () {
        const { sql } = connection
        const transaction = yield* Effect.fork(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO rows (n) VALUES (1)`
              yield* Effect.sleep("30 millis")
              yield* sql`INSERT INTO rows (n) VALUES (2)`
            }),
          ),
        )
        yield* Effect.sleep("5 millis")
        const seen = yield* connection.exclusive(
          (db) => (db.prepare("SELECT count(*) AS n FROM rows").get() as { readonly n: number }).n,
        )
        yield* Fiber.join(transaction)
        expect(seen).toBe(2)
      }),
    ),
  )

  it.live("a write finding the file's lock taken waits off the event loop, then goes in", () =>
    withConnection(0, (connection, file) =>
      Effect.gen(function* () {
        const { other, end } = lockHeldByAnother(file)
        other.prepare("INSERT INTO rows (n) VALUES (100)").run()
        const body = yield* Effect.fork(connection.exclusive(insert(1)))
        const statement = yield* Effect.fork(connection.sql`INSERT INTO rows (n) VALUES (2)`)
        // Both wait while the other connection holds the lock, and the event loop runs meanwhile: a timer fires on
        // time (on SQLite's busy handler it would wait for the lock, 5 s).
        const before = performance.now()
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 30)))
        expect(performance.now() - before).toBeLessThan(1000)
        expect(body.unsafePoll()).toBeNull()
        expect(statement.unsafePoll()).toBeNull()
        end("COMMIT")
        expect(yield* Fiber.join(body)).toBe(1)
        yield* Fiber.join(statement)
        expect(yield* rows(connection)).toEqual([1, 2, 100])
      }),
    ),
  )

  it.live("a write fails with SQLITE_BUSY once the lock stayed taken for lockWaitMs", () =>
    withConnection(
      0,
      (connection, file) =>
        Effect.gen(function* () {
          const { end } = lockHeldByAnother(file)
          const before = performance.now()
          const [body, statement] = yield* Effect.all(
            [
              Effect.flip(connection.exclusive(insert(1))),
              Effect.flip(connection.sql`INSERT INTO rows (n) VALUES (2)`),
            ],
            { concurrency: "unbounded" },
          )
          // Tried again for 150 ms, not for SQLite's 5 s or forever.
          expect(performance.now() - before).toBeGreaterThanOrEqual(150)
          expect(performance.now() - before).toBeLessThan(2000)
          for (const error of [body, statement])
            expect((error.cause as { readonly code: string }).code).toBe("SQLITE_BUSY")
          end("ROLLBACK")
          expect(yield* rows(connection)).toEqual([])
        }),
      150,
    ),
  )

  it.live("each body waits lockWaitMs of its own for the lock, whenever it came", () =>
    withConnection(
      0,
      (connection, file) =>
        Effect.gen(function* () {
          const { end } = lockHeldByAnother(file)
          const early = yield* Effect.fork(Effect.either(connection.exclusive(insert(1))))
          yield* Effect.sleep("400 millis")
          const late = yield* Effect.fork(Effect.either(connection.exclusive(insert(2))))
          // The early body gave up at 600 ms; the late one waits until 1000 ms, so it goes in once the lock is free.
          yield* Effect.sleep("400 millis")
          end("ROLLBACK")
          expect(Either.isLeft(yield* Fiber.join(early))).toBe(true)
          expect(yield* Fiber.join(late)).toEqual(Either.right(2))
          expect(yield* rows(connection)).toEqual([2])
        }),
      600,
    ),
  )
})
