/**
 * Reading and writing monitor records. Every write goes through `updateMonitor`, a compare-and-set loop, so that a
 * user's PATCH and a worker's claim never overwrite each other, and every write sets the record's due time from the
 * state: a pending claim is due again once its claimer may have died, an active monitor at its next run, a paused one
 * never.
 */
import { Effect, Option } from "effect"
import type { JobStoreShape, StoredRecord, StoreError } from "../Jobs/JobStore.js"
import { MONITOR, type MonitorState } from "./Records.js"

/** A claim whose job is not made after this long is taken over by the next worker that sees the monitor due. */
export const CLAIM_LEASE_MS = 60_000

export interface MonitorRecord {
  readonly record: StoredRecord
  readonly state: MonitorState
}

export const dueAtOf = (state: MonitorState): number | undefined =>
  state.pending !== undefined
    ? state.pending.claimedAt + CLAIM_LEASE_MS
    : state.status === "active" && state.nextRunAt !== null
      ? state.nextRunAt
      : undefined

/** Whether a sweep at `now` finds the monitor's run due: its time has come, or its claimer may have died. */
export const isDue = (state: MonitorState, now: number): boolean => {
  const dueAt = dueAtOf(state)
  return dueAt !== undefined && dueAt <= now
}

export const asMonitor = (record: StoredRecord): MonitorRecord => ({ record, state: record.value as MonitorState })

export const getMonitor = (store: JobStoreShape, id: string): Effect.Effect<Option.Option<MonitorRecord>, StoreError> =>
  Effect.map(store.getRecord(MONITOR, id), Option.map(asMonitor))

/** Writes `state` over the version read in `current` (`0`-version for a new monitor): none when another write won. */
export const putMonitor = (
  store: JobStoreShape,
  id: string,
  owner: string | null,
  state: MonitorState,
  now: number,
  expectedVersion: number,
): Effect.Effect<Option.Option<MonitorRecord>, StoreError> => {
  const dueAt = dueAtOf(state)
  return Effect.map(
    store.putRecord({
      kind: MONITOR,
      id,
      owner,
      label: state.status,
      ...(dueAt !== undefined ? { dueAt } : {}),
      value: state,
      now,
      expectedVersion,
    }),
    Option.map(asMonitor),
  )
}

/**
 * Applies `change` to the monitor's latest state until the write wins. `change` answers the new state, or none to
 * write nothing; the answer is the monitor as written (none when it does not exist or nothing was written).
 */
export const updateMonitor = (
  store: JobStoreShape,
  id: string,
  change: (current: MonitorRecord) => Option.Option<MonitorState>,
  now: () => number = Date.now,
): Effect.Effect<Option.Option<MonitorRecord>, StoreError> =>
  Effect.gen(function* () {
    while (true) {
      const found = yield* getMonitor(store, id)
      if (Option.isNone(found)) return Option.none()
      const next = change(found.value)
      if (Option.isNone(next)) return Option.none()
      const { record } = found.value
      const written = yield* putMonitor(store, id, record.owner, next.value, now(), record.version)
      if (Option.isSome(written)) return written
    }
  })
