/**
 * Bodies of the interact routes (Firecrawl's `/v2/interact*` and `/v2/scrape/{id}/interact`; non-strict there, so
 * unknown keys are dropped). Besides Firecrawl's `code`, an execute may carry `actions`: the scrape's action list,
 * run on the session's page without any code.
 */
import { Schema } from "effect"
import { Actions } from "../Domain/Actions.js"

export const Profile = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  /** Save cookies and storage back under the name when the session ends; only one saving session per name. */
  saveChanges: Schema.optionalWith(Schema.Boolean, { default: () => true }),
})

export const CreateSessionRequest = Schema.Struct({
  /** Seconds the session lives at most. */
  ttl: Schema.optionalWith(Schema.Int.pipe(Schema.between(30, 3600)), { default: () => 600 }),
  /** Seconds without any use after which the session ends. */
  activityTtl: Schema.optionalWith(Schema.Int.pipe(Schema.between(10, 3600)), { default: () => 300 }),
  streamWebView: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  profile: Schema.optional(Profile),
})
export type CreateSessionRequest = typeof CreateSessionRequest.Type

const Language = Schema.Literal("node", "python", "bash")

const executeFields = {
  code: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100_000))),
  language: Schema.optionalWith(Language, { default: () => "node" as const }),
  /** Seconds the code or the actions may take. */
  timeout: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 300)), { default: () => 30 }),
  actions: Schema.optional(Actions),
  /** With `actions`: a page to open before them (Firecrawl's actions have no navigation of their own). */
  url: Schema.optional(Schema.String),
}

const codeOrActions = <A extends { readonly code?: string | undefined; readonly actions?: unknown }>(body: A) =>
  (body.code === undefined) !== (body.actions === undefined) || "Either 'code' or 'actions' must be provided."

export const ExecuteRequest = Schema.Struct(executeFields).pipe(Schema.filter(codeOrActions))
export type ExecuteRequest = typeof ExecuteRequest.Type

export const ScrapeInteractRequest = Schema.Struct({
  ...executeFields,
  /** Firecrawl's natural-language instruction; it needs a language model. */
  prompt: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000))),
}).pipe(
  Schema.filter((body) =>
    body.prompt !== undefined && body.code === undefined && body.actions === undefined ? true : codeOrActions(body),
  ),
)
export type ScrapeInteractRequest = typeof ScrapeInteractRequest.Type

export const ListSessionsQuery = Schema.Struct({
  status: Schema.optional(Schema.Literal("active", "destroyed")),
})
