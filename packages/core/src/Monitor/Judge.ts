/**
 * Whether a changed page (or a new search result) matters for the monitor's goal. With a language model, the model
 * reads the goal and the diff and answers Firecrawl's judgment (meaningful, confidence, reason, the changes that
 * matter). Without one, the monitor's `judgeRules` decide: a change is meaningful when an added or removed line holds
 * one of its keywords (case-insensitive) or matches one of its RE2 patterns. A judge that fails leaves the page
 * unjudged (`null`) rather than losing it.
 */
import { Effect, Option } from "effect"
import { compilePatterns } from "../Crawl/LinkFilter.js"
import type { JudgeRules } from "../Domain/MonitorRequest.js"
import type { Owner } from "../Jobs/Owner.js"
import { Llm } from "../Llm/Llm.js"
import { LlmUsage } from "../Llm/LlmUsage.js"
import type { Judgment } from "./Records.js"

export interface JudgeInput {
  readonly goal: string | null
  readonly mode: "model" | "rules" | "off"
  readonly rules?: JudgeRules | undefined
  readonly url: string
  /** `changed`: `diff` is the unified diff; `new`: `content` is the page (a new search result). */
  readonly status: "changed" | "new"
  readonly diff?: string | undefined
  readonly content?: string | undefined
  readonly owner: Owner
}

/** What the model reads at most: a diff or page beyond it is cut (the judgment says so in its reason). */
const MAX_MATERIAL = 24_000

const JUDGE_SYSTEM =
  "You decide whether a change to a web page matters for a user's monitoring goal. Judge only by the goal: cosmetic edits, counters, dates of no interest and reworded boilerplate do not matter. Quote the changes that matter."

const JUDGMENT_SCHEMA = {
  type: "object",
  properties: {
    meaningful: { type: "boolean" },
    confidence: { type: "string", enum: ["high", "medium", "low"] },
    reason: { type: "string" },
    meaningfulChanges: {
      type: "array",
      items: {
        type: "object",
        properties: {
          type: { type: "string", enum: ["added", "removed", "changed"] },
          before: { type: ["string", "null"] },
          after: { type: ["string", "null"] },
          reason: { type: "string" },
        },
        required: ["type", "before", "after", "reason"],
      },
    },
  },
  required: ["meaningful", "confidence", "reason", "meaningfulChanges"],
} as const

/** The changed lines of a unified diff (or every line of new content), with their kind. */
const changedLines = (
  input: JudgeInput,
): ReadonlyArray<{ readonly type: "added" | "removed"; readonly text: string }> =>
  input.status === "new"
    ? (input.content ?? "").split("\n").map((text) => ({ type: "added" as const, text }))
    : (input.diff ?? "")
        .split("\n")
        .filter((line) => /^[+-](?![+-]{2} )/.test(line))
        .map((line) => ({
          type: line.startsWith("+") ? ("added" as const) : ("removed" as const),
          text: line.slice(1),
        }))

/** The rule-based judgment (no model). */
export const judgeByRules = (rules: JudgeRules, input: JudgeInput): Judgment => {
  const keywords = (rules.keywords ?? []).map((keyword) => keyword.toLowerCase())
  const compiled = compilePatterns(rules.patterns ?? [])
  const patterns = Array.isArray(compiled) ? compiled : []
  const matches = changedLines(input).flatMap((line) => {
    const lower = line.text.toLowerCase()
    const keyword = keywords.find((word) => lower.includes(word))
    const pattern = keyword === undefined ? patterns.findIndex((candidate) => candidate.test(line.text)) : -1
    if (keyword === undefined && pattern < 0) return []
    const why =
      keyword !== undefined ? `holds the keyword "${keyword}"` : `matches the pattern ${rules.patterns?.[pattern]}`
    return [
      {
        type: line.type,
        before: line.type === "removed" ? line.text : null,
        after: line.type === "added" ? line.text : null,
        reason: `The ${line.type === "added" ? "added" : "removed"} line ${why}.`,
      },
    ]
  })
  return {
    meaningful: matches.length > 0,
    confidence: "high",
    reason:
      matches.length > 0
        ? `${matches.length} changed line${matches.length === 1 ? "" : "s"} match the monitor's judge rules.`
        : "No changed line matches the monitor's judge rules.",
    meaningfulChanges: matches.slice(0, 20),
  }
}

const isJudgment = (value: unknown): value is Judgment => {
  const candidate = value as Partial<Judgment> | null
  return (
    typeof candidate?.meaningful === "boolean" &&
    typeof candidate.reason === "string" &&
    ["high", "medium", "low"].includes(candidate.confidence ?? "") &&
    Array.isArray(candidate.meaningfulChanges)
  )
}

/** The judge over the model in the context, if any. */
export const makeJudge = Effect.gen(function* () {
  const model = Option.getOrUndefined(yield* Effect.serviceOption(Llm))
  const meter = Option.getOrUndefined(yield* Effect.serviceOption(LlmUsage))

  const byModel = (input: JudgeInput) => {
    if (model === undefined) return Effect.succeed(null)
    const material = input.status === "changed" ? (input.diff ?? "") : (input.content ?? "")
    const cut = material.length > MAX_MATERIAL
    return model
      .generateObject({
        system: JUDGE_SYSTEM,
        prompt: `Monitoring goal: ${input.goal ?? "(none given: judge whether the change is substantive)"}\n\n${
          input.status === "changed"
            ? `The page ${input.url} changed. Its unified diff (lines starting with - were removed, + were added) follows.`
            : `A new page appeared for this goal: ${input.url}. Its content follows.`
        }${cut ? " It was cut to its beginning." : ""}`,
        content: cut ? material.slice(0, MAX_MATERIAL) : material,
        schema: JUDGMENT_SCHEMA,
        objectName: "judgment",
      })
      .pipe(
        Effect.tap((answer) => (meter === undefined ? Effect.void : meter.record(input.owner, answer.usage))),
        Effect.map((answer) => (isJudgment(answer.value) ? answer.value : null)),
        Effect.catchAll((error) => Effect.as(Effect.logWarning(`Judging ${input.url} failed`, error), null)),
      )
  }

  const judge = (input: JudgeInput): Effect.Effect<Judgment | null> => {
    switch (input.mode) {
      case "off":
        return Effect.succeed(null)
      case "rules":
        return Effect.succeed(input.rules === undefined ? null : judgeByRules(input.rules, input))
      case "model":
        return byModel(input)
    }
  }
  return { judge }
})
