/**
 * The memory store's search index: the pages by owner and URL, a MiniSearch (BM25+) over their words, and a bound
 * on the text kept (the oldest pages go first), so that a long crawl in the embedded library does not grow the
 * process without end. Synchronous: the memory store calls it under its lock.
 *
 * Pages enter MiniSearch when a search needs them, not when they are written: a crawl writes a page per task and
 * tokenizing it (~0.5 ms for a 4 KB page) would sit on every task's path, while most crawls are never searched.
 */
import MiniSearch, { type SearchResult } from "minisearch"
import type { IndexedPage, IndexKey, IndexSearch } from "./JobStore.js"
import { urlWords } from "./UrlWords.js"

const keyOf = (key: IndexKey) => `${key.owner ?? ""}\u0000${key.url}`

const sizeOf = (page: IndexedPage) =>
  (page.url.length + page.content.length + (page.title?.length ?? 0) + (page.description?.length ?? 0)) * 2

interface IndexDoc {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly content: string
  readonly urlWords: string
}

const BOOST = { title: 3, description: 1.5, content: 1, urlWords: 0.5 }

export class MemoryPageIndex {
  /** Pages by key, in insertion order (a page written again moves to the end): the oldest first. */
  readonly #pages = new Map<string, IndexedPage>()
  readonly #mini = new MiniSearch<IndexDoc>({ fields: ["title", "description", "content", "urlWords"] })
  /** Pages written since the last search, not yet in MiniSearch. */
  readonly #unindexed = new Set<string>()
  #bytes = 0

  constructor(readonly maxBytes: number) {}

  put(page: IndexedPage): void {
    const id = keyOf(page)
    this.#remove(id)
    this.#pages.set(id, page)
    this.#bytes += sizeOf(page)
    this.#unindexed.add(id)
    // The oldest go first, but never the page just written.
    for (const oldest of this.#pages.keys()) {
      if (this.#bytes <= this.maxBytes || oldest === id) break
      this.#remove(oldest)
    }
  }

  /** Removes the pages scraped before `before`; returns how many. */
  purgeBefore(before: number): number {
    const old = [...this.#pages].filter(([, page]) => page.scrapedAt < before)
    for (const [id] of old) this.#remove(id)
    return old.length
  }

  search(search: IndexSearch): ReadonlyArray<IndexedPage> {
    const admitted = (page: IndexedPage) =>
      (search.owner === undefined || page.owner === search.owner) &&
      (search.from === undefined || page.scrapedAt >= search.from) &&
      (search.to === undefined || page.scrapedAt <= search.to)
    let found: Array<IndexedPage>
    if (search.terms.length === 0) found = [...this.#pages.values()].filter(admitted)
    else {
      this.#catchUp()
      const last = search.terms.length - 1
      const results = this.#mini.search(search.terms.join(" "), {
        boost: BOOST,
        combineWith: search.match === "all" ? "AND" : "OR",
        prefix: (_term, index) => search.prefixLast && index === last,
        filter: (result: SearchResult) => admitted(this.#pages.get(result.id as string) as IndexedPage),
      })
      found = results.map((result) => this.#pages.get(result.id as string) as IndexedPage)
    }
    if (search.newestFirst || search.terms.length === 0) found.sort((a, b) => b.scrapedAt - a.scrapedAt)
    return found.slice(search.offset, search.offset + search.limit)
  }

  #catchUp(): void {
    for (const id of this.#unindexed) {
      const page = this.#pages.get(id) as IndexedPage
      this.#mini.add({
        id,
        title: page.title ?? "",
        description: page.description ?? "",
        content: page.content,
        urlWords: urlWords(page.url),
      })
    }
    this.#unindexed.clear()
  }

  #remove(id: string): void {
    const page = this.#pages.get(id)
    if (page === undefined) return
    this.#pages.delete(id)
    this.#bytes -= sizeOf(page)
    if (!this.#unindexed.delete(id)) this.#mini.discard(id)
  }
}
