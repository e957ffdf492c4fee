/** JSON columns of the stores: what goes in must serialise, and what comes out must parse, or it is a `StoreError`. */
import { Effect } from "effect"
import { type NewDelivery, type StoredScrape, StoreError, type TaskDeliveries } from "./JobStore.js"

/** The JSON text of a value (`undefined` is stored as `null`). */
export const encodeJson = (value: unknown): Effect.Effect<string, StoreError> =>
  Effect.try({
    try: () => JSON.stringify(value) ?? "null",
    catch: (cause) =>
      new StoreError({ reason: "InvalidData", message: `Value is not serialisable to JSON: ${cause}`, cause }),
  })

/** The JSON text of a kept scrape's document: the caller's when it gave it. */
export const encodeScrapeDocument = (scrape: StoredScrape): Effect.Effect<string, StoreError> =>
  scrape.documentJson !== undefined ? Effect.succeed(scrape.documentJson) : encodeJson(scrape.document)

/** The JSON text of an optional value (absent stays absent). */
export const encodeOptionalJson = (value: unknown): Effect.Effect<string | undefined, StoreError> =>
  value === undefined ? Effect.succeed(undefined) : encodeJson(value)

const unparsable = (cause: unknown) =>
  new StoreError({ reason: "InvalidData", message: `Stored JSON does not parse: ${cause}`, cause })

export const decodeJson = (text: string): Effect.Effect<unknown, StoreError> =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: unparsable })

/** `decodeJson` outside Effect: throws its `StoreError`. */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw unparsable(cause)
  }
}

/** A webhook delivery with its payload as JSON text, as a store writes it. */
export interface EncodedDelivery {
  readonly jobId: string
  readonly json: string
  readonly createdAt: number
}

/** A delivery's payload as JSON text, before the write that queues it. */
export const encodeDelivery = ({
  jobId,
  payload,
  createdAt,
}: NewDelivery): Effect.Effect<EncodedDelivery, StoreError> =>
  Effect.map(encodeJson(payload), (json) => ({ jobId, json, createdAt }))

const encodeOptionalDelivery = (delivery: NewDelivery | undefined) =>
  delivery === undefined ? Effect.succeed(undefined) : encodeDelivery(delivery)

export interface EncodedTaskDeliveries {
  readonly page: EncodedDelivery | undefined
  readonly completed: EncodedDelivery | undefined
}

/** A task's deliveries encoded before the commit that queues them, so that a payload that is not JSON writes nothing. */
export const encodeTaskDeliveries = (
  deliveries: TaskDeliveries | undefined,
): Effect.Effect<EncodedTaskDeliveries, StoreError> =>
  Effect.all({
    page: encodeOptionalDelivery(deliveries?.page),
    completed: encodeOptionalDelivery(deliveries?.completed),
  })

/**
 * What a `completeTask` that recorded its outcome queues, in this order (a job's deliveries are sent in the order
 * they were queued): the page's delivery, then the job's `completed` when the call `finished` the job.
 */
export const deliveriesToQueue = (
  { page, completed }: EncodedTaskDeliveries,
  finished: boolean,
): ReadonlyArray<EncodedDelivery> => [
  ...(page !== undefined ? [page] : []),
  ...(finished && completed !== undefined ? [completed] : []),
]
