/** The counters' rule shared by every store (`JobStore.addToCounter`): what may be added to one. */
import { Effect } from "effect"
import { StoreError } from "./JobStore.js"

/**
 * `by` when it is a whole number from 0 to 2^53 - 1, else "InvalidData": every store then adds it exactly and alike
 * (SQLite would keep a fraction as REAL, Redis's INCRBY refuses one), and a counter never goes down.
 */
export const counterIncrement = (by: number): Effect.Effect<number, StoreError> =>
  Number.isSafeInteger(by) && by >= 0
    ? Effect.succeed(by)
    : Effect.fail(
        new StoreError({ reason: "InvalidData", message: `A counter takes a whole number of at least 0, not ${by}` }),
      )
