/**
 * Several providers behind one: each query goes to the first provider that has its source, and on failure to the
 * next, within the query's one time budget. The answer says which provider answered and why the ones before it did
 * not (`warning`); when none could, the failure carries every reason.
 */
import { Clock, Effect } from "effect"
import { type SearchAnswer, SearchError, type SearchProviderShape, type SearchQuery } from "./SearchProvider.js"

/** Which failure speaks for a chain that failed whole: the most telling of its providers'. */
const precedence: ReadonlyArray<SearchError["reason"]> = [
  "Timeout",
  "RateLimited",
  "Refused",
  "Unavailable",
  "InvalidResponse",
  "Unsupported",
]

const worst = (failures: ReadonlyArray<SearchError>): SearchError["reason"] =>
  precedence.find((reason) => failures.some((failure) => failure.reason === reason)) ?? "Unavailable"

export const chain = (providers: ReadonlyArray<SearchProviderShape>): SearchProviderShape => {
  const search = Effect.fn("SearchChain.search")(function* (query: SearchQuery) {
    const deadline = (yield* Clock.currentTimeMillis) + query.timeoutMs
    const failures: SearchError[] = []
    for (const provider of providers) {
      const left = deadline - (yield* Clock.currentTimeMillis)
      if (left <= 0) {
        failures.push(new SearchError({ reason: "Timeout", message: `no time was left for ${provider.name}` }))
        break
      }
      if (!provider.sources.includes(query.source)) {
        failures.push(
          new SearchError({ reason: "Unsupported", message: `${provider.name} has no ${query.source} search` }),
        )
        continue
      }
      const answer = yield* Effect.either(provider.search({ ...query, timeoutMs: left }))
      if (answer._tag === "Left") {
        failures.push(answer.left)
        continue
      }
      const reasons = [
        ...failures.map((failure) => failure.message),
        ...(answer.right.warning !== undefined ? [answer.right.warning] : []),
      ]
      return {
        ...answer.right,
        ...(reasons.length > 0 ? { warning: reasons.join("; ") } : {}),
      } satisfies SearchAnswer
    }
    return yield* new SearchError({
      reason: worst(failures),
      message: failures.map((failure) => failure.message).join("; "),
    })
  })
  return {
    name: providers.map((provider) => provider.name).join(","),
    sources: [...new Set(providers.flatMap((provider) => provider.sources))],
    search,
  }
}
