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
 *
 * Once open, the connection does not sleep on SQLite's busy handler: that would stop the event loop (better-sqlite3
 * is synchronous) for as long as another connection holds the file's write lock: another process's, when several
 * share the file (a server and its `webdata worker` processes). Its busy timeout is 0, and a statement or a group's
 * `BEGIN IMMEDIATE` that finds the lock taken is tried again a millisecond later, asynchronously, for up to
 * `lockWaitMs`.
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
  /**
   * From now on, waits for a lock another connection holds off the event loop (see above). Until then SQLite's busy
   * handler waits, on it: opening a fresh file (switching it to WAL, migrating it) is safest that way.
   */
  readonly stopBlocking: Effect.Effect<void>
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
  /** When it first found the file's lock taken. */
  lockTakenAt?: number
}

/** Two writes of different fibers this close together make the next ones wait for company. */
const CONTENDED_WITHIN_MS = 10

const failed = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/** SQLite's answer that another connection holds the lock (not an extended code: those a retry cannot help). */
const isLockTaken = (cause: unknown) => (cause as { readonly code?: unknown } | null)?.code === "SQLITE_BUSY"

/** How long a write waits before it tries the file's lock again. */
const LOCK_RETRY_MS = 1

/** A pause on the real clock, whatever clock the store's user runs under (a simulated one would never let it pass). */
const pause = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

export interface OpenOptions {
  /**
   * How long a write waits for others to share its commit while several fibers are writing (0: only those asked for
   * in the same turn of the scheduler); a lone writer never waits.
   */
  readonly groupCommitMs: number
  /** How long a statement keeps trying for a lock another connection holds before it fails with SQLITE_BUSY. */
  readonly lockWaitMs: number
}

/** Opens `filename` (`:memory:` for a database in memory); closed with the scope. */
export const open = (
  filename: string,
  { groupCommitMs, lockWaitMs }: OpenOptions,
): Effect.Effect<Connection, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new Sqlite(filename, { timeout: lockWaitMs }),
        catch: failed(`Cannot open ${filename}`),
      }),
      (db) => Effect.sync(() => db.close()),
    )
    /**
     * `attempt` again while the lock it needs is taken, up to `lockWaitMs` (a statement that found it so did nothing).
     * Before `stopBlocking`, SQLite's busy handler has waited as long already.
     */
    const whileLockTaken = <A>(attempt: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
      Effect.suspend(() => {
        const until = Date.now() + lockWaitMs
        const loop: Effect.Effect<A, SqlError> = Effect.catchIf(
          attempt,
          (error) => isLockTaken(error.cause) && Date.now() < until,
          () => Effect.zipRight(pause(LOCK_RETRY_MS), loop),
        )
        return loop
      })
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
      whileLockTaken(
        Effect.try({
          try: () => {
            const statement = statements.prepare(text)
            if (statement.reader) return statement.all(...params)
            const result = statement.run(...params)
            return raw ? result : []
          },
          catch: failed("Failed to execute statement"),
        }),
      )
    const connection: SqlConnection = {
      execute: (text, params, transformRows) =>
        transformRows === undefined
          ? (run(text, params, false) as Effect.Effect<ReadonlyArray<unknown>, SqlError>)
          : Effect.map(run(text, params, false) as Effect.Effect<ReadonlyArray<object>, SqlError>, transformRows),
      executeRaw: (text, params) => run(text, params, true),
      executeValues: (text, params) =>
        whileLockTaken(
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
        ),
      executeUnprepared: (text, params, transformRows) => connection.execute(text, params, transformRows),
      executeStream: () => Effect.dieMessage("executeStream is not supported") as never,
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    // The permit is held until the statement (or the transaction) ends: a statement waiting for the file's lock must
    // not find, when it tries again, another fiber's transaction opened on the connection meanwhile.
    const acquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1))),
        ),
        connection,
      ),
    )
    const sql = yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
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
    /** Fails every body of `batch` with `cause`. */
    const failAll = (batch: ReadonlyArray<Waiting>, cause: unknown) => {
      const exit = Exit.fail(failed("Failed to execute statement")(cause))
      for (const entry of batch) entry.resume(exit)
    }
    /** Commits the waiting bodies; true when the lock is taken and they should try again shortly. */
    const commitBatch = Effect.sync(() => {
      const batch = waiting.splice(0).filter((entry) => !entry.cancelled)
      if (batch.length === 0) return false
      const attemptAt = Date.now()
      try {
        control("BEGIN IMMEDIATE")
      } catch (cause) {
        // The lock is taken: the bodies that have not waited `lockWaitMs` yet try again shortly, the others fail.
        for (const entry of batch) entry.lockTakenAt ??= attemptAt
        const again = isLockTaken(cause)
          ? batch.filter((entry) => Date.now() - (entry.lockTakenAt ?? attemptAt) < lockWaitMs)
          : []
        waiting.unshift(...again)
        failAll(
          batch.filter((entry) => !again.includes(entry)),
          cause,
        )
        return again.length > 0
      }
      const shared = batch.length > 1
      const exits: Array<Exit.Exit<unknown, SqlError>> = []
      try {
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
        // COMMIT failed, or the only body threw.
        if (db.inTransaction) control("ROLLBACK")
        failAll(batch, cause)
        return false
      }
      batch.forEach((entry, index) => {
        entry.resume(exits[index]!)
      })
      return false
    })
    /** Commits what waits, trying again while the lock is taken (the semaphore left free meanwhile). */
    const commitWaiting: Effect.Effect<void> = Effect.flatMap(semaphore.withPermits(1)(commitBatch), (lockTaken) =>
      lockTaken ? Effect.zipRight(pause(LOCK_RETRY_MS), commitWaiting) : Effect.void,
    )
    const window = groupCommitMs > 0 ? pause(groupCommitMs) : Effect.yieldNow()
    yield* Effect.forkScoped(
      Effect.forever(
        Queue.take(wake).pipe(
          Effect.zipRight(
            Effect.suspend(() => (waiting.some((entry) => entry.contended) ? window : Effect.yieldNow())),
          ),
          Effect.zipRight(commitWaiting),
        ),
      ),
    )
    return {
      sql,
      stopBlocking: Effect.sync(() => {
        db.pragma("busy_timeout = 0")
      }),
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
