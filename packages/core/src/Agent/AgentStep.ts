/** A recorded step of an agent run, and what a run has spent. */
import type { TokenUsage } from "../Llm/Llm.js"

export type AgentTool = "search" | "map" | "scrape" | "browse" | "extract" | "finish"

export interface AgentStep {
  readonly step: number
  readonly tool: AgentTool
  readonly input: Record<string, unknown>
  readonly thought?: string
  /** A short line for people (status, webhooks). */
  readonly output: string
  /** What the model is shown of the tool's result in later steps. */
  readonly observation: string
  /** Credits the tool used (a page read, a map, a search). */
  readonly credits: number
  /** Model tokens of the step (its decision, and an extract's reading). */
  readonly usage: TokenUsage
  /** The call repeated an earlier one and was not run. */
  readonly repeated?: boolean
  /** The run's answer. */
  readonly final?: boolean
  readonly data?: unknown
  readonly at: number
}

export interface Spent {
  readonly steps: number
  readonly tokens: number
  readonly toolCredits: number
  readonly credits: number
}

/** What the steps spent; a run's credits are its tools' credits plus one per 1000 model tokens. */
export const spentBy = (steps: ReadonlyArray<AgentStep>): Spent => {
  const tokens = steps.reduce((sum, step) => sum + step.usage.inputTokens + step.usage.outputTokens, 0)
  const toolCredits = steps.reduce((sum, step) => sum + step.credits, 0)
  return { steps: steps.length, tokens, toolCredits, credits: toolCredits + Math.ceil(tokens / 1000) }
}
