/** The agent over HTTP: start, status with its steps, cancel, in Firecrawl v2's shapes. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Agent, agentStatusBody } from "../Agent.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { callerOwner, checkJobId } from "./JobHandlers.js"
import { confirmJobSlot } from "./JobSlot.js"
import { respond } from "./Respond.js"

export const AgentHandlers = HttpApiBuilder.group(WebdataApi, "agent", (handlers) =>
  Effect.map(Agent, (agent) =>
    handlers
      .handleRaw("agent", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const job = yield* agent.start(yield* readJsonBody(request), yield* callerOwner)
            yield* confirmJobSlot(job)
            return { success: true as const, id: job.id }
          }),
        ),
      )
      .handleRaw("agentStatus", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const view = yield* agent.status(yield* checkJobId(path.id), yield* callerOwner)
            return agentStatusBody(view)
          }),
        ),
      )
      .handleRaw("agentCancel", ({ path }) =>
        respond(
          Effect.gen(function* () {
            yield* agent.cancel(yield* checkJobId(path.id), yield* callerOwner)
            return { success: true as const }
          }),
        ),
      ),
  ),
)
