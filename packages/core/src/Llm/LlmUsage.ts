/**
 * Tokens spent on language models, per owner (the API key a request came with; `null` on an open server), so that an
 * operator can see and later bill or cap what each key costs. Kept in memory here; a durable store can implement the
 * same service.
 */
import { Context, Effect, Layer, Ref } from "effect"
import { creditsForTokens } from "../Tenants/Costing.js"
import { Usage } from "../Tenants/Usage.js"
import { addUsage, NO_USAGE, type TokenUsage } from "./Llm.js"

export interface LlmUsageShape {
  /** Adds the tokens of one request (every call it took) to the owner's total. */
  readonly record: (owner: string | null, usage: TokenUsage) => Effect.Effect<void>
  /** The owner's total since the process started. */
  readonly usageOf: (owner: string | null) => Effect.Effect<TokenUsage>
}

export class LlmUsage extends Context.Tag("@webdata/core/LlmUsage")<LlmUsage, LlmUsageShape>() {}

/** An owner's key in the map; the open server's requests (no key) share one. */
const keyOf = (owner: string | null): string => (owner === null ? "\u0000" : `k:${owner}`)

export const make: Effect.Effect<LlmUsageShape> = Effect.map(
  Ref.make<ReadonlyMap<string, TokenUsage>>(new Map()),
  (totals) => ({
    record: (owner, usage) =>
      usage.inputTokens === 0 && usage.outputTokens === 0
        ? Effect.void
        : Ref.update(totals, (current) => {
            const next = new Map(current)
            next.set(keyOf(owner), addUsage(current.get(keyOf(owner)) ?? NO_USAGE, usage))
            return next
          }),
    usageOf: (owner) => Effect.map(Ref.get(totals), (current) => current.get(keyOf(owner)) ?? NO_USAGE),
  }),
)

/** Totals in memory, for the life of the layer. */
export const layer: Layer.Layer<LlmUsage> = Layer.effect(LlmUsage, make)

/** Totals in memory, and each request's tokens charged to its owner's usage (tokens, and credits for them). */
export const layerCharging: Layer.Layer<LlmUsage, never, Usage> = Layer.effect(
  LlmUsage,
  Effect.gen(function* () {
    const memory = yield* make
    const usage = yield* Usage
    return {
      ...memory,
      record: (owner, tokens) =>
        Effect.zipRight(
          memory.record(owner, tokens),
          usage.charge(owner, {
            tokens: tokens.inputTokens + tokens.outputTokens,
            credits: creditsForTokens(tokens.inputTokens + tokens.outputTokens),
          }),
        ),
    }
  }),
)
