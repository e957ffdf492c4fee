/**
 * The `local` search provider: a full-text index over every page this instance scraped, crawled or parsed, so that
 * search answers from what was fetched before, with no outside service.
 *
 * The pages live in the job store, which searches them with its own engine (`JobStore.searchIndex`: SQLite's FTS5,
 * MiniSearch in the memory store), so the index survives restarts, is shared by every process on the store, and
 * costs a process no memory and no loading time. This module turns a query into the store's terms and filters (the
 * operators typed in it, `tbs`, the owner's visibility), asks for the pages with every word and then for those with
 * some, checks each page's URL against the query's domains and categories, and cuts the snippets.
 */
import { Clock, Config, type ConfigError, Context, Duration, Effect, Layer } from "effect"
import { type Document, firstOf } from "../Domain/Document.js"
import { type IndexedPage, type IndexSearch, JobStore, type StoreError } from "../Jobs/JobStore.js"
import { words as wordsOf } from "../Jobs/Words.js"
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
  /**
   * Seen with the caller's headers, browser profile or actions: it may be that caller's alone, so an index shared by
   * every key (`global`) leaves it out, as the scrape cache does.
   */
  readonly personal?: boolean | undefined
}

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
  options: {
    readonly zeroDataRetention: boolean | undefined
    readonly upload?: boolean
    readonly personal?: boolean
  },
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
    personal: options.personal,
  })
}

export type LocalIndexScope = "key" | "global"

export interface LocalIndexOptions {
  /** `key` (default): an owner finds only what it fetched; `global`: everyone finds everything. */
  readonly scope?: LocalIndexScope
}

/** Text indexed (and kept) of a page: the start of a huge document says what it is about. */
const MAX_CONTENT_CHARS = 100_000
const SNIPPET_CHARS = 200
/** Slices of the store's answer read per kind of match at most, when the URL filters reject most of what it finds. */
const MAX_SLICES = 5

/**
 * English words too common to tell pages apart (Lucene's English stop words): a query's other words decide. A query
 * of stop words alone finds nothing.
 */
const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
)

/** The query's words as the store takes them: lower-case runs of letters and digits, stop words left out. */
const termsOf = (words: string): ReadonlyArray<string> => [
  ...new Set(wordsOf(words).filter((word) => !STOP_WORDS.has(word))),
]

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

/** What the snippet looks for: each term, and its stem when the store's stemmer may have matched another form. */
const finderTerms = (terms: ReadonlyArray<string>): ReadonlyArray<string> =>
  terms.flatMap((term) => {
    const stem = term.replace(/(?:ing|ed|es|s)$/, "")
    return stem.length >= 3 && stem !== term ? [term, stem] : [term]
  })

/**
 * `recording`: whether pages are added as they are scraped, crawled or parsed. Off when no `local` provider is in the
 * search chain: tokenizing every page (~0.5 ms of CPU for an article on SQLite) for an index nobody reads would be
 * waste. Pages scraped meanwhile are not found once `local` is turned on.
 */
export const make = (options: LocalIndexOptions = {}, recording = true) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const scope = options.scope ?? "key"

    const search = Effect.fn("LocalIndex.search")(function* (query: SearchQuery) {
      if (query.source !== "web")
        return yield* new SearchError({
          reason: "Unsupported",
          message: `The local index has no ${query.source} results, only web pages.`,
        })
      const limit = Math.max(0, Math.floor(query.limit))
      const parsed = parseQuery(query.query)
      const terms = termsOf(parsed.words)
      // Nothing to look for: no words (or stop words only) and no operator to list pages by.
      const operators = parsed.sites.length + parsed.notSites.length + parsed.fileTypes.length > 0
      if (limit === 0 || (terms.length === 0 && (parsed.words !== "" || !operators))) return answer([])

      const filtered: SearchQuery = {
        ...query,
        includeDomains: [...(query.includeDomains ?? []), ...parsed.sites],
        excludeDomains: [...(query.excludeDomains ?? []), ...parsed.notSites],
      }
      const byUrl =
        (filtered.includeDomains?.length ?? 0) +
          (filtered.excludeDomains?.length ?? 0) +
          parsed.fileTypes.length +
          (query.categories?.length ?? 0) >
        0
      const time = parseTbs(query.tbs)
      const window = time === undefined ? {} : timeWindow(time, yield* Clock.currentTimeMillis)
      const base: Omit<IndexSearch, "match" | "offset" | "limit"> = {
        terms,
        // The last word may be unfinished (typed as the user goes); prefixes of one or two letters match too much.
        prefixLast: (terms[terms.length - 1]?.length ?? 0) >= 3,
        owner: scope === "global" ? undefined : query.owner,
        from: window.from,
        to: window.to,
        newestFirst: time?.sortByDate === true,
      }
      // More than asked for when the URL filters may reject some of it.
      const slice = byUrl ? Math.max(2 * limit, 50) : limit
      const found: Array<IndexedPage> = []
      // With the global scope several owners may have the same page: it is shown once.
      const seen = new Set<string>()
      // The pages with every word first, then those with some of them.
      for (const match of terms.length > 1 ? (["all", "any"] as const) : (["all"] as const)) {
        for (let round = 0; round < MAX_SLICES && found.length < limit; round++) {
          const pages = yield* store
            .searchIndex({ ...base, match, offset: round * slice, limit: slice })
            .pipe(Effect.mapError(unreadable))
          for (const page of pages) {
            if (found.length >= limit || seen.has(page.url)) continue
            if (byUrl && !(hasFileType(page.url, parsed.fileTypes) && admits(filtered, { url: page.url }))) continue
            seen.add(page.url)
            found.push(page)
          }
          if (pages.length < slice) break
        }
      }
      const finder = termFinder(finderTerms(terms))
      return answer(found.map((page) => hitOf(page, finder)))
    })

    // Untraced: it runs for every page scraped, inside the scrape's span; a span costs ~15 µs (measured).
    const record = Effect.fnUntraced(function* (owner: string | null, page: RecordedPage) {
      if (!recording) return
      const content = page.content.slice(0, MAX_CONTENT_CHARS)
      if (content.trim() === "" || (page.personal === true && scope === "global")) return
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
                message: `The local index did not answer within ${query.timeoutMs} ms.`,
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
const hitOf = (page: IndexedPage, finder: RegExp | undefined): SearchHit => {
  const words = markdownSnippet(page.content, finder, SNIPPET_CHARS)
  return {
    url: page.url,
    ...(page.title !== undefined ? { title: page.title } : {}),
    description: page.description ?? words,
    snippet: words,
  }
}

export const layer = (options: LocalIndexOptions = {}, recording = true): Layer.Layer<LocalIndex, never, JobStore> =>
  Layer.effect(LocalIndex, make(options, recording))

/** The index with `WEBDATA_SEARCH_INDEX_SCOPE` (`key` or `global`; default `key`). */
export const layerConfig = (recording = true): Layer.Layer<LocalIndex, ConfigError.ConfigError, JobStore> =>
  Layer.unwrapEffect(
    Effect.map(
      Config.literal("key", "global")("WEBDATA_SEARCH_INDEX_SCOPE").pipe(Config.withDefault("key" as const)),
      (scope) => layer({ scope }, recording),
    ),
  )
