/** What the provider tests share: a query with defaults, running a search, and reading its failure. */
import { Cause, Effect, Exit, Option } from "effect"
import { onTestFinished } from "vitest"
import type { SearchAnswer, SearchError, SearchProviderShape, SearchQuery } from "../../../src/Search/SearchProvider.js"
import type { FakeSearch, FakeSearchOptions, FakeSearchReply } from "../../support/fakeSearch.js"

/** A web query for `effect typescript`, ten results, five seconds. */
export const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  source: "web",
  query: "effect typescript",
  limit: 10,
  timeoutMs: 5_000,
  owner: null,
  ...overrides,
})

export const search = (provider: SearchProviderShape, request: SearchQuery): Promise<SearchAnswer> =>
  Effect.runPromise(provider.search(request))

/** The search's failure (the test fails if it succeeds or dies). */
export const failure = async (provider: SearchProviderShape, request: SearchQuery): Promise<SearchError> => {
  const exit = await Effect.runPromiseExit(provider.search(request))
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.failureOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a SearchError, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

/** Starts a fake that is closed when the test ends. */
export const fake = async (start: Promise<FakeSearch>): Promise<FakeSearch> => {
  const server = await start
  onTestFinished(() => server.close())
  return server
}

/** How long `run` took, in milliseconds, with its result. */
export const timed = async <A>(run: () => Promise<A>): Promise<{ value: A; ms: number }> => {
  const start = performance.now()
  const value = await run()
  return { value, ms: performance.now() - start }
}

export const urls = (answer: SearchAnswer): Array<string> => answer.hits.map((hit) => hit.url)

/** The provider's failure for each reply its fake gives (a fresh fake per reply), by the reply's name. */
export const failuresFor = async <Name extends string>(
  start: (options: FakeSearchOptions) => Promise<FakeSearch>,
  providerAt: (baseUrl: string) => SearchProviderShape,
  replies: Readonly<Record<Name, FakeSearchReply>>,
): Promise<Record<Name, SearchError>> => {
  const results = {} as Record<Name, SearchError>
  for (const name of Object.keys(replies) as Array<Name>) {
    const api = await fake(start({ reply: () => replies[name] }))
    results[name] = await failure(providerAt(api.baseUrl), query())
  }
  return results
}
