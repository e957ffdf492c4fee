/**
 * The `local` search provider: a full-text index (MiniSearch, BM25+) over every page this instance scraped, crawled
 * or parsed, so that search answers from what was fetched before, with no outside service.
 *
 * The pages live in the job store (`indexPage`), which survives restarts and is shared by every process on it. Each
 * process keeps a MiniSearch over them in memory and catches it up (`indexedSince`) before each query, so it finds
 * what any process recorded. The MiniSearch holds the terms and the few fields its filters read, not the text: the
 * text of the hits returned is read back from the store to cut their snippets, which also tells which of them the
 * store has dropped since (purged or over its bound).
 */
import { Clock, Config, type ConfigError, Context, Duration, Effect, Layer, Option } from "effect"
import type MiniSearch from "minisearch"
import type { SearchResult } from "minisearch"
import type { Document } from "../Domain/Document.js"
import { type IndexedEntry, type IndexKey, JobStore, type StoreError } from "../Jobs/JobStore.js"
import { lazyModule } from "../Process/LazyModule.js"
import { admits, parseTbs, timeWindow } from "./Query.js"
import {
  type SearchAnswer,
  SearchError,
  type SearchHit,
  type SearchProviderShape,
  type SearchQuery,
} from "./SearchProvider.js"
import { plainText, snippet } from "./Snippet.js"

/** What a scrape produced, as the index takes it. */
export interface RecordedPage {
  /** The final URL (after redirects). */
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  /** The page's text (markdown). */
  readonly content: string
  readonly scrapedAt: number
}

const firstOf = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

export class LocalIndex extends Context.Tag("@webdata/core/LocalIndex")<
  LocalIndex,
  {
    /** Adds (or replaces) what a scrape produced, unless empty. Never fails: a store failure is logged. */
    readonly record: (owner: string | null, page: RecordedPage) => Effect.Effect<void>
    /** The `local` search provider over this index. */
    readonly provider: SearchProviderShape
  }
>() {}

const webUrl = (url: string | undefined): string | undefined =>
  url !== undefined && /^https?:\/\//i.test(url) ? url : undefined

/**
 * Records what a scrape or an upload produced, if there is an index and the caller lets its data be kept: the
 * markdown with the title and description, under the page's final URL, or for an upload (whose own URL is a `file:`
 * one that search does not answer) under the web address the file states (`og:url`, a page saved from the web).
 * Nothing for a document without markdown (only the formats asked for are built: the index never makes a scrape
 * convert more), without such a URL, or for an error page.
 */
export const recordDocument = (
  index: Context.Tag.Service<LocalIndex> | undefined,
  owner: string | null,
  document: Document,
  options: { readonly zeroDataRetention: boolean | undefined; readonly upload?: boolean },
): Effect.Effect<void> => {
  const { metadata, markdown } = document
  if (index === undefined || options.zeroDataRetention === true) return Effect.void
  if (markdown === undefined || markdown.trim() === "" || metadata.statusCode >= 400) return Effect.void
  const url = options.upload ? webUrl(firstOf(metadata.ogUrl)) : (webUrl(metadata.url) ?? webUrl(metadata.sourceURL))
  if (url === undefined) return Effect.void
  return index.record(owner, {
    url,
    title: firstOf(metadata.title),
    description: firstOf(metadata.description),
    content: markdown,
    scrapedAt: Date.now(),
  })
}

export type LocalIndexScope = "key" | "global"

export interface LocalIndexOptions {
  /** `key` (default): an owner finds only what it fetched; `global`: everyone finds everything. */
  readonly scope?: LocalIndexScope
}

/** Text indexed (and kept) of a page: the start of a huge document says what it is about. */
const MAX_CONTENT_CHARS = 100_000
/** Entries read from the store per catch-up step. */
const CATCH_UP_BATCH = 2000
/** Pages added to the MiniSearch between two yields to the event loop (a few milliseconds of work). */
const ADD_SLICE = 100
const SNIPPET_CHARS = 200

/** The MiniSearch document of a page: its searchable fields, and the stored ones the filters read. */
interface IndexDoc {
  readonly id: string
  readonly owner: string | null
  readonly url: string
  readonly scrapedAt: number
  readonly title: string
  readonly description: string
  readonly content: string
  readonly urlWords: string
}

/** What the MiniSearch keeps of a page besides its terms (`storeFields`). */
interface StoredFields {
  readonly owner: string | null
  readonly url: string
  readonly scrapedAt: number
}

const idOf = (key: IndexKey) => `${key.owner ?? ""}\u0000${key.url}`

/** The URL's words (host labels, path segments), so that `docs` finds `docs.example.com/install`. */
const urlWords = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return url
  let path = parsed.pathname
  try {
    path = decodeURIComponent(path)
  } catch {
    // A malformed escape: the path as it is.
  }
  return `${parsed.hostname.replace(/^www\./, "")} ${path}`
}

