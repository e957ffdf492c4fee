/**
 * Change tracking inside a scrape: the options the document is built with (json mode needs the page's JSON), and the
 * comparison once the document is built.
 */
import { Effect, Option } from "effect"
import type { Document } from "../Domain/Document.js"
import type { Format } from "../Domain/Formats.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { JobStoreShape, StoreError } from "../Jobs/JobStore.js"
import { type ChangeTrackingRequest, SNAPSHOT_TTL_MS, trackChanges } from "./Track.js"

/** Who records a scrape's snapshot when a job runs it (see `Snapshots.ts`), and how. */
export interface TrackingContext {
  /** The job or monitor check the scrape belongs to. */
  readonly writer: string
  /** How long the snapshot is kept (default `SNAPSHOT_TTL_MS`). */
  readonly ttlMs?: number
  /** The page was reached only because an earlier check knew it. */
  readonly hidden?: boolean
}

export const trackingOf = (options: Pick<ScrapeOptions, "formats">): ChangeTrackingRequest | undefined =>
  options.formats.find((format): format is ChangeTrackingRequest => format.type === "changeTracking")

/**
 * The options to build the document with: in json mode, the changeTracking format's schema and prompt as the json
 * format (added when the request has none: `addedJson`, and then taken out of the answer).
 */
export const buildOptions = <A extends ScrapeOptions>(
  options: A,
): { readonly options: A; readonly addedJson: boolean } => {
  const tracking = trackingOf(options)
  if (tracking === undefined || !(tracking.modes ?? []).includes("json")) return { options, addedJson: false }
  const json = options.formats.find((format) => format.type === "json")
  if (json !== undefined) return { options, addedJson: false }
  const added: Format = {
    type: "json",
    ...(tracking.schema !== undefined ? { schema: tracking.schema } : {}),
    ...(tracking.prompt !== undefined ? { prompt: tracking.prompt } : {}),
  }
  return { options: { ...options, formats: [...options.formats, added] }, addedJson: true }
}

/** The document with its `changeTracking` answer (and without the JSON only change tracking asked for). */
export const withChangeTracking = (
  store: Option.Option<JobStoreShape>,
  request: ChangeTrackingRequest,
  document: Document,
  input: {
    readonly url: string
    readonly owner: string | null
    readonly addedJson: boolean
    readonly context: TrackingContext
  },
): Effect.Effect<Document, StoreError> =>
  Option.match(store, {
    // Checked before the scrape began (`Scrape.ts`).
    onNone: () => Effect.succeed(document),
    onSome: (jobs) =>
      Effect.map(
        trackChanges(jobs, request, document, {
          owner: input.owner,
          url: input.url,
          writer: input.context.writer,
          ttlMs: input.context.ttlMs ?? SNAPSHOT_TTL_MS,
          ...(input.context.hidden === true ? { hidden: true } : {}),
          now: Date.now(),
        }),
        ({ result }) => {
          const { json: _, ...rest } = document
          return { ...(input.addedJson ? rest : document), changeTracking: result }
        },
      ),
  })
