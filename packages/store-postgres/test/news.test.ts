/** Work news over LISTEN/NOTIFY between processes (stores with pools of their own) on one schema. */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { it } from "@effect/vitest"
import type { JobStoreShape } from "@webdata/core/jobs"
import { Duration, Effect, Option, Queue, Stream } from "effect"
import { describe, expect } from "vitest"
import { newJob, task } from "../../core/test/jobs/conformance.js"
import * as News from "../src/News.js"
import { rawLayer, scopedSchema, storeIn } from "./support.js"

type WorkEvent = Stream.Stream.Success<JobStoreShape["news"]>

const T0 = 1_700_000_000_000

/** The events of `news`, collected in a queue for the scope. */
const collect = (news: Stream.Stream<WorkEvent>) =>
  Effect.gen(function* () {
    const events = yield* Queue.unbounded<WorkEvent>()
    yield* Effect.forkScoped(Stream.runForEach(news, (event) => Queue.offer(events, event)))
    return events
  })

/** The next event that `accept`s, skipping others; fails the test after 10 s. */
const next = (events: Queue.Queue<WorkEvent>, accept: (event: WorkEvent) => boolean) =>
  Queue.take(events).pipe(
    Effect.repeat({ until: accept }),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("no such news within 10 s") }),
  )

/**
 * Repeats `poke` until `events` gets news (LISTEN starts asynchronously: earlier notifications are not heard), then
 * drops whatever else came meanwhile.
 */
const untilListening = <E>(events: Queue.Queue<WorkEvent>, poke: Effect.Effect<unknown, E>) =>
  Effect.gen(function* () {
    yield* poke.pipe(
      Effect.zipRight(Queue.take(events).pipe(Effect.timeout("200 millis"))),
      Effect.retry({ times: 50 }),
    )
    yield* Effect.sleep("100 millis")
    yield* Queue.takeAll(events)
  })

describe("PostgreSQL store news", () => {
  it.scopedLive("another process hears of added work and of cancellations; another schema hears nothing", () =>
    Effect.gen(function* () {
      const schema = yield* scopedSchema
      const writer = yield* storeIn(schema)
      const listener = yield* storeIn(schema)
      const events = yield* collect(listener.news)
      yield* untilListening(events, writer.createJob(newJob(), [task("/")]))

      const job = yield* writer.createJob(newJob(), [task("/")])
      expect(yield* next(events, () => true)).toEqual({ _tag: "WorkAdded" })
      expect(yield* writer.addTasks(job.id, [task("/more")], T0 + 1)).toBe(1)
      expect(yield* next(events, () => true)).toEqual({ _tag: "WorkAdded" })
      yield* writer.cancelJob(job.id, T0 + 2)
      expect(yield* next(events, (event) => event._tag === "JobCancelled")).toEqual({
        _tag: "JobCancelled",
        jobId: job.id,
      })

      // Another deployment on the same database: its news stay in its own channel.
      const elsewhere = yield* storeIn(yield* scopedSchema)
      const theirs = yield* collect(elsewhere.news)
      yield* untilListening(theirs, elsewhere.createJob(newJob(), [task("/")]))
      yield* Queue.takeAll(events)
      yield* elsewhere.createJob(newJob(), [task("/")])
      expect(Option.isSome(yield* Queue.take(theirs).pipe(Effect.timeout("5 seconds"), Effect.option))).toBe(true)
      yield* Effect.sleep("300 millis")
      expect(yield* Queue.takeAll(events)).toHaveLength(0)
    }),
  )

  it.scopedLive("news survives the loss of its connection: it listens again", () =>
    Effect.gen(function* () {
      const pg = yield* PgClient.PgClient
      const sql = yield* SqlClient.SqlClient
      const channel = News.channel(yield* scopedSchema)
      const events = yield* collect(News.stream(pg, channel, Duration.millis(200)))
      const notify = sql`SELECT pg_notify(${channel}, ${News.WORK_ADDED})`
      yield* untilListening(events, notify)

      const killed = yield* sql<{ readonly pid: number }>`
        SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE query = ${`LISTEN "${channel}"`}`
      expect(killed).toHaveLength(1)
      // Silent for three heartbeats, the session ends and a new one listens on a fresh connection.
      yield* untilListening(events, notify)
      const listening = yield* sql`SELECT pid FROM pg_stat_activity WHERE query = ${`LISTEN "${channel}"`}`
      expect(listening.map((row) => row.pid)).not.toContain(killed[0]!.pid)
    }).pipe(Effect.provide(rawLayer)),
  )
})
