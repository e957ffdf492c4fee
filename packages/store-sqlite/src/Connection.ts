/**
 * The store's one connection to its file: an `@effect/sql` client over better-sqlite3 for most statements, and
 * `exclusive` for the writes every crawled page makes (lease, completion, write-behind batches), which run as plain
 * synchronous better-sqlite3 transactions on prepared statements. Through `@effect/sql` a statement costs several
 * times its own execution in fibers and spans: a loop of a crawl's store calls alone took 1.75 CPU-ms per page that
 * way and 0.95 this way (before group commit). Hence this client of our own instead of `@effect/sql-sqlite-node`'s,
 * which does not expose its handle.
 *
 * One semaphore orders both: an `@effect/sql` transaction holds it until it ends, a statement outside one takes it to
 * run, and an `exclusive` body, being synchronous, runs whole between them. So an `exclusive` body never lands inside
 * another transaction, and the connection is never asked for a second write lock while it holds one.
 */
import type * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import type { Connection as SqlConnection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import Sqlite from "better-sqlite3"
import { Effect, Exit, Queue, Scope } from "effect"

export interface Connection {
  readonly sql: SqlClient.SqlClient
  /**
   * Runs `body` in a write transaction (`BEGIN IMMEDIATE`: the write lock first, see `ImmediateTransaction`), maybe
   * shared with other bodies (group commit, below): what it wrote is committed when the effect succeeds, and undone
   * when it throws (the effect fails). It must not call back into Effect. Interrupted before it started, it never
   * runs; once started, it commits or not as a whole.
   */
  readonly exclusive: <A>(body: (db: Statements) => A) => Effect.Effect<A, SqlError>
}

/** The connection's prepared statements, by text. */
export interface Statements {
  readonly prepare: (text: string) => Sqlite.Statement
}

const PREPARED_MAX = 500

interface Waiting {
  readonly body: (db: Statements) => unknown
  readonly resume: (exit: Exit.Exit<unknown, SqlError>) => void
  /** Another fiber wrote shortly before: others are writing, so waiting for them pays. */
  readonly contended: boolean
  cancelled: boolean
}

/** Two writes of different fibers this close together make the next ones wait for company. */
const CONTENDED_WITHIN_MS = 10

const failed = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/**
 * Opens `filename` (`:memory:` for a database in memory); closed with the scope. `groupCommitMs`: how long a write
 * waits for others to share its commit while several fibers are writing (0: only those asked for in the same turn of
 * the scheduler); a lone writer never waits.
 */
export const open = (
  filename: string,
  groupCommitMs: number,
): Effect.Effect<Connection, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => new Sqlite(filename), catch: failed(`Cannot open ${filename}`) }),
      (db) => Effect.sync(() => db.close()),
    )
    // Least recently used out first: `@effect/sql`'s statements vary with their lists (`IN`, multi-row inserts).
    const prepared = new Map<string, Sqlite.Statement>()
    const statements: Statements = {
      prepare: (text) => {
        let statement = prepared.get(text)
        if (statement === undefined) {
          statement = db.prepare(text)
          if (prepared.size >= PREPARED_MAX) prepared.delete(prepared.keys().next().value as string)
        } else prepared.delete(text)
        prepared.set(text, statement)
        return statement
      },
    }
    const run = (text: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: () => {
          const statement = statements.prepare(text)
          if (statement.reader) return statement.all(...params)
          const result = statement.run(...params)
          return raw ? result : []
        },
        catch: failed("Failed to execute statement"),
      })
    const connection: SqlConnection = {
      execute: (text, params, transformRows) =>
        transformRows === undefined
          ? (run(text, params, false) as Effect.Effect<ReadonlyArray<unknown>, SqlError>)
          : Effect.map(run(text, params, false) as Effect.Effect<ReadonlyArray<object>, SqlError>, transformRows),
      executeRaw: (text, params) => run(text, params, true),
      executeValues: (text, params) =>
        Effect.try({
          try: () => {
            const statement = statements.prepare(text)
            if (!statement.reader) return []
            try {
              return statement.raw(true).all(...params) as Array<Array<unknown>>
            } finally {
              statement.raw(false)
            }
          },
          catch: failed("Failed to execute statement"),
        }),
      executeUnprepared: (text, params, transformRows) => connection.execute(text, params, transformRows),
      executeStream: () => Effect.dieMessage("executeStream is not supported") as never,
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const sql = yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(Effect.succeed(connection)),
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.zipRight(
            restore(semaphore.take(1)),
            Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1))),
          ),
          connection,
        ),
      ),
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
    })
    // Group commit: when several fibers are writing, the bodies asked for within `groupCommitMs` of the first (else
    // within one turn of the scheduler), or while the connection was busy, share a transaction, each in a savepoint of its own (one that throws undoes only itself). A commit writes every
    // database page its transaction touched: the pages of the jobs, tasks and their indexes that one crawled page
    // changes are mostly the ones the next page changes too. Measured on a crawl of small pages: ~3.5 bodies per
    // commit at 2 ms, and 15–20 % more pages/s than a commit per body (bench/README.md, "Crawl").
    const waiting: Array<Waiting> = []
    let lastWriter = -1
    let lastWriteAt = 0
    const wake = yield* Queue.sliding<void>(1)
    const control = (text: string) => statements.prepare(text).run()
    const commitBatch = Effect.sync(() => {
      const batch = waiting.splice(0).filter((entry) => !entry.cancelled)
      if (batch.length === 0) return
      const shared = batch.length > 1
      const exits: Array<Exit.Exit<unknown, SqlError>> = []
      try {
        control("BEGIN IMMEDIATE")
        for (const entry of batch) {
          if (shared) control("SAVEPOINT body")
          try {
            exits.push(Exit.succeed(entry.body(statements)))
          } catch (cause) {
            if (!shared) throw cause
            control("ROLLBACK TO body")
            exits.push(Exit.fail(failed("Failed to execute statement")(cause)))
          }
          if (shared) control("RELEASE body")
        }
        control("COMMIT")
      } catch (cause) {
        // BEGIN or COMMIT failed (another process holds the lock past the busy timeout), or the only body threw.
        if (db.inTransaction) control("ROLLBACK")
        const exit = Exit.fail(failed("Failed to execute statement")(cause))
        for (const entry of batch) entry.resume(exit)
        return
      }
      batch.forEach((entry, index) => {
        entry.resume(exits[index]!)
      })
    })
    // On the real clock, whatever clock the store's user runs under (a simulated one in tests would never let it pass).
    const window =
      groupCommitMs > 0
        ? Effect.async<void>((resume) => {
            const timer = setTimeout(() => resume(Effect.void), groupCommitMs)
            return Effect.sync(() => clearTimeout(timer))
          })
        : Effect.yieldNow()
    yield* Effect.forkScoped(
      Effect.forever(
        Queue.take(wake).pipe(
          Effect.zipRight(
            Effect.suspend(() => (waiting.some((entry) => entry.contended) ? window : Effect.yieldNow())),
          ),
          Effect.zipRight(semaphore.withPermits(1)(commitBatch)),
        ),
      ),
    )
    return {
      sql,
      exclusive: <A>(body: (db: Statements) => A) =>
        Effect.withFiberRuntime<A, SqlError>((fiber) =>
          Effect.async<A, SqlError>((resume) => {
            const now = Date.now()
            const writer = fiber.id().id
            const contended = writer !== lastWriter && now - lastWriteAt < CONTENDED_WITHIN_MS
            lastWriter = writer
            lastWriteAt = now
            const entry: Waiting = { body, resume: resume as Waiting["resume"], contended, cancelled: false }
            waiting.push(entry)
            Queue.unsafeOffer(wake, undefined)
            return Effect.sync(() => {
              entry.cancelled = true
            })
          }),
        ),
    } satisfies Connection
  })
