/** JSON columns of the stores: what goes in must serialise, and what comes out must parse, or it is a `StoreError`. */
import { Effect } from "effect"
import { StoreError } from "./JobStore.js"

/** The JSON text of a value (`undefined` is stored as `null`). */
export const encodeJson = (value: unknown): Effect.Effect<string, StoreError> =>
  Effect.try({
    try: () => JSON.stringify(value) ?? "null",
    catch: (cause) =>
      new StoreError({ reason: "InvalidData", message: `Value is not serialisable to JSON: ${cause}`, cause }),
  })

/** The JSON text of an optional value (absent stays absent). */
export const encodeOptionalJson = (value: unknown): Effect.Effect<string | undefined, StoreError> =>
  value === undefined ? Effect.succeed(undefined) : encodeJson(value)

export const decodeJson = (text: string): Effect.Effect<unknown, StoreError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) => new StoreError({ reason: "InvalidData", message: `Stored JSON does not parse: ${cause}`, cause }),
  })