const toDoc = (entry: IndexedEntry): IndexDoc => ({
  id: idOf(entry),
  owner: entry.owner,
  url: entry.url,
  scrapedAt: entry.scrapedAt,
  title: entry.title ?? "",
  description: entry.description ?? "",
  content: entry.content.slice(0, MAX_CONTENT_CHARS),
  urlWords: urlWords(entry.url),
})

const miniSearchModule = lazyModule(() => import("minisearch"))

const newIndex = Effect.map(
  miniSearchModule,
  ({ default: MiniSearchClass }) =>
    new MiniSearchClass<IndexDoc>({
      fields: ["title", "description", "content", "urlWords"],
      storeFields: ["owner", "url", "scrapedAt"],
    }),
)

/** The query's words and the operators typed among them (`site:`, `-site:`, `filetype:`), which filter instead. */
interface ParsedQuery {
  readonly words: string
  readonly sites: ReadonlyArray<string>
  readonly notSites: ReadonlyArray<string>
  readonly fileTypes: ReadonlyArray<string>
}

const parseQuery = (text: string): ParsedQuery => {
  const words: Array<string> = []
  const sites: Array<string> = []
  const notSites: Array<string> = []
  const fileTypes: Array<string> = []
  for (const token of text.split(/\s+/)) {
    const operator = /^(-?)(site|filetype):(\S+)$/i.exec(token)
    if (operator === null) words.push(token)
    else if (operator[2]!.toLowerCase() === "filetype") fileTypes.push(operator[3]!.toLowerCase().replace(/^\./, ""))
    else (operator[1] === "-" ? notSites : sites).push(operator[3]!)
  }
  return { words: words.join(" ").trim(), sites, notSites, fileTypes }
}

const hasFileType = (url: string, types: ReadonlyArray<string>) => {
  const path = URL.parse(url)?.pathname.toLowerCase() ?? ""
  return types.length === 0 || types.some((type) => path.endsWith(`.${type}`))
}

const stored = (result: SearchResult): StoredFields => result as unknown as StoredFields

const searchOptions = (combineWith: "AND" | "OR", filter: (result: SearchResult) => boolean) => ({
  boost: { title: 3, description: 1.5, content: 1, urlWords: 0.5 },
  // The last word may be unfinished (typed as the user goes); prefixes of one or two letters match too much.
  prefix: (term: string, index: number, terms: ReadonlyArray<string>) => index === terms.length - 1 && term.length >= 3,
  // One typo in five letters; shorter words are too easily another word, and a number or an identifier with digits
  // (`2024`, `v3`, `page7`) that differs is another one.
  fuzzy: (term: string) => (term.length >= 5 && !/\d/.test(term) ? 0.2 : false),
  combineWith,
  filter,
})

