/**
 * Work news between processes over LISTEN/NOTIFY. Writes that add due work notify `work` and cancellations notify
 * `cancel:<jobId>`, inside their transaction: Postgres delivers a notification at commit, and only then. The channel
 * is named after the schema, so deployments sharing a database do not wake each other.
 */
import type { PgClient } from "@effect/sql-pg"
import type { JobStoreShape } from "@webdata/core/jobs"
import { Cause, Duration, Effect, Option, Schedule, Stream } from "effect"

type WorkEvent = Stream.Stream.Success<JobStoreShape["news"]>

export const channel = (schema: string): string => `${schema}_work`

export const WORK_ADDED = "work"
const CANCELLED = "cancel:"
const PING = "ping"

export const jobCancelled = (jobId: string): string => `${CANCELLED}${jobId}`

const toEvent = (payload: string): Option.Option<WorkEvent> =>
  payload === WORK_ADDED
    ? Option.some({ _tag: "WorkAdded" })
    : payload.startsWith(CANCELLED)
      ? Option.some({ _tag: "JobCancelled", jobId: payload.slice(CANCELLED.length) })
      : Option.none()

/** A session that heard not even its own pings: its connection is gone. */
class Silence extends Error {
  override readonly name = "Silence"
}

/** Listening again after a lost connection: quickly at first, then every 30 s; from scratch after a good minute. */
const relisten = Schedule.exponential("500 millis").pipe(
  Schedule.union(Schedule.spaced("30 seconds")),
  Schedule.resetAfter("1 minute"),
)

/**
 * The news of `channel`, for as long as it is pulled; it never fails. PgClient's LISTEN connection ignores its own
 * errors, so a lost connection would look like a quiet one: each session notifies itself a `ping` every `heartbeat`,
 * and one that heard nothing (ping or news) for three heartbeats is ended and started again on a fresh connection.
 * A session that fails (the server is down) is logged and started again with a capped backoff.
 */
export const stream = (
  pg: PgClient.PgClient,
  channel: string,
  heartbeat: Duration.DurationInput = "20 seconds",
): Stream.Stream<WorkEvent> => {
  // Not `pg.notify`: it sends `NOTIFY channel, $1`, which Postgres cannot take as a prepared statement.
  const pings = Stream.fromSchedule(Schedule.spaced(heartbeat)).pipe(
    Stream.mapEffect(() => pg`SELECT pg_notify(${channel}, ${PING})`),
    Stream.drain,
  )
  const silence = Duration.times(Duration.decode(heartbeat), 3)
  const session = pg.listen(channel).pipe(
    Stream.merge(pings),
    Stream.timeoutFail(() => new Silence(`No notification for ${Duration.format(silence)}`), silence),
    Stream.filterMap(toEvent),
    Stream.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Stream.empty
        : Stream.drain(Stream.fromEffect(Effect.logWarning("Lost the PostgreSQL work news; listening again", cause))),
    ),
  )
  return Stream.repeat(session, relisten)
}
