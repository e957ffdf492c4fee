/** Runs a handler body and answers its value as JSON (or as is, when it is a ready response) and failures as the envelope. */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { EngineError } from "../Errors.js"
import type { StoreError } from "../Jobs/JobStore.js"
import * as RequestLog from "../Observability/RequestLog.js"
import type { QuotaExceeded } from "../Tenants/Quotas.js"
import { errorResponse, quotaResponse } from "./ErrorResponse.js"

const isStarted = (body: unknown): body is { readonly id: string } =>
  typeof body === "object" && body !== null && "id" in body && typeof body.id === "string"

export const respond = <E extends EngineError | StoreError | QuotaExceeded, R>(
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  effect.pipe(
    // A started job's id, for the request's log line.
    Effect.tap((body) => (isStarted(body) ? RequestLog.note({ jobId: body.id }) : Effect.void)),
    Effect.map((body) => (HttpServerResponse.isServerResponse(body) ? body : HttpServerResponse.unsafeJson(body))),
    Effect.catchAll((error) =>
      error._tag === "StoreError"
        ? // The store failing is the server's problem: logged with an id like any defect, the details not shown.
          Effect.die(error)
        : Effect.succeed(error._tag === "QuotaExceeded" ? quotaResponse(error) : errorResponse(error)),
    ),
  )
