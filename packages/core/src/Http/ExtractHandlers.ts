/** Extract over HTTP: start, and status with the merged data, in Firecrawl v2's shapes. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Context, Effect } from "effect"
import { Extract, extractStatusBody } from "../Extract.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { callerOwner, checkJobId } from "./JobHandlers.js"
import { confirmJobSlot } from "./JobSlot.js"
import { respond } from "./Respond.js"

/** Starts an extract of the caller from a v2 extract body; answers its id as Firecrawl does. */
export const startExtract = (extract: Context.Tag.Service<Extract>, body: unknown) =>
  Effect.gen(function* () {
    const started = yield* extract.start(body, yield* callerOwner)
    yield* confirmJobSlot(started.job)
    return {
      success: true as const,
      id: started.job.id,
      urlTrace: [],
      ...(started.invalidURLs.length > 0 ? { invalidURLs: started.invalidURLs } : {}),
    }
  })

export const ExtractHandlers = HttpApiBuilder.group(WebdataApi, "extract", (handlers) =>
  Effect.map(Extract, (extract) =>
    handlers
      .handleRaw("extract", ({ request }) =>
        respond(Effect.flatMap(readJsonBody(request), (body) => startExtract(extract, body))),
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
