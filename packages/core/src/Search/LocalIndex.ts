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
import { markdownSnippet, termFinder } from "./Snippet.js"

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
/** Milliseconds of indexing between two yields to the event loop (a page takes about one). */
const SLICE_MS = 20
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

/**
 * English words too common to tell pages apart (Lucene's English stop words): about a third of English text, so
 * leaving them out makes indexing faster and the index smaller, and a query's other words decide.
 */
const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
)

/** A word as indexed and searched: lower case; nothing for a stop word. */
const processTerm = (term: string): string | null => {
  const lower = term.toLowerCase()
  return STOP_WORDS.has(lower) ? null : lower
}

const miniSearchModule = lazyModule(() => import("minisearch"))

const newIndex = Effect.map(
  miniSearchModule,
  ({ default: MiniSearchClass }) =>
    new MiniSearchClass<IndexDoc>({
      fields: ["title", "description", "content", "urlWords"],
      storeFields: ["owner", "url", "scrapedAt"],
      processTerm,
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

const searchOptions = (filter: (result: SearchResult) => boolean) => ({
  boost: { title: 3, description: 1.5, content: 1, urlWords: 0.5 },
  // The last word may be unfinished (typed as the user goes); prefixes of one or two letters match too much.
  prefix: (term: string, index: number, terms: ReadonlyArray<string>) => index === terms.length - 1 && term.length >= 3,
  // One typo in five letters; shorter words are too easily another word, and a number or an identifier with digits
  // (`2024`, `v3`, `page7`) that differs is another one.
  fuzzy: (term: string) => (term.length >= 5 && !/\d/.test(term) ? 0.2 : false),
  // Any word; the pages with every word are put first afterwards (one pass instead of an AND and then an OR).
  combineWith: "OR" as const,
  filter,
})

/** The index over the job store in context; each call keeps its own MiniSearch (`layer` makes one per engine). */
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

    const add = (mini: MiniSearch<IndexDoc>, entry: IndexedEntry) => {
      const doc = toDoc(entry)
      discard(mini, doc.id)
      mini.add(doc)
      seqs.set(doc.id, entry.seq)
      lastSeq = Math.max(lastSeq, entry.seq)
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
          for (let next = 0; next < batch.length; ) {
            const started = performance.now()
            while (next < batch.length && performance.now() - started < SLICE_MS) add(mini, batch[next++]!)
            if (next < batch.length) yield* Effect.sleep(Duration.zero)
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
      const includeDomains = [...(query.includeDomains ?? []), ...parsed.sites]
      const excludeDomains = [...(query.excludeDomains ?? []), ...parsed.notSites]
      const filtered: SearchQuery = { ...query, includeDomains, excludeDomains }
      const time = parseTbs(query.tbs)
      const window = time === undefined ? {} : timeWindow(time, yield* Clock.currentTimeMillis)
      // Every matching page passes through this: the URL is parsed only when the query has domains or categories.
      const byUrl =
        includeDomains.length + excludeDomains.length + parsed.fileTypes.length + (query.categories ?? []).length > 0
      const visible = (result: SearchResult): boolean => {
        const fields = stored(result)
        return (
          (scope === "global" || fields.owner === query.owner) &&
          (window.from === undefined || fields.scrapedAt >= window.from) &&
          (window.to === undefined || fields.scrapedAt <= window.to) &&
          (!byUrl || (hasFileType(fields.url, parsed.fileTypes) && admits(filtered, { url: fields.url })))
        )
      }
      if (limit === 0 || (parsed.words === "" && query.query.trim() === "")) return answer([])

      const { default: MiniSearchClass } = yield* miniSearchModule
      let results: ReadonlyArray<SearchResult>
      if (parsed.words === "") {
        // Only operators: the newest pages they admit.
        results = mini.search(MiniSearchClass.wildcard, { filter: visible })
      } else {
        // The pages with every word first (what an AND finds, in its order: scores add up either way), then the pages
        // with some of them.
        results = mini.search(parsed.words, searchOptions(visible))
        const terms = new Set(
          MiniSearchClass.getDefault("tokenize")(parsed.words).flatMap((word: string) => processTerm(word) ?? []),
        )
        const every = results.filter((result) => result.queryTerms.length >= terms.size)
        if (every.length < results.length)
          results = [...every, ...results.filter((result) => result.queryTerms.length < terms.size)]
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
      const found: Array<{ readonly entry: IndexedEntry; readonly terms: ReadonlyArray<string> }> = []
      for (let next = 0; found.length < limit && next < candidates.length; ) {
        const slice = candidates.slice(next, next + (limit - found.length))
        next += slice.length
        const entries = yield* store
          .indexedPages(slice.map((result) => ({ owner: stored(result).owner, url: stored(result).url })))
          .pipe(Effect.mapError(unreadable))
        const byId = new Map(entries.map((entry) => [idOf(entry), entry]))
        for (const result of slice) {
          const entry = byId.get(result.id as string)
          if (entry === undefined) discard(mini, result.id as string)
          else found.push({ entry, terms: result.terms })
        }
      }
      // The words the query matched (prefixes and typos included) in any of them: each page's snippet shows the first.
      const finder = termFinder(found.flatMap((hit) => hit.terms))
      return answer(found.map(({ entry }) => hitOf(entry, finder)))
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
const hitOf = (entry: IndexedEntry, finder: RegExp | undefined): SearchHit => {
  const words = markdownSnippet(entry.content, finder, SNIPPET_CHARS)
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
