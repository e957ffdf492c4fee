/** The rows of this store's tables: core's SQL rows (shared with the SQLite store), and what only this store reads. */
import type { StoreError } from "@webdata/core/jobs"
import type { Int8 } from "@webdata/core/sql-rows"
import { Array as Arr, Effect, type Option } from "effect"

export * from "@webdata/core/sql-rows"

/** The row of a `SELECT count(*)`. */
export interface CountRow {
  readonly count: Int8
}

export const toCount = (rows: ReadonlyArray<CountRow>): number => Number(rows[0]?.count ?? 0)

/** The first row of a read, decoded; none when the read found nothing. */
export const decodeFirst =
  <Row, A>(decode: (row: Row) => Effect.Effect<A, StoreError>) =>
  (rows: ReadonlyArray<Row>): Effect.Effect<Option.Option<A>, StoreError> =>
    Arr.match(rows, { onEmpty: () => Effect.succeedNone, onNonEmpty: ([row]) => Effect.asSome(decode(row)) })
