/**
 * The `summary` format without a language model: the page's most central sentences, verbatim (whitespace
 * collapsed), in document order. Sentences are ranked by TextRank (a sentence is central when it shares words with
 * many central sentences) plus a bonus for coming early, opening a paragraph and sharing words with the headings;
 * fragments (no end punctuation, too few words) and run-ons are never chosen. Plain functions, without Effect.
 */
import { markdownText } from "./MarkdownText.js"
import { sentencesOf } from "./Sentences.js"

export interface SummaryOptions {
  /** Sentences at most (default 5). */
  readonly maxSentences?: number
  /** Characters at most, spaces between sentences included (default 1000); a longer sentence is never chosen. */
  readonly maxChars?: number
}

/** Markdown read at most: a summary of the first 300,000 characters of a page is still its summary. */
const MAX_INPUT = 300_000
/** Sentences ranked at most (the graph is quadratic in them). */
const MAX_SENTENCES = 400
const MIN_WORDS = 4
const MAX_WORDS = 80
const DAMPING = 0.85
const ITERATIONS = 40

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between " +
    "both but by can could did do does doing down during each few for from further had has have having he her here " +
    "hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of " +
    "off on once only or other our ours ourselves out over own same she should so some such than that the their " +
    "theirs them themselves then there these they this those through to too under until up very was we were what " +
    "when where which while who whom why will with would you your yours yourself yourselves one two may might must " +
    "shall also however yet us said says get got like"
  ).split(" "),
)

/** Sentence-ending punctuation, possibly inside closing quotes or brackets. */
const ENDS_SENTENCE = /[.!?…。！？]["'”’»)\]]*$/

interface Sentence {
  readonly text: string
  readonly block: number
  /** First sentence of its paragraph. */
  readonly opens: boolean
  readonly terms: ReadonlySet<string>
  readonly words: number
}

/** Content words, lower-cased, with a plural's final "s" dropped. */
const termsOf = (text: string): Set<string> => {
  const terms = new Set<string>()
  for (const match of text.toLowerCase().matchAll(/\p{L}[\p{L}\p{N}'’-]*|\p{N}+/gu)) {
    let word = match[0].replace(/['’]s$/, "")
    if (STOPWORDS.has(word) || word.length < 2) continue
    if (word.length > 4 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) word = word.slice(0, -1)
    terms.add(word)
  }
  return terms
}

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  let shared = 0
  for (const term of small) if (large.has(term)) shared++
  return shared
}

/** TextRank centrality of each sentence, scaled so that the most central is 1. */
const centrality = (sentences: ReadonlyArray<Sentence>): Array<number> => {
  const n = sentences.length
  const weights: Array<Float64Array> = sentences.map(() => new Float64Array(n))
  const totals = new Float64Array(n)
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const a = sentences[i]!
      const b = sentences[j]!
      const shared = overlap(a.terms, b.terms)
      if (shared === 0) continue
      const weight = shared / (Math.log(a.terms.size + 1) + Math.log(b.terms.size + 1))
      weights[i]![j] = weight
      weights[j]![i] = weight
      totals[i]! += weight
      totals[j]! += weight
    }
  let scores = new Float64Array(n).fill(1)
  for (let round = 0; round < ITERATIONS; round++) {
    const next = new Float64Array(n).fill(1 - DAMPING)
    for (let j = 0; j < n; j++) {
      if (totals[j] === 0) continue
      const share = (DAMPING * scores[j]!) / totals[j]!
      const row = weights[j]!
      for (let i = 0; i < n; i++) if (row[i] !== 0) next[i]! += row[i]! * share
    }
    scores = next
  }
  const top = Math.max(...scores)
  return Array.from(scores, (score) => (top > 0 ? score / top : 0))
}

const candidates = (markdown: string): { readonly sentences: Array<Sentence>; readonly headingTerms: Set<string> } => {
  const { blocks, headings } = markdownText(markdown.length > MAX_INPUT ? markdown.slice(0, MAX_INPUT) : markdown)
  const sentences: Array<Sentence> = []
  blocks.forEach((block, index) => {
    const parts = sentencesOf(block)
    parts.forEach((text, position) => {
      const words = text.split(" ").length
      // A paragraph's last words without a final period still make a sentence when there are enough of them and
      // they do not stop on a comma or semicolon (a list item, a fragment).
      const ended = ENDS_SENTENCE.test(text) || (position === parts.length - 1 && words >= 8 && !/[,;:]$/.test(text))
      // A sentence starts with a capital, a digit or a quote ("iPhone" aside); lower case is a fragment.
      const starts = !/^\p{Ll}(?!\p{Lu})/u.test(text)
      if (!ended || !starts || words < MIN_WORDS || words > MAX_WORDS || !/\p{L}/u.test(text)) return
      if (sentences.length < MAX_SENTENCES)
        sentences.push({ text, block: index, opens: position === 0, terms: termsOf(text), words })
    })
  })
  const headingTerms = new Set<string>()
  for (const heading of headings.slice(0, 20)) for (const term of termsOf(heading)) headingTerms.add(term)
  return { sentences, headingTerms }
}

export const extractiveSummary = (markdown: string, options?: SummaryOptions): string => {
  const maxSentences = Math.max(0, Math.floor(options?.maxSentences ?? 5))
  const maxChars = Math.max(0, Math.floor(options?.maxChars ?? 1000))
  const { sentences, headingTerms } = candidates(markdown)
  if (sentences.length === 0 || maxSentences === 0) return ""
  const central = centrality(sentences)
  const scored = sentences.map((sentence, index) => {
    const early = 0.3 * (1 - index / sentences.length)
    const opening = sentence.opens ? 0.1 : 0
    const topical = headingTerms.size === 0 ? 0 : (0.2 * overlap(sentence.terms, headingTerms)) / headingTerms.size
    const length = sentence.words < 8 ? 0.8 : sentence.words > 45 ? 0.85 : 1
    return { index, score: (central[index]! + early + opening + topical) * length }
  })
  scored.sort((a, b) => b.score - a.score || a.index - b.index)
  const chosen: Array<number> = []
  let length = 0
  for (const { index } of scored) {
    if (chosen.length >= maxSentences) break
    const sentence = sentences[index]!
    const added = sentence.text.length + (chosen.length > 0 ? 1 : 0)
    if (length + added > maxChars) continue
    // A sentence that repeats one already chosen adds nothing.
    const repeats = chosen.some((other) => {
      const terms = sentences[other]!.terms
      const shared = overlap(terms, sentence.terms)
      return shared / Math.max(1, Math.min(terms.size, sentence.terms.size)) >= 0.8
    })
    if (repeats) continue
    chosen.push(index)
    length += added
  }
  return chosen
    .sort((a, b) => a - b)
    .map((index) => sentences[index]!.text)
    .join(" ")
}
