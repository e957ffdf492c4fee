/**
 * What the one log line of a request says beyond its method, route and status: facts only the code serving it learns
 * (the job it started or read, the host a scrape went to). The HTTP layer opens a record per request (`withRecord`);
 * services add to it with `note`, which does nothing outside a request (a worker's task).
 */
import { Effect, FiberId, FiberRef, FiberRefs } from "effect"
import { globalValue } from "effect/GlobalValue"

export interface RequestFields {
  jobId?: string
  /** The target's host of a scrape (the first one, when a request scrapes several). */
  host?: string
}

const current = globalValue("@webdata/core/Observability/RequestLog", () =>
  FiberRef.unsafeMake<RequestFields | undefined>(undefined),
)

/** Runs `effect` with `fields` as the record its code notes facts in. */
export const withRecord =
  (fields: RequestFields) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, current, fields)

/** `refs` with `fields` as the record, for a fiber started on them (what `withRecord` does inside a fiber). */
export const withRecordIn = (refs: FiberRefs.FiberRefs, fields: RequestFields): FiberRefs.FiberRefs =>
  FiberRefs.updateAs(refs, { fiberId: FiberId.none, fiberRef: current, value: fields })

/** Adds what is not known yet to the current request's record (the first value of each field stays). */
export const note = (fields: RequestFields): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(current), (record) =>
    Effect.sync(() => {
      if (record === undefined) return
      if (record.jobId === undefined && fields.jobId !== undefined) record.jobId = fields.jobId
      if (record.host === undefined && fields.host !== undefined) record.host = fields.host
    }),
  )
