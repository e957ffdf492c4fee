/**
 * One step of an agent run, as a worker runs it. A run is a chain of tasks `step:0`, `step:1`, …; each asks the model
 * for the next action given the goal and every step so far (read back from the store), runs that tool, and records
 * the step (tool, input, a short output for people, the observation for the model) in the same commit that admits the
 * next step. A killed worker's step runs again from the recorded history: nothing is lost or done twice.
 *
 * Hard limits end a run as failed with the reason: steps, model tokens and credits (one per page read, map or search,
 * and one per 1000 tokens). Calling the same tool with the same input again is not run: the model is told that branch
 * has ended, and a run that keeps repeating itself fails.
 */
import { Context, Effect, Either, Layer, Option, Ref, Schema } from "effect"
import { dedupKey } from "../Crawl/UrlKey.js"
import { Actions } from "../Domain/Actions.js"
import { prepareSchema } from "../Domain/JsonSchema.js"
import { decodeMapRequest } from "../Domain/MapRequest.js"
import { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { mapError } from "../ErrorCodes.js"
import { isWildcard } from "../Extract/ExtractTasks.js"
import type { AgentSpec } from "../Jobs/JobSpec.js"
import { type Job, JobStore, type NewTask, type StoreError, type Task } from "../Jobs/JobStore.js"
import { announce, Webhooks } from "../Jobs/Webhooks.js"
import { addUsage, type JsonSchema, Llm, NO_USAGE, type TokenUsage } from "../Llm/Llm.js"
import { LlmUsage } from "../Llm/LlmUsage.js"
import { schemaErrors } from "../Llm/SchemaValidation.js"
import { MapService } from "../Map.js"
import { availableEngines, LLM_HOW_TO } from "../Scrape/Capabilities.js"
import { Scrape } from "../Scrape.js"
import { SearchProvider } from "../Search/SearchProvider.js"
import { webResults } from "../Search.js"
import { type AgentStep, type AgentTool, spentBy } from "./AgentStep.js"

const STEP = "step:"

/** The task of step `n` of a run. */
export const stepTask = (n: number): NewTask => ({
  url: `agent:step/${n}`,
  key: `${STEP}${n}`,
  depth: n,
  host: "agent",
})

/** What one observation may hold, and the history the model is shown in all (older steps shortened first). */
const OBSERVATION_CHARS = 8000
const HISTORY_CHARS = 40_000
const OUTPUT_CHARS = 200
/** Repeated calls in a row after which a run is given up as stuck. */
const MAX_REPEATS = 3
const SEARCH_RESULTS = 8
const MAP_URLS = 100

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… (cut)`)

const SYSTEM = `You are a web research agent. You reach the user's goal one step at a time; at each step you pick ONE tool:
- search: a web search (give "query"); answers result URLs with titles.
- map: the URLs of a website (give "url"); good for finding the right page on a site.
- scrape: read a page as markdown (give "url").
- browse: open a page in a browser, act on it (click, write, press, scroll, wait) and read the result (give "url" and "actions").
- extract: pull specific data out of a page (give "url" and "prompt").
- finish: give the final answer (give "data").
Say briefly why in "thought". Never call the same tool with the same input twice. Use only facts you saw in observations. When you have what the goal needs, call finish.`

interface Action {
  readonly thought?: string
  readonly tool: AgentTool
  readonly query?: string
  readonly url?: string
  readonly prompt?: string
  readonly actions?: ReadonlyArray<unknown>
  readonly data?: unknown
}

/** What `browse` may do on a page: the actions that act, not those that produce files or run code. */
const BROWSE_ACTIONS = {
  type: "array",
  description: "browse: what to do on the page, in order",
  maxItems: 20,
  items: {
    type: "object",
    properties: {
      type: { type: "string", enum: ["click", "write", "press", "scroll", "wait"] },
      selector: { type: "string", description: "click, scroll, wait: a CSS selector" },
      text: { type: "string", description: "write: the text to type (click the field first)" },
      key: { type: "string", description: "press: a key such as Enter" },
      direction: { type: "string", enum: ["up", "down"] },
      milliseconds: { type: "integer", minimum: 1, maximum: 10000 },
    },
    required: ["type"],
  },
}

const decodeActions = Schema.decodeUnknown(Actions)

const actionSchema = (tools: ReadonlyArray<AgentTool>, answer: JsonSchema | undefined): JsonSchema => ({
  type: "object",
  properties: {
    thought: { type: "string" },
    tool: { type: "string", enum: tools },
    query: { type: "string", description: "search: the query" },
    url: { type: "string", description: "map, scrape, browse, extract: the URL" },
    prompt: { type: "string", description: "extract: what to pull out of the page" },
    ...(tools.includes("browse") ? { actions: BROWSE_ACTIONS } : {}),
    data: answer ?? { description: "finish: the final answer" },
  },
  required: ["tool"],
})

/** The input an action was called with, for the record and for loop detection. */
const inputOf = (action: Action): Record<string, unknown> => {
  switch (action.tool) {
    case "search":
      return { query: action.query ?? "" }
    case "map":
    case "scrape":
      return { url: action.url ?? "" }
    case "browse":
      return { url: action.url ?? "", actions: action.actions ?? [] }
    case "extract":
      return { url: action.url ?? "", prompt: action.prompt ?? "" }
    case "finish":
      return { data: action.data ?? null }
  }
}

const callKey = (tool: AgentTool, input: Record<string, unknown>) =>
  JSON.stringify([
    tool,
    ...Object.entries(input).map(([key, value]) => [
      key,
      typeof value === "string" ? value.trim().toLowerCase() : value,
    ]),
  ])

const dedup = { ignoreQueryParameters: false, deduplicateSimilarURLs: true }
const urlKey = (url: string) => {
  try {
    return dedupKey(url, dedup)
  } catch {
    return url
  }
}

/** Whether a strictly constrained run may read `url`: one of its URLs, or under one ending in `/*`. */
const allowedBy = (spec: AgentSpec, url: string): boolean =>
  !spec.strictConstrainToURLs ||
  spec.urls.some((allowed) =>
    isWildcard(allowed) ? url.startsWith(allowed.trim().replace(/\*$/, "")) : urlKey(allowed) === urlKey(url),
  )

const goalPrompt = (spec: AgentSpec, steps: ReadonlyArray<AgentStep>, tools: ReadonlyArray<AgentTool>): string => {
  const lines = [`Goal: ${spec.prompt}`]
  if (spec.urls.length > 0)
    lines.push(
      `${spec.strictConstrainToURLs ? "Only these URLs may be read" : "Start from these URLs"}: ${spec.urls.join(", ")}`,
    )
  if (spec.schema !== undefined)
    lines.push(`The final data must match this JSON Schema: ${JSON.stringify(spec.schema)}`)
  lines.push(`Tools available now: ${tools.join(", ")}.`)
  // The newest steps keep the most of their observations; the oldest are shortened first.
  let budget = HISTORY_CHARS
  const shown = [...steps].reverse().map((step) => {
    const observation = clip(step.observation, Math.max(300, Math.min(OBSERVATION_CHARS, budget)))
    budget -= observation.length
    return `Step ${step.step}: ${step.tool} ${JSON.stringify(step.input)}\nObservation: ${observation}`
  })
  lines.push(steps.length === 0 ? "No steps yet." : `Steps so far:\n${shown.reverse().join("\n\n")}`)
  lines.push("Choose the next step.")
  return lines.join("\n\n")
}

export class AgentSteps extends Context.Tag("@webdata/core/AgentSteps")<
  AgentSteps,
  {
    /** Runs the step held in `lease` of `job` to its recorded end (or the run's end). */
    readonly step: (job: Job, spec: AgentSpec, lease: Ref.Ref<Task>) => Effect.Effect<void, StoreError>
  }
>() {}

export const make = Effect.gen(function* () {
  const store = yield* JobStore
  const webhooks = yield* Webhooks
  const scraper = yield* Scrape
  const mapper = yield* MapService
  const search = Option.getOrUndefined(yield* Effect.serviceOption(SearchProvider))
  const model = Option.getOrUndefined(yield* Effect.serviceOption(Llm))
  const meter = Option.getOrUndefined(yield* Effect.serviceOption(LlmUsage))
  const engines = yield* availableEngines
  const tools: ReadonlyArray<AgentTool> = [
    ...(search !== undefined ? ["search" as const] : []),
    "map",
    "scrape",
    ...(engines.browser ? ["browse" as const] : []),
    "extract",
    "finish",
  ]

  const fail = (job: Job, reason: string) =>
    store.failJob(job.id, reason, Date.now()).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.void,
          onSome: (failed) => announce(webhooks, failed, "failed", [], reason),
        }),
      ),
    )

  /** Runs a tool; a failure is the observation (the model may try something else), never the run's end. */
  const runTool = (spec: AgentSpec, job: Job, action: Action) =>
    Effect.gen(function* () {
      const url = action.url?.trim() ?? ""
      if (action.tool !== "search" && !allowedBy(spec, url))
        return {
          output: `Refused: ${url} is not among the run's URLs`,
          observation: `Refused: this run may only read ${spec.urls.join(", ")}.`,
          credits: 0,
          usage: NO_USAGE,
        }
      switch (action.tool) {
        case "search": {
          if (search === undefined)
            return {
              output: "No search provider",
              observation: "Search is not available.",
              credits: 0,
              usage: NO_USAGE,
            }
          const results = yield* webResults(Option.some(search), action.query ?? "", SEARCH_RESULTS, job.owner)
          return {
            output: `${results.length} results`,
            observation:
              results
                .map((result) => `${result.url} — ${result.title ?? ""} ${result.description ?? ""}`.trim())
                .join("\n") || "No results.",
            credits: 1,
            usage: NO_USAGE,
          }
        }
        case "map": {
          const result = yield* decodeMapRequest({ url, limit: MAP_URLS }).pipe(Effect.flatMap(mapper.map))
          return {
            output: `${result.links.length} URLs`,
            observation:
              result.links
                .map((link) => `${link.url}${link.title !== undefined ? ` — ${link.title}` : ""}`)
                .join("\n") || "No URLs found.",
            credits: 1,
            usage: NO_USAGE,
          }
        }
        case "scrape": {
          const document = yield* scraper.scrape({ ...defaultPage, url, owner: job.owner })
          const title = typeof document.metadata.title === "string" ? document.metadata.title : url
          return {
            output: `Read ${title}`,
            observation: clip(document.markdown ?? "", OBSERVATION_CHARS),
            credits: 1,
            usage: NO_USAGE,
          }
        }
        case "browse": {
          const actions = yield* decodeActions(action.actions ?? [])
          const document = yield* scraper.scrape({ ...defaultPage, url, actions, owner: job.owner })
          return {
            output: `Browsed ${url} (${actions.length} actions)`,
            observation: clip(document.markdown ?? "", OBSERVATION_CHARS),
            credits: 1,
            usage: NO_USAGE,
          }
        }
        case "extract": {
          const document = yield* scraper.scrape({
            ...defaultPage,
            formats: [{ type: "json", prompt: action.prompt ?? spec.prompt }],
            url,
            owner: job.owner,
          })
          const usage = document.metadata.llmUsage as Partial<TokenUsage> | undefined
          const json = JSON.stringify(document.json ?? null)
          return {
            output: clip(json, OUTPUT_CHARS),
            observation: clip(json, OBSERVATION_CHARS),
            credits: 1,
            usage: { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 },
          }
        }
        case "finish":
          return { output: "Finished", observation: "", credits: 0, usage: NO_USAGE }
      }
    }).pipe(
      Effect.catchAll((error) =>
        Effect.succeed({
          output: clip(`Failed: ${error.message}`, OUTPUT_CHARS),
          observation: `The ${action.tool} failed: ${error._tag === "SearchError" || error._tag === "ParseError" ? error.message : mapError(error).message}`,
          credits: action.tool === "finish" ? 0 : 1,
          usage: NO_USAGE,
        }),
      ),
    )

  const step = Effect.fn("AgentSteps.step")(function* (job: Job, spec: AgentSpec, lease: Ref.Ref<Task>) {
    const task = yield* Ref.get(lease)
    const n = Number(task.key.slice(STEP.length))
    if (model === undefined)
      return yield* fail(job, `The agent needs a language model, and this worker has none. ${LLM_HOW_TO}`)
    const history = (yield* store.documents(job.id, { skip: 0, limit: spec.maxSteps + 1 })).map(
      (entry) => entry.document as AgentStep,
    )
    const spent = spentBy(history)
    if (history.length >= spec.maxSteps)
      return yield* fail(
        job,
        `Budget exhausted: the run took ${history.length} steps (at most ${spec.maxSteps}) without finishing.`,
      )
    if (spent.tokens >= spec.maxTokens)
      return yield* fail(
        job,
        `Budget exhausted: the run used ${spent.tokens} model tokens (at most ${spec.maxTokens}).`,
      )
    if (spent.credits >= spec.maxCredits)
      return yield* fail(
        job,
        `Budget exhausted: the run used ${spent.credits} credits (maxCredits ${spec.maxCredits}).`,
      )

    const answer = spec.schema === undefined ? undefined : prepareSchema(spec.schema).callerSchema
    const decided = yield* Effect.either(
      model.generateObject({
        system: SYSTEM,
        prompt: goalPrompt(spec, history, tools),
        schema: actionSchema(tools, answer),
        objectName: "agent_step",
      }),
    )
    if (Either.isLeft(decided)) {
      const error = decided.left
      if ((error.reason === "Unavailable" || error.reason === "Timeout") && task.attempts + 1 < 3) {
        yield* store.retryTask(task, {
          notBefore: Date.now() + 2000 * 2 ** task.attempts,
          error: { code: mapError(error).code, message: error.message },
        })
        return
      }
      return yield* fail(job, `The model failed at step ${n}: ${error.message}`)
    }
    if (meter !== undefined) yield* meter.record(job.owner, decided.right.usage)
    const action = decided.right.value as Action
    const input = inputOf(action)
    const key = callKey(action.tool, input)
    const repeated = action.tool !== "finish" && history.some((each) => callKey(each.tool, each.input) === key)
    const base = {
      step: n,
      tool: action.tool,
      input,
      ...(action.thought !== undefined ? { thought: action.thought } : {}),
      at: Date.now(),
    }
    let record: AgentStep
    if (repeated) {
      const streak = [...history].reverse().findIndex((each) => each.repeated !== true)
      if ((streak === -1 ? history.length : streak) + 1 >= MAX_REPEATS)
        return yield* fail(
          job,
          `The agent kept repeating itself (${action.tool} ${JSON.stringify(input)}); no answer was found.`,
        )
      record = {
        ...base,
        output: "Repeated call, not run",
        observation: `You already called ${action.tool} with this input: that branch ends here. Use what you found, try something else, or finish.`,
        credits: 0,
        usage: decided.right.usage,
        repeated: true,
      }
    } else if (action.tool === "finish") {
      const data = action.data ?? null
      const problems = answer === undefined ? [] : schemaErrors(answer, data)
      record =
        problems.length === 0
          ? { ...base, output: "Finished", observation: "", credits: 0, usage: decided.right.usage, final: true, data }
          : {
              ...base,
              output: clip(`Answer rejected: ${problems.join("; ")}`, OUTPUT_CHARS),
              observation: `Your final data does not match the schema: ${problems.join("; ")}. Fix it and finish again.`,
              credits: 0,
              usage: decided.right.usage,
            }
    } else {
      const ran = yield* runTool(spec, job, action)
      record = { ...base, ...ran, usage: addUsage(ran.usage, decided.right.usage) }
    }
    const result = yield* store.completeTask(task, {
      now: Date.now(),
      document: record,
      discovered: record.final === true ? [] : [stepTask(n + 1)],
      robotsBlocked: [],
    })
    if (!result.recorded) return
    yield* announce(webhooks, job, "action", [publicStep(record)])
    if (result.finished)
      yield* announce(webhooks, job, "completed", [
        { data: record.data ?? null, creditsUsed: spentBy([...history, record]).credits },
      ])
  })

  return { step }
})

/** What people see of a step (status answers, webhooks, the library's iterator): no model observation. */
export const publicStep = (step: AgentStep) => ({
  step: step.step,
  tool: step.tool,
  input: step.tool === "finish" ? {} : step.input,
  output: step.output,
  ...(step.thought !== undefined ? { thought: step.thought } : {}),
  at: new Date(step.at).toISOString(),
})

/** Pages the agent reads: the default scrape options (markdown of the main content). */
const defaultPage = Schema.decodeSync(ScrapeOptions)({})

export const layer: Layer.Layer<AgentSteps, never, JobStore | Webhooks | Scrape | MapService> = Layer.effect(
  AgentSteps,
  make,
)
