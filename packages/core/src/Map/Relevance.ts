/**
 * Ranking of map results by relevance to a query, without a search backend: Okapi BM25 over each entry's URL (path
 * and subdomain words), title and description, with the URL and the title weighing twice the description. Words are
 * compared case- and accent-insensitively with a light plural stemming, so "blog" finds `/blogs/` and "Café" finds
 * "cafe".
 */
import { getSubdomain } from "tldts"

export interface Rankable {
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
}

const K1 = 1.2
const B = 0.75
const URL_WEIGHT = 2
const TITLE_WEIGHT = 2
const DESCRIPTION_WEIGHT = 1

/** Dropped from a query that has other words: they say nothing about which page is meant. */
const STOP_WORDS = new Set(
  "a an and are as at be by for from how i in is it of on or the to what when where which who why with".split(" "),
)

const stem = (word: string): string => {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1)
  return word
}

/** Words of a text: camelCase split, accents removed, lower case, stemmed. */
export const tokenize = (text: string): string[] =>
  (
    text
      .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).map(stem)

const urlWords = (url: string): string[] => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return tokenize(url)
  }
  const subdomain = getSubdomain(parsed.hostname, { allowPrivateDomains: true }) ?? ""
  const path = safeDecode(parsed.pathname).replace(/\.(?:html?|php|aspx?)$/i, "")
  return tokenize(`${subdomain.replace(/^www\.?/, "")} ${path} ${safeDecode(parsed.search)}`)
}

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

interface Scored {
  readonly index: number
  readonly score: number
  readonly depth: number
  readonly length: number
}

/**
 * The entries, best match first. Ties go to the shallower URL (fewer path segments), then the shorter one, then the
 * original order; entries that match no query word keep their original order after all those that do.
 */
export const rankByRelevance = <A extends Rankable>(entries: ReadonlyArray<A>, query: string): A[] => {
  const all = tokenize(query)
  const meaningful = all.filter((word) => !STOP_WORDS.has(word))
  const terms = [...new Set(meaningful.length > 0 ? meaningful : all)]
  if (terms.length === 0 || entries.length === 0) return [...entries]

  // Weighted term counts per entry (a light BM25F: fields weighted by repeating their counts).
  const documents = entries.map((entry) => {
    const counts = new Map<string, number>()
    let length = 0
    const addField = (words: ReadonlyArray<string>, weight: number) => {
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + weight)
      length += words.length * weight
    }
    addField(urlWords(entry.url), URL_WEIGHT)
    addField(tokenize(entry.title ?? ""), TITLE_WEIGHT)
    addField(tokenize(entry.description ?? ""), DESCRIPTION_WEIGHT)
    return { counts, length }
  })
  const averageLength = documents.reduce((sum, document) => sum + document.length, 0) / documents.length || 1
  const idf = new Map(
    terms.map((term) => {
      const holders = documents.filter((document) => document.counts.has(term)).length
      return [term, Math.log(1 + (documents.length - holders + 0.5) / (holders + 0.5))] as const
    }),
  )

  const scored: Scored[] = entries.map((entry, index) => {
    const document = documents[index] as (typeof documents)[number]
    let score = 0
    for (const term of terms) {
      const frequency = document.counts.get(term) ?? 0
      if (frequency === 0) continue
      const norm = K1 * (1 - B + (B * document.length) / averageLength)
      score += (idf.get(term) ?? 0) * ((frequency * (K1 + 1)) / (frequency + norm))
    }
    let path = entry.url
    try {
      path = new URL(entry.url).pathname
    } catch {
      // An unparsable URL ranks by its whole text.
    }
    return { index, score, depth: path.split("/").filter(Boolean).length, length: entry.url.length }
  })
  scored.sort((a, b) => {
    if (a.score > 0 || b.score > 0) {
      if (Math.abs(b.score - a.score) > 1e-9) return b.score - a.score
      if (a.depth !== b.depth) return a.depth - b.depth
      if (a.length !== b.length) return a.length - b.length
    }
    return a.index - b.index
  })
  return scored.map(({ index }) => entries[index] as A)
}
