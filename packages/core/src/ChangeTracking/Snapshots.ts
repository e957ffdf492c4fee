/**
 * The snapshots change tracking compares against: per owner, normalized URL and tag, the page as last seen (its
 * normalized markdown, its extracted JSON, when, by which scrape) and the one before it. Kept as job-store records, so
 * every process of a deployment shares them and they survive restarts.
 *
 * A snapshot is written by a `writer` (a job, a monitor check, or the scrape itself). When the same writer writes again
 * (a task that ran twice because its first lease was lost), it is compared with the snapshot before its own first
 * write, so a retried page still reports the change instead of "same".
 */
import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import type { JobStoreShape, StoreError } from "../Jobs/JobStore.js"

/** One sighting of a page. */
export interface Snapshot {
  /** Normalized markdown (`Normalize.ts`), without the ignore patterns applied: those apply when comparing. */
  readonly markdown: string
  readonly json?: unknown
  /** Epoch ms of the scrape. */
  readonly at: number
  readonly scrapeId: string
  readonly writer: string
  /** The page answered 404 or 410. */
  readonly gone: boolean
}

interface Stored {
  readonly current: Snapshot
  readonly previous?: Snapshot
}

export interface SnapshotKey {
  readonly owner: string | null
  /** The page's normalized URL. */
  readonly url: string
  readonly tag: string | null
}

const KIND = "snapshot"
/** Concurrent writers of one snapshot (two scrapes of a page at once) retry the compare-and-set this often. */
const MAX_ATTEMPTS = 5

const idOf = (key: SnapshotKey): string =>
  createHash("sha256")
    .update(`${key.owner ?? ""}\u0000${key.url}\u0000${key.tag ?? ""}`)
    .digest("hex")

/**
 * Stores `next` as the page's latest snapshot, kept until `expiresAt`, and answers the one to compare it with (none:
 * the page was never seen under this key).
 */
export const swapSnapshot = (
  store: JobStoreShape,
  key: SnapshotKey,
  next: Snapshot,
  expiresAt: number,
): Effect.Effect<Option.Option<Snapshot>, StoreError> =>
  Effect.gen(function* () {
    for (let attempt = 1; ; attempt++) {
      const found = yield* store.getRecord(KIND, idOf(key))
      const stored = Option.map(found, (record) => record.value as Stored)
      const base = Option.flatMap(stored, (value) =>
        Option.fromNullable(value.current.writer === next.writer ? value.previous : value.current),
      )
      const written = yield* store.putRecord({
        kind: KIND,
        id: idOf(key),
        owner: key.owner,
        value: { current: next, ...(Option.isSome(base) ? { previous: base.value } : {}) } satisfies Stored,
        now: next.at,
        expiresAt,
        expectedVersion: Option.match(found, { onNone: () => 0, onSome: (record) => record.version }),
      })
      if (Option.isSome(written) || attempt >= MAX_ATTEMPTS) return base
    }
  })
