/**
 * The agent: a goal in words reached by a model that searches, maps, reads and extracts pages one step at a time
 * (`Agent/AgentSteps.ts`), within a hard budget. A run is a durable job; its steps are its records, shown in its
 * status and streamed to the library.
 */
import { Context, Effect, Layer, Option, Stream } from "effect"
import { type AgentStep, spentBy } from "./Agent/AgentStep.js"
import { publicStep, stepTask } from "./Agent/AgentSteps.js"
import { AgentRequest, DEFAULT_AGENT_CREDITS } from "./Domain/AgentRequest.js"
import { decodeStrict } from "./Domain/Decode.js"
import { partitionUrls, withScheme } from "./Domain/Url.js"
import { RequestError } from "./Errors.js"
import { JobControl } from "./Jobs/JobControl.js"
import { type AgentSpec, decodeSpec } from "./Jobs/JobSpec.js"
import { type Job, JobStore, type StoreError } from "./Jobs/JobStore.js"
import { JobsConfig } from "./Jobs/JobsConfig.js"
import type { Owner } from "./Jobs/Owner.js"
import { announce, checkWebhookTarget, Webhooks } from "./Jobs/Webhooks.js"
import { WorkQueue } from "./Jobs/WorkQueue.js"
import { Llm } from "./Llm/Llm.js"
import { UrlGuard } from "./Net/UrlGuard.js"
import { encodeTraced } from "./Observability/JobTrace.js"
import { llmNotConfigured } from "./Scrape/Capabilities.js"

/** Steps and model tokens a run may take at most, whatever its credits. */
export const MAX_AGENT_STEPS = 30
export const MAX_AGENT_TOKENS = 1_000_000

export type PublicStep = ReturnType<typeof publicStep>

export interface AgentStatusView {
  readonly job: Job
  readonly status: "processing" | "completed" | "failed" | "cancelled"
  readonly data?: unknown
  readonly error?: string
  readonly model: string
  readonly creditsUsed: number
  readonly tokensUsed: number
  readonly steps: ReadonlyArray<PublicStep>
}

export class Agent extends Context.Tag("@webdata/core/Agent")<
  Agent,
  {
    readonly start: (input: unknown, owner: Owner) => Effect.Effect<Job, RequestError | StoreError>
    readonly status: (id: string, owner: Owner) => Effect.Effect<AgentStatusView, RequestError | StoreError>
    /** Cancels a running agent; 409 when it has already ended. */
    readonly cancel: (id: string, owner: Owner) => Effect.Effect<void, RequestError | StoreError>
    /** The run's steps as they are recorded, ending with the run. */
    readonly steps: (id: string, owner: Owner) => Stream.Stream<PublicStep, RequestError | StoreError>
  }
>() {}

const decodeRequest = decodeStrict(AgentRequest)

/** The status answer of the API. */
export const agentStatusBody = (view: AgentStatusView) => ({
  success: view.status !== "failed",
  status: view.status,
  ...(view.data !== undefined ? { data: view.data } : {}),
  ...(view.error !== undefined ? { error: view.error } : {}),
  model: view.model,
  expiresAt: new Date(view.job.expiresAt).toISOString(),
  creditsUsed: view.creditsUsed,
  tokensUsed: view.tokensUsed,
  steps: view.steps,
})

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const control = yield* JobControl
  const config = yield* JobsConfig
  const queue = yield* WorkQueue
  const webhooks = yield* Webhooks
  const guard = yield* UrlGuard
  const model = yield* Effect.serviceOption(Llm)

  const start = Effect.fn("Agent.start")(function* (input: unknown, owner: Owner) {
    const request = yield* decodeRequest(input)
    yield* queue.admit
    if (Option.isNone(model)) return yield* llmNotConfigured("The agent")
    const { valid: urls, invalid } = yield* partitionUrls(request.urls ?? [])
    if (invalid.length > 0)
      return yield* new RequestError({
        reason: "Validation",
        code: "BAD_REQUEST",
        message: `Invalid URLs: ${invalid.slice(0, 5).join(", ")}`,
      })
    if (request.strictConstrainToURLs && urls.length === 0)
      return yield* new RequestError({
        reason: "Validation",
        code: "BAD_REQUEST",
        message: "strictConstrainToURLs needs `urls` to constrain the agent to.",
      })
    yield* checkWebhookTarget(guard, request.webhook)
    const spec: AgentSpec = {
      kind: "agent",
      prompt: request.prompt,
      urls: urls.map(withScheme),
      ...(request.schema !== undefined ? { schema: request.schema } : {}),
      strictConstrainToURLs: request.strictConstrainToURLs,
      maxCredits: request.maxCredits ?? DEFAULT_AGENT_CREDITS,
      maxSteps: MAX_AGENT_STEPS,
      maxTokens: MAX_AGENT_TOKENS,
      model: request.model ?? model.value.model,
    }
    const now = Date.now()
    const job = yield* store.createJob(
      {
        kind: "agent",
        owner,
        options: yield* encodeTraced(spec),
        // Every step is a task, and the one after the last may be admitted only to find the budget spent.
        limit: spec.maxSteps + 1,
        maxConcurrency: 1,
        ...(request.webhook !== undefined ? { webhook: request.webhook } : {}),
        zeroDataRetention: request.zeroDataRetention ?? false,
        createdAt: now,
        expiresAt: now + config.jobTtlMs,
      },
      [stepTask(0)],
    )
    yield* queue.notify({ jobId: job.id, kind: "agent" })
    yield* announce(webhooks, job, "started")
    return job
  })

  const status = Effect.fn("Agent.status")(function* (id: string, owner: Owner) {
    const job = yield* control.get("agent", id, owner)
    const spec = yield* decodeSpec(job.options)
    const steps = (yield* store.documents(id, { skip: 0, limit: MAX_AGENT_STEPS + 2 })).map(
      (entry) => entry.document as AgentStep,
    )
    const final = steps.find((step) => step.final === true)
    const spent = spentBy(steps)
    const status =
      job.status === "scraping"
        ? "processing"
        : job.status === "completed" && final === undefined
          ? "failed"
          : job.status
    return {
      job,
      status,
      ...(final !== undefined ? { data: final.data ?? null } : {}),
      ...(status === "failed" ? { error: job.error ?? "The agent ended without an answer." } : {}),
      model: spec.kind === "agent" ? spec.model : "",
      creditsUsed: spent.credits,
      tokensUsed: spent.tokens,
      steps: steps.map(publicStep),
    } satisfies AgentStatusView
  })

  const cancel = Effect.fn("Agent.cancel")(function* (id: string, owner: Owner) {
    const job = yield* control.get("agent", id, owner)
    if (job.status !== "scraping")
      return yield* new RequestError({
        reason: "Conflict",
        code: "JOB_ALREADY_COMPLETED",
        message: job.status === "cancelled" ? "Agent is already cancelled" : "Agent already finished",
      })
    yield* control.cancel("agent", id, owner)
    yield* announce(webhooks, job, "cancelled")
  })

  const steps = (id: string, owner: Owner): Stream.Stream<PublicStep, RequestError | StoreError> =>
    Stream.unwrap(
      Effect.map(control.get("agent", id, owner), () =>
        Stream.map(control.documents(id, 0), (document) => publicStep(document as unknown as AgentStep)),
      ),
    )

  return { start, status, cancel, steps }
})

export const layer: Layer.Layer<Agent, never, JobStore | JobControl | JobsConfig | WorkQueue | Webhooks | UrlGuard> =
  Layer.effect(Agent, make)
