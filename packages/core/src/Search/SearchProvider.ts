/**
 * The web-search port. Extract (`enableWebSearch`, or a prompt without URLs) and the agent's `search` tool find pages
 * through it when a provider is in the context; without one they say so instead of searching.
 */
import { Context, type Effect, Schema } from "effect"

export interface SearchResult {
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
}

export interface SearchQuery {
  readonly query: string
  /** Results wanted at most. */
  readonly limit: number
}

export class SearchError extends Schema.TaggedError<SearchError>()("SearchError", {
  reason: Schema.Literal("Unavailable", "Timeout", "Refused"),
  message: Schema.String,
}) {}

export class SearchProvider extends Context.Tag("@webdata/core/SearchProvider")<
  SearchProvider,
  { readonly search: (query: SearchQuery) => Effect.Effect<ReadonlyArray<SearchResult>, SearchError> }
>() {}
