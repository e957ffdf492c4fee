/** The records of `JobStore.putRecord` and the rest, each operation one script of `scripts/records.ts`. */
import { encodeJson, type JobStoreShape, type StoreError } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import { fieldsOf, toStoredRecord } from "./Records.js"
import { type Arg, asList, type Reply, type Script } from "./Script.js"
import * as records from "./scripts/records.js"

type StoredRecords = Pick<JobStoreShape, "putRecord" | "getRecord" | "listRecords" | "dueRecords" | "deleteRecord">

const one = (reply: Reply) => Effect.map(toStoredRecord(fieldsOf(reply)), Option.fromNullable)

const many = (reply: Reply) =>
  Effect.map(
    Effect.forEach(asList(reply), (hash) => toStoredRecord(fieldsOf(hash))),
    (found) => found.filter((record) => record !== undefined),
  )

/** The operations on `exec`, which runs a script with the store's prefix. */
export const make = (
  exec: (target: Script, args?: ReadonlyArray<Arg>) => Effect.Effect<Reply, StoreError>,
): StoredRecords => ({
  putRecord: (write) =>
    Effect.flatMap(encodeJson(write.value), (json) =>
      Effect.flatMap(
        exec(records.putRecord, [
          write.kind,
          write.id,
          write.expectedVersion ?? "",
          write.now,
          ...(write.owner !== null ? ["owner", write.owner] : []),
          ...(write.parent !== undefined ? ["parent", write.parent] : []),
          ...(write.label !== undefined ? ["label", write.label] : []),
          ...(write.dueAt !== undefined ? ["dueAt", write.dueAt] : []),
          ...(write.expiresAt !== undefined ? ["expiresAt", write.expiresAt] : []),
          ...["value", json],
        ]),
        one,
      ),
    ),

  getRecord: (kind, id) => Effect.flatMap(exec(records.getRecord, [kind, id]), one),

  listRecords: (query) =>
    query.limit <= 0
      ? Effect.succeed([])
      : Effect.flatMap(
          exec(records.listRecords, [
            query.kind,
            query.owner === undefined ? "any" : query.owner === null ? "null" : "is",
            query.owner ?? "",
            query.parent === undefined ? 0 : 1,
            query.parent ?? "",
            query.label === undefined ? 0 : 1,
            query.label ?? "",
            Math.max(0, Math.trunc(query.offset)),
            Math.trunc(query.limit),
          ]),
          many,
        ),

  dueRecords: (kind, now, limit) =>
    limit <= 0 ? Effect.succeed([]) : Effect.flatMap(exec(records.dueRecords, [kind, now, Math.trunc(limit)]), many),

  deleteRecord: (kind, id) => Effect.map(exec(records.deleteRecord, [kind, id]), Number),
})
