/**
 * The counters of `JobStore.addToCounter` (one script: INCRBY, its expiry and its time index, in one round trip) and
 * `readCounters` (one MGET).
 */
import { counterIncrement, type JobStoreShape, type StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"
import type { Redis } from "ioredis"
import { keys } from "./Keys.js"
import { decoding } from "./Records.js"
import { type Arg, command, type Reply, type Script } from "./Script.js"
import * as counters from "./scripts/counters.js"

type Counters = Pick<JobStoreShape, "addToCounter" | "readCounters">

const INTEGER = /^-?\d+$/

/** A counter's stored text (null: no such counter, 0). */
const toValue = (text: string | null): number => {
  if (text === null) return 0
  if (!INTEGER.test(text)) throw new Error(`${JSON.stringify(text)} is not an integer`)
  return Number(text)
}

/** The operations on `redis` under `prefix`; `exec` runs a script with the prefix. */
export const make = (
  redis: Redis,
  prefix: string,
  exec: (target: Script, args?: ReadonlyArray<Arg>) => Effect.Effect<Reply, StoreError>,
): Counters => {
  const key = keys(prefix)
  return {
    addToCounter: (name, by, expiresAt) =>
      Effect.flatMap(counterIncrement(by), (amount) =>
        Effect.map(exec(counters.addToCounter, [name, amount, expiresAt]), Number),
      ),

    readCounters: (names) =>
      names.length === 0
        ? Effect.succeed([])
        : Effect.flatMap(
            command("MGET", () => redis.mget(names.map(key.counter))),
            (texts) => decoding("counter", () => texts.map(toValue)),
          ),
  }
}
