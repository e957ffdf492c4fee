/**
 * What the search index knows of a page: its words per field, as the query side (`LocalIndex`) makes its terms
 * (lower-case runs of letters and digits), and how often each occurs in each field, which BM25 ranks by.
 */
import { type IndexedPage, urlWords, words as wordsOf } from "@webdata/core/jobs"

/** Longer runs (base64, hashes) are not words anyone searches for, and each would cost a key and a posting. */
export const MAX_WORD_LENGTH = 64

/** The fields searched, in the order their frequencies are packed, with their BM25 weights (as the other stores). */
export const FIELDS = [
  { name: "title", weight: 3 },
  { name: "description", weight: 1.5 },
  { name: "content", weight: 1 },
  { name: "url", weight: 0.5 },
] as const

/** A word's frequency in each field takes 12 bits of its posting's score, 48 bits in all: exact in a double. */
export const TF_BASE = 4096

export interface PageTerms {
  /** Words in each field of `FIELDS`. */
  readonly lengths: ReadonlyArray<number>
  /** Each distinct word with its frequencies packed (`TF_BASE`, title first). */
  readonly postings: ReadonlyArray<readonly [word: string, packed: number]>
}

export const words = (text: string): ReadonlyArray<string> =>
  wordsOf(text).filter((word) => word.length <= MAX_WORD_LENGTH)

export const pageTerms = (page: IndexedPage): PageTerms => {
  const texts = [page.title ?? "", page.description ?? "", page.content, urlWords(page.url)]
  const frequencies = new Map<string, Array<number>>()
  const lengths = texts.map((text, field) => {
    const found = words(text)
    for (const word of found) {
      let tf = frequencies.get(word)
      if (tf === undefined) {
        tf = FIELDS.map(() => 0)
        frequencies.set(word, tf)
      }
      tf[field] = Math.min(TF_BASE - 1, tf[field]! + 1)
    }
    return found.length
  })
  return {
    lengths,
    postings: Array.from(frequencies, ([word, tf]) => [word, tf.reduce((packed, n) => packed * TF_BASE + n, 0)]),
  }
}
