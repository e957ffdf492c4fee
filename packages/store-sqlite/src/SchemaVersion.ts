/**
 * The schema version of a file, and the wait for it to be the one this build knows. When two processes open a fresh
 * file at once, both run the Migrator: the one whose insert into the migrations table fails (the other holds the
 * write lock, or committed first) stands back and returns at once, with nothing run, possibly while the other is
 * still migrating. Without this wait it would then run statements on tables that are not there yet.
 */
import { SqlClient } from "@effect/sql"
import { StoreError } from "@webdata/core/jobs"
import { Duration, Effect, Schedule } from "effect"
import { loader } from "./migrations/index.js"

/** The Migrator's table of applied migrations (its default name: the files made so far have it). */
export const table = "effect_sql_migrations"

/** How often the version is read again while another process migrates. */
const POLL = Duration.millis(50)

/** The latest migration this build knows (a loader made from a record cannot fail). */
const known = Effect.orDie(Effect.map(loader, (migrations) => Math.max(0, ...migrations.map(([id]) => id))))

/**
 * Waits up to `waitMs` until the file's latest applied migration is at least the latest this build knows (a newer
 * build's file is used: migrations only add, so an older process keeps working on it during a rollout).
 */
export const awaitKnown = Effect.fn("SchemaVersion.awaitKnown")(function* (filename: string, waitMs: number) {
  const sql = yield* SqlClient.SqlClient
  const needed = yield* known
  const applied = Effect.map(
    sql<{ readonly id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(table)}`,
    (rows) => rows[0]?.id ?? 0,
  )
  const reached = yield* Effect.repeat(
    applied,
    Schedule.recurWhile((version: number) => version < needed).pipe(
      Schedule.addDelay(() => POLL),
      Schedule.upTo(Duration.millis(waitMs)),
    ),
  ).pipe(
    Effect.mapError(
      (cause) =>
        new StoreError({
          reason: "Unavailable",
          message: `Cannot read the schema version of ${filename}: ${cause.message}`,
          cause,
        }),
    ),
  )
  if (reached >= needed) return
  return yield* new StoreError({
    reason: "Unavailable",
    message: `The schema of ${filename} is at version ${reached}, this build needs ${needed}: another process is migrating it (waited ${waitMs} ms) or its migration failed`,
  })
})
