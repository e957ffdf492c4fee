/**
 * Usage and load of the caller's key, in the shapes Firecrawl's clients read: credits and tokens this month and per
 * month (from `Usage`), the key's pages waiting, and its jobs in progress. A key without a credit limit has, as
 * far as clients can tell, unlimited credits: `Number.MAX_SAFE_INTEGER` left.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { JobStore } from "../Jobs/JobStore.js"
import * as Worker from "../Jobs/Worker.js"
import { KeyRing } from "../Tenants/KeyRing.js"
import { lastMonths, monthBounds, monthOf, Usage } from "../Tenants/Usage.js"
import { Caller, WebdataApi } from "./Api.js"
import { respond } from "./Respond.js"

const UNLIMITED = Number.MAX_SAFE_INTEGER
const HISTORY_MONTHS = 12
const DAY_MS = 86_400_000

const iso = (epoch: number) => new Date(epoch).toISOString()

/** A month's usage answer with its remainder also under v1's snake-case name, which the oldest v1 clients read. */
const withV1Remainder = <D extends Record<string, unknown>, B extends { readonly data: D }>(
  body: B,
  v1Name: string,
  field: keyof D,
) => ({ ...body, data: { ...body.data, [v1Name]: body.data[field] } })

export const TeamHandlers = HttpApiBuilder.group(WebdataApi, "team", (handlers) =>
  Effect.gen(function* () {
    const usage = yield* Usage
    const keys = yield* KeyRing
    const store = yield* JobStore

    /** The caller's current month: its usage, credit plan and billing period. */
    const thisMonth = Effect.gen(function* () {
      const { owner, key } = yield* Caller
      const now = Date.now()
      const [month] = yield* usage.months(owner, [monthOf(now)])
      const { start, end } = monthBounds(monthOf(now))
      return {
        used: month ?? { month: monthOf(now), credits: 0, tokens: 0 },
        plan: keys.limitsOf(key).credits,
        period: { billingPeriodStart: iso(start), billingPeriodEnd: iso(end) },
      }
    })

    /** The last 12 months of the caller's usage, oldest first; with `byApiKey`, each period names the key. */
    const history = (byApiKey: string | undefined) =>
      Effect.gen(function* () {
        const { owner, key } = yield* Caller
        const months = yield* usage.months(owner, lastMonths(Date.now(), HISTORY_MONTHS))
        return months.map((month) => {
          const { start, end } = monthBounds(month.month)
          return {
            startDate: iso(start),
            endDate: iso(end),
            ...(byApiKey === "true" ? { apiKey: key?.name ?? "open" } : {}),
            credits: month.credits,
            tokens: month.tokens,
          }
        })
      })

    const inProgress = Effect.flatMap(Caller, ({ owner }) => store.listJobs({ owner, status: "scraping" }))

    const creditUsage = Effect.map(thisMonth, ({ used, plan, period }) => ({
      success: true as const,
      data: {
        remainingCredits: plan === undefined ? UNLIMITED : Math.max(0, plan - used.credits),
        planCredits: plan ?? UNLIMITED,
        creditsUsed: used.credits,
        ...period,
      },
    }))

    const tokenUsage = Effect.map(thisMonth, ({ used, period }) => ({
      success: true as const,
      data: { remainingTokens: UNLIMITED, planTokens: UNLIMITED, tokensUsed: used.tokens, ...period },
    }))

    const creditHistory = (byApiKey: string | undefined) =>
      Effect.map(history(byApiKey), (periods) => ({
        success: true as const,
        periods: periods.map(({ tokens: _, credits, ...period }) => ({ ...period, creditsUsed: credits })),
      }))

    const tokenHistory = (byApiKey: string | undefined) =>
      Effect.map(history(byApiKey), (periods) => ({
        success: true as const,
        periods: periods.map(({ credits: _, tokens, ...period }) => ({ ...period, tokensUsed: tokens })),
      }))

    const queueStatus = Effect.gen(function* () {
      const { owner, key } = yield* Caller
      const running = yield* inProgress
      const waiting = running.reduce((sum, job) => sum + Math.max(0, job.total - job.completed - job.failed), 0)
      // Pages in progress are bounded by what the workers run at once for the key: its jobs' concurrency.
      const maxConcurrency = keys.limitsOf(key).jobs ?? Worker.defaults.concurrency
      const active = Math.min(waiting, maxConcurrency)
      const since = Date.now() - DAY_MS
      const finished = yield* store.listJobs({ owner, status: "completed" })
      const latest = finished.reduce((best, job) => Math.max(best, job.completedAt ?? 0), 0)
      return {
        success: true as const,
        jobsInQueue: waiting,
        activeJobsInQueue: active,
        waitingJobsInQueue: waiting - active,
        maxConcurrency,
        mostRecentSuccess: latest > since ? iso(latest) : null,
      }
    })

    const concurrencyCheck = Effect.gen(function* () {
      const { key } = yield* Caller
      const running = yield* inProgress
      return {
        success: true as const,
        concurrency: running.length,
        maxConcurrency: keys.limitsOf(key).jobs ?? UNLIMITED,
      }
    })

    return (
      handlers
        .handleRaw("creditUsage", () => respond(creditUsage))
        .handleRaw("creditUsageHistorical", ({ urlParams }) => respond(creditHistory(urlParams.byApiKey)))
        .handleRaw("tokenUsage", () => respond(tokenUsage))
        .handleRaw("tokenUsageHistorical", ({ urlParams }) => respond(tokenHistory(urlParams.byApiKey)))
        .handleRaw("queueStatus", () => respond(queueStatus))
        .handleRaw("concurrencyCheck", () => respond(concurrencyCheck))
        // v1 clients read the same answers.
        .handleRaw("v1CreditUsage", () =>
          respond(Effect.map(creditUsage, (body) => withV1Remainder(body, "remaining_credits", "remainingCredits"))),
        )
        .handleRaw("v1CreditUsageHistorical", ({ urlParams }) => respond(creditHistory(urlParams.byApiKey)))
        .handleRaw("v1TokenUsage", () =>
          respond(Effect.map(tokenUsage, (body) => withV1Remainder(body, "remaining_tokens", "remainingTokens"))),
        )
        .handleRaw("v1TokenUsageHistorical", ({ urlParams }) => respond(tokenHistory(urlParams.byApiKey)))
        .handleRaw("v1QueueStatus", () => respond(queueStatus))
        .handleRaw("v1ConcurrencyCheck", () => respond(concurrencyCheck))
    )
  }),
)
