/** Extract over HTTP: start, and status with the merged data, in Firecrawl v2's shapes. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Extract, extractStatusBody } from "../Extract.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { callerOwner, checkJobId } from "./JobHandlers.js"
import { respond } from "./Respond.js"

export const ExtractHandlers = HttpApiBuilder.group(WebdataApi, "extract", (handlers) =>
  Effect.map(Extract, (extract) =>
    handlers
      .handleRaw("extract", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const started = yield* extract.start(yield* readJsonBody(request), yield* callerOwner)
            return {
              success: true as const,
              id: started.job.id,
              urlTrace: [],
              ...(started.invalidURLs.length > 0 ? { invalidURLs: started.invalidURLs } : {}),
            }
          }),
        ),
      )
      .handleRaw("extractStatus", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const view = yield* extract.status(yield* checkJobId(path.id), yield* callerOwner)
            return extractStatusBody(view)
          }),
        ),
      ),
  ),
)
