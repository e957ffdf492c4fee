/**
 * A job's tasks run later, often in another process, so their spans cannot nest under the request that started the
 * job by fiber context alone. The job's stored options keep the starting span as a W3C `traceparent`, and each task
 * runs under it: request → job → task → fetch → content is one trace, whichever worker runs the task.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Effect, Option } from "effect"
import { encodeSpec, type JobSpec } from "../Jobs/JobSpec.js"

const FIELD = "traceparent"

/** The spec as `NewJob.options`, with the current span as its parent for the job's tasks (decoding ignores it). */
export const encodeTraced = (spec: JobSpec): Effect.Effect<unknown> =>
  Effect.map(Effect.option(Effect.currentSpan), (span) => {
    const options = encodeSpec(spec) as Record<string, unknown>
    const parent = Option.isSome(span) ? HttpTraceContext.toHeaders(span.value)[FIELD] : undefined
    return parent === undefined ? options : { ...options, [FIELD]: parent }
  })

/** Runs `effect` (a task of the job whose options these are) as a child of the span that started the job. */
export const underJob =
  (options: unknown) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const parent =
      typeof options === "object" && options !== null && FIELD in options && typeof options[FIELD] === "string"
        ? HttpTraceContext.w3c(Headers.fromInput({ [FIELD]: options[FIELD] }))
        : Option.none()
    return Option.isSome(parent) ? Effect.withParentSpan(effect, parent.value) : effect
  }