export const make = (options: LocalIndexOptions = {}) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const scope = options.scope ?? "key"
    const lock = yield* Effect.makeSemaphore(1)
    let index: MiniSearch<IndexDoc> | undefined
    /** The seq of each page in the MiniSearch, oldest first (a page added again moves to the end). */
    const seqs = new Map<string, number>()
    let lastSeq = 0

    const discard = (mini: MiniSearch<IndexDoc>, id: string) => {
      if (mini.has(id)) mini.discard(id)
      seqs.delete(id)
    }

    const add = (mini: MiniSearch<IndexDoc>, entries: ReadonlyArray<IndexedEntry>) => {
      for (const entry of entries) {
        const doc = toDoc(entry)
        discard(mini, doc.id)
        mini.add(doc)
        seqs.set(doc.id, entry.seq)
      }
      lastSeq = Math.max(lastSeq, entries[entries.length - 1]?.seq ?? lastSeq)
    }

    /**
     * Brings the MiniSearch up to the store: what was written since the last seq seen, in slices with yields to the
     * event loop between them (the first query of a process loads the whole index). Then drops the pages older than
     * the store's oldest entry: the store dropped them (a bound, a purge), and nothing else would say so. One at a
     * time; an interrupted catch-up leaves a consistent index, which the next one continues.
     */
    const catchUp = lock.withPermits(1)(
      Effect.gen(function* () {
        index ??= yield* newIndex
        const mini = index
        for (;;) {
          const batch = yield* store.indexedSince(lastSeq, CATCH_UP_BATCH)
          for (let from = 0; from < batch.length; from += ADD_SLICE) {
            add(mini, batch.slice(from, from + ADD_SLICE))
            if (batch.length > ADD_SLICE) yield* Effect.sleep(Duration.zero)
          }
          if (batch.length < CATCH_UP_BATCH) break
        }
        const oldest = Option.fromNullable((yield* store.indexedSince(0, 1))[0]?.seq)
        for (const [id, seq] of seqs) {
          if (Option.isSome(oldest) && seq >= oldest.value) break
          discard(mini, id)
        }
        return mini
      }),
    )

    const search = Effect.fn("LocalIndex.search")(function* (query: SearchQuery) {
      if (query.source !== "web")
        return yield* new SearchError({
          reason: "Unsupported",
          message: `The local index has no ${query.source} results, only web pages.`,
        })
      const mini = yield* catchUp.pipe(Effect.mapError(unreadable))
      const limit = Math.max(0, Math.floor(query.limit))
      const parsed = parseQuery(query.query)
      const filtered: SearchQuery = {
        ...query,
        includeDomains: [...(query.includeDomains ?? []), ...parsed.sites],
        excludeDomains: [...(query.excludeDomains ?? []), ...parsed.notSites],
      }
      const time = parseTbs(query.tbs)
      const window = time === undefined ? {} : timeWindow(time, yield* Clock.currentTimeMillis)
      const visible = (result: SearchResult): boolean => {
        const fields = stored(result)
        return (
          (scope === "global" || fields.owner === query.owner) &&
          (window.from === undefined || fields.scrapedAt >= window.from) &&
          (window.to === undefined || fields.scrapedAt <= window.to) &&
          hasFileType(fields.url, parsed.fileTypes) &&
          admits(filtered, { url: fields.url })
        )
      }
      if (limit === 0 || (parsed.words === "" && query.query.trim() === "")) return answer([])

      // Every word first; when that finds too few, any word (the pages with every word still come first).
      let results: ReadonlyArray<SearchResult>
      if (parsed.words === "") {
        // Only operators: the newest pages they admit.
        const { default: MiniSearchClass } = yield* miniSearchModule
        results = mini.search(MiniSearchClass.wildcard, { filter: visible })
      } else {
        results = mini.search(parsed.words, searchOptions("AND", visible))
        if (results.length < limit) {
          const found = new Set(results.map((result) => result.id as string))
          const more = mini.search(parsed.words, searchOptions("OR", visible))
          results = [...results, ...more.filter((result) => !found.has(result.id as string))]
        }
      }
      // With the global scope several owners may have the same page: it is shown once.
      const seen = new Set<string>()
      let candidates = results.filter((result) => {
        const url = stored(result).url
        if (seen.has(url)) return false
        seen.add(url)
        return true
      })
      if (time?.sortByDate || parsed.words === "")
        candidates = [...candidates].sort((a, b) => stored(b).scrapedAt - stored(a).scrapedAt)

      // The text of the best candidates, for their snippets; those the store no longer has are dropped.
      const hits: Array<SearchHit> = []
      for (let next = 0; hits.length < limit && next < candidates.length; ) {
        const slice = candidates.slice(next, next + (limit - hits.length))
        next += slice.length
        const entries = yield* store
          .indexedPages(slice.map((result) => ({ owner: stored(result).owner, url: stored(result).url })))
          .pipe(Effect.mapError(unreadable))
        const byId = new Map(entries.map((entry) => [idOf(entry), entry]))
        for (const result of slice) {
          const entry = byId.get(result.id as string)
          if (entry === undefined) discard(mini, result.id as string)
          else hits.push(hitOf(entry, result.terms))
        }
      }
      return answer(hits)
    })

    const record = Effect.fn("LocalIndex.record")(function* (owner: string | null, page: RecordedPage) {
      const content = page.content.slice(0, MAX_CONTENT_CHARS)
      if (content.trim() === "") return
      const title = page.title?.trim()
      const description = page.description?.trim()
      yield* store
        .indexPage({
          owner,
          url: page.url,
          ...(title ? { title } : {}),
          ...(description ? { description } : {}),
          content,
          scrapedAt: page.scrapedAt,
        })
        .pipe(Effect.catchAll((error) => Effect.logWarning(`Could not add ${page.url} to the search index`, error)))
    })

    const provider: SearchProviderShape = {
      name: "local",
      sources: ["web"],
      search: (query) =>
        search(query).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(query.timeoutMs),
            onTimeout: () =>
              new SearchError({
                reason: "Timeout",
                message: `The local index did not answer within ${query.timeoutMs} ms (it may still be loading).`,
              }),
          }),
        ),
    }
    return LocalIndex.of({ record, provider })
  })

const unreadable = (error: StoreError) =>
  new SearchError({ reason: "Unavailable", message: `The local index cannot be read: ${error.message}` })

const answer = (hits: ReadonlyArray<SearchHit>): SearchAnswer => ({ hits, provider: "local" })

/** A result as the search answers it: the page's description, or else the words around the terms found. */
const hitOf = (entry: IndexedEntry, terms: ReadonlyArray<string>): SearchHit => {
  const words = snippet(plainText(entry.content), terms, SNIPPET_CHARS)
  return {
    url: entry.url,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    description: entry.description ?? words,
    snippet: words,
  }
}

export const layer = (options: LocalIndexOptions = {}): Layer.Layer<LocalIndex, never, JobStore> =>
  Layer.effect(LocalIndex, make(options))

/** The index with `WEBDATA_SEARCH_INDEX_SCOPE` (`key` or `global`; default `key`). */
export const layerConfig: Layer.Layer<LocalIndex, ConfigError.ConfigError, JobStore> = Layer.unwrapEffect(
  Effect.map(
    Config.literal("key", "global")("WEBDATA_SEARCH_INDEX_SCOPE").pipe(Config.withDefault("key" as const)),
    (scope) => layer({ scope }),
  ),
)
