/**
 * The `changeTracking` format: a scraped page compared with its previous scrape under the same owner, URL and tag.
 * What is compared is the normalized markdown (`Normalize.ts`) with the format's `ignore` patterns taken out, and in
 * `json` mode the extracted JSON too; `git-diff` mode adds the unified diff, `json` mode the changed fields.
 *
 * A `json`-only request compares the fields alone.
 *
 * Statuses: `new` (never seen, or seen only as gone), `same`, `changed`, `removed` (the page now answers 404 or 410;
 * still gone next time is `same`).
 */
import { Effect, Option } from "effect"
import { normalizeUrl } from "../Crawl/UrlKey.js"
import type { ChangeTrackingResult, Document } from "../Domain/Document.js"
import type { ChangeTrackingFormat } from "../Domain/Formats.js"
import type { JobStoreShape, StoreError } from "../Jobs/JobStore.js"
import { gitDiff, jsonDiff } from "./Diff.js"
import { compileIgnore, normalizeMarkdown } from "./Normalize.js"
import { type Snapshot, swapSnapshot } from "./Snapshots.js"

export type ChangeTrackingRequest = typeof ChangeTrackingFormat.Type

/** Snapshots are kept this long after their last write by default. */
export const SNAPSHOT_TTL_MS = 90 * 24 * 60 * 60 * 1000

export interface TrackOptions {
  readonly owner: string | null
  /** The URL asked for (with its scheme): the snapshot's key, whatever it redirected to. */
  readonly url: string
  /** Who writes the snapshot (see `Snapshots.ts`). */
  readonly writer: string
  /** How long the snapshot is kept after this write. */
  readonly ttlMs: number
  /** The page was reached only because an earlier check knew it, not through a link (a monitored crawl). */
  readonly hidden?: boolean
  readonly now: number
}

/**
 * The text a page is compared by: its markdown, normalized, under its title, since the main content leaves out a
 * headline that repeats the title (it lives in `metadata.title`), and a rewritten headline is a change.
 */
export const comparedText = (title: string | ReadonlyArray<string> | undefined, markdown: string): string => {
  const text = normalizeMarkdown(markdown)
  const heading = normalizeMarkdown(`# ${(typeof title === "string" ? title : title?.[0]) ?? ""}`)
  // A page whose markdown opens with its title already says it (one line either way, so the diff stays quiet).
  return heading === "#" || text.split("\n", 1)[0] === heading ? text : `${heading}\n\n${text}`
}

const isGone = (status: number) => status === 404 || status === 410

const hasMode = (request: ChangeTrackingRequest, mode: "git-diff" | "json") => (request.modes ?? []).includes(mode)

/** The text compared: the ignore patterns (validated when the request was decoded) taken out. */
const comparable = (request: ChangeTrackingRequest) => {
  const ignore = compileIgnore(request.ignore ?? [])
  return ignore.ok ? ignore.apply : (text: string) => text
}

const statusOf = (
  base: Option.Option<Snapshot>,
  current: Snapshot,
  textChanged: boolean,
  fieldsChanged: boolean,
): ChangeTrackingResult["changeStatus"] => {
  if (Option.isNone(base)) return "new"
  if (current.gone) return base.value.gone ? "same" : "removed"
  if (base.value.gone) return "new"
  return textChanged || fieldsChanged ? "changed" : "same"
}

export interface Tracked {
  readonly result: ChangeTrackingResult
  /** The snapshot the page was compared with. */
  readonly previous: Option.Option<Snapshot>
}

/** Records the page's snapshot and answers how it compares with the previous one. */
export const trackChanges = (
  store: JobStoreShape,
  request: ChangeTrackingRequest,
  document: Document,
  options: TrackOptions,
): Effect.Effect<Tracked, StoreError> =>
  Effect.gen(function* () {
    const current: Snapshot = {
      markdown: comparedText(document.metadata.title, document.markdown ?? ""),
      ...(hasMode(request, "json") && document.json !== undefined ? { json: document.json } : {}),
      at: options.now,
      scrapeId: document.metadata.scrapeId ?? "",
      writer: options.writer,
      gone: isGone(document.metadata.statusCode),
    }
    const key = {
      owner: options.owner,
      url: normalizeUrl(options.url, { ignoreQueryParameters: false }),
      tag: request.tag ?? null,
    }
    const base = yield* swapSnapshot(store, key, current, options.now + options.ttlMs)
    const clean = comparable(request)
    const before = Option.map(base, (snapshot) => clean(snapshot.markdown))
    const after = clean(current.markdown)
    const text = Option.isSome(before) && !current.gone ? gitDiff(before.value, after) : undefined
    const fields =
      hasMode(request, "json") && Option.isSome(base) && !current.gone
        ? jsonDiff(base.value.json ?? null, current.json ?? null)
        : {}
    const fieldsChanged = Object.keys(fields).length > 0
    // A `json`-only request cares about its fields: a markdown edit that changes none of them is no change.
    const jsonOnly = hasMode(request, "json") && !hasMode(request, "git-diff")
    const changeStatus = statusOf(base, current, !jsonOnly && text !== undefined, fieldsChanged)
    const changed = changeStatus === "changed"
    const diff = {
      ...(changed && hasMode(request, "git-diff") && text !== undefined ? { text: text.text, json: text.json } : {}),
      ...(changed && hasMode(request, "json") && !hasMode(request, "git-diff") && fieldsChanged
        ? { json: fields }
        : {}),
    }
    const result: ChangeTrackingResult = {
      previousScrapeAt: Option.match(base, {
        onNone: () => null,
        onSome: (snapshot) => new Date(snapshot.at).toISOString(),
      }),
      changeStatus,
      visibility: options.hidden === true ? "hidden" : "visible",
      ...(Object.keys(diff).length > 0 ? { diff } : {}),
      ...(hasMode(request, "json") && changed ? { json: fields } : {}),
    }
    return { result, previous: base }
  })
