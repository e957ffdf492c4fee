/** Monitors over HTTP, in Firecrawl v2's shapes: CRUD, a manual run, the checks and a check's pages. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { RequestError } from "../Errors.js"
import { CHECK_STATUSES, PAGE_STATUSES } from "../Monitor/Records.js"
import { Monitor } from "../Monitor.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { callerMayIgnoreRobots, callerOwner } from "./JobHandlers.js"
import { publicBase } from "./PublicUrl.js"
import { respond } from "./Respond.js"

/** A `status` filter among `allowed`, or a 400 naming them. */
const statusFilter = <A extends string>(value: string | undefined, allowed: ReadonlyArray<A>) =>
  value === undefined || (allowed as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as A | undefined)
    : Effect.fail(
        new RequestError({
          reason: "Validation",
          code: "BAD_REQUEST",
          message: `Invalid status "${value.slice(0, 50)}": expected one of ${allowed.join(", ")}`,
        }),
      )

export const MonitorHandlers = HttpApiBuilder.group(WebdataApi, "monitor", (handlers) =>
  Effect.map(Monitor, (monitors) =>
    handlers
      .handleRaw("monitorCreate", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const data = yield* monitors.create(
              yield* readJsonBody(request),
              yield* callerOwner,
              yield* callerMayIgnoreRobots,
            )
            return { success: true as const, data }
          }),
        ),
      )
      .handleRaw("monitorList", ({ urlParams }) =>
        respond(
          Effect.map(
            Effect.flatMap(callerOwner, (owner) => monitors.list(owner, urlParams)),
            (data) => ({
              success: true as const,
              data,
            }),
          ),
        ),
      )
      .handleRaw("monitorGet", ({ path }) =>
        respond(
          Effect.map(
            Effect.flatMap(callerOwner, (owner) => monitors.get(path.id, owner)),
            (data) => ({
              success: true as const,
              data,
            }),
          ),
        ),
      )
      .handleRaw("monitorUpdate", ({ path, request }) =>
        respond(
          Effect.gen(function* () {
            const data = yield* monitors.update(
              path.id,
              yield* readJsonBody(request),
              yield* callerOwner,
              yield* callerMayIgnoreRobots,
            )
            return { success: true as const, data }
          }),
        ),
      )
      .handleRaw("monitorDelete", ({ path }) =>
        respond(
          Effect.as(
            Effect.flatMap(callerOwner, (owner) => monitors.delete(path.id, owner)),
            { success: true as const },
          ),
        ),
      )
      .handleRaw("monitorRun", ({ path }) =>
        respond(
          Effect.map(
            Effect.flatMap(callerOwner, (owner) => monitors.run(path.id, owner)),
            (data) => ({
              success: true as const,
              id: data.id,
              data,
            }),
          ),
        ),
      )
      .handleRaw("monitorChecks", ({ path, urlParams }) =>
        respond(
          Effect.gen(function* () {
            const status = yield* statusFilter(urlParams.status, CHECK_STATUSES)
            const data = yield* monitors.checks(path.id, yield* callerOwner, { ...urlParams, status })
            return { success: true as const, data }
          }),
        ),
      )
      .handleRaw("monitorCheck", ({ path, urlParams, request }) =>
        respond(
          Effect.gen(function* () {
            const status = yield* statusFilter(urlParams.status, PAGE_STATUSES)
            const { check, nextSkip } = yield* monitors.check(path.id, path.checkId, yield* callerOwner, {
              ...urlParams,
              status,
            })
            const query = new URLSearchParams({
              skip: String(nextSkip ?? 0),
              ...(urlParams.limit !== undefined ? { limit: String(urlParams.limit) } : {}),
              ...(status !== undefined ? { status } : {}),
            })
            const next =
              nextSkip === undefined
                ? null
                : `${publicBase(request)}/v2/monitor/${path.id}/checks/${path.checkId}?${query.toString()}`
            return { success: true as const, next, data: { ...check, next } }
          }),
        ),
      ),
  ),
)
