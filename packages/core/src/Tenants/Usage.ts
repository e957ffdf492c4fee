/**
 * What each owner used, per calendar month (UTC), in the job store's counters so that every process adds to the same
 * totals: credits (see `Costing.ts`) and language-model tokens. Charges are summed in memory and written once a
 * second (one counter write per owner and month, never one per page), and at shutdown; a process that crashes loses
 * at most its last second of charges.
 */
import { Context, Effect, Layer, Ref, Schedule } from "effect"
import { JobStore, type StoreError } from "../Jobs/JobStore.js"
import type { Owner } from "../Jobs/Owner.js"

export interface Charge {
  readonly credits?: number
  readonly tokens?: number
}

export interface MonthUsage {
  /** `YYYY-MM`. */
  readonly month: string
  readonly credits: number
  readonly tokens: number
}

export interface UsageShape {
  /** Adds to the owner's month (the current one). Never fails: usage is written behind. */
  readonly charge: (owner: Owner, charge: Charge) => Effect.Effect<void>
  /** The owner's usage in each month asked for, what this process has not written yet included. */
  readonly months: (owner: Owner, months: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MonthUsage>, StoreError>
}

export class Usage extends Context.Tag("@webdata/core/Usage")<Usage, UsageShape>() {}

/** `YYYY-MM` of an instant (UTC). */
export const monthOf = (epoch: number): string => new Date(epoch).toISOString().slice(0, 7)

/** The first instant of a `YYYY-MM` month and of the month after it. */
export const monthBounds = (month: string): { readonly start: number; readonly end: number } => {
  const [year, number] = month.split("-").map(Number) as [number, number]
  return { start: Date.UTC(year, number - 1, 1), end: Date.UTC(year, number, 1) }
}

/** The `count` months up to and including the one of `now`, oldest first. */
export const lastMonths = (now: number, count: number): ReadonlyArray<string> => {
  const date = new Date(now)
  return Array.from({ length: count }, (_, index) =>
    monthOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - (count - 1 - index), 1)),
  )
}

const counterName = (owner: Owner, month: string, what: "credits" | "tokens") =>
  `usage:${owner ?? "-"}:${month}:${what}`

/** Usage counters outlive their month by a year and a bit, for the history. */
const KEEP_MS = 400 * 86_400_000
const FLUSH_EVERY = "1 second"

type Pending = ReadonlyMap<string, { readonly owner: Owner; readonly month: string } & Required<Charge>>

export const layer: Layer.Layer<Usage, never, JobStore> = Layer.scoped(
  Usage,
  Effect.gen(function* () {
    const store = yield* JobStore
    const pending = yield* Ref.make<Pending>(new Map())

    const flush = Effect.gen(function* () {
      const due = yield* Ref.getAndSet(pending, new Map())
      for (const { owner, month, credits, tokens } of due.values()) {
        const expiresAt = monthBounds(month).end + KEEP_MS
        if (credits > 0) yield* store.addToCounter(counterName(owner, month, "credits"), credits, expiresAt)
        if (tokens > 0) yield* store.addToCounter(counterName(owner, month, "tokens"), tokens, expiresAt)
      }
    }).pipe(Effect.catchAll((error) => Effect.logWarning("Usage: the counters could not be written", error)))

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(FLUSH_EVERY)))
    yield* Effect.addFinalizer(() => flush)

    return {
      charge: (owner, charge) => {
        const credits = Math.max(0, Math.round(charge.credits ?? 0))
        const tokens = Math.max(0, Math.round(charge.tokens ?? 0))
        if (credits === 0 && tokens === 0) return Effect.void
        const month = monthOf(Date.now())
        const key = `${owner ?? "-"} ${month}`
        return Ref.update(pending, (current) => {
          const before = current.get(key)
          return new Map(current).set(key, {
            owner,
            month,
            credits: (before?.credits ?? 0) + credits,
            tokens: (before?.tokens ?? 0) + tokens,
          })
        })
      },
      months: (owner, months) =>
        Effect.gen(function* () {
          const names = months.flatMap((month) => [
            counterName(owner, month, "credits"),
            counterName(owner, month, "tokens"),
          ])
          const values = yield* store.readCounters(names)
          const unwritten = yield* Ref.get(pending)
          return months.map((month, index) => {
            const local = unwritten.get(`${owner ?? "-"} ${month}`)
            return {
              month,
              credits: (values[2 * index] ?? 0) + (local?.credits ?? 0),
              tokens: (values[2 * index + 1] ?? 0) + (local?.tokens ?? 0),
            }
          })
        }),
    }
  }),
)
