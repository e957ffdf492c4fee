/**
 * Extraction quality against a gold main text. Both pipelines emit markdown; link targets, images (alt text too: the
 * gold texts are text content, which has none) and markup are dropped before comparing. Three measures:
 * - token F1: bag-of-words precision/recall per page (the usual "token-level" measure), the markdown's words taken
 *   with regexes;
 * - rendered F1: the same, the words being the text content of the markdown as markdown-it renders it (what a user
 *   sees: escapes resolved, a literal `*` or `#` that did not become markup counts as a word it is not in the gold);
 * - shingle F1: the article-extraction benchmark's own measure (4-word shingles, per-page normalised counts;
 *   precision and recall averaged over pages, F1 from the averages).
 * Tokens are runs of letters, digits and marks; `_` is left out because markdown uses it for emphasis.
 */
import { renderedText } from "../markdown/render.js"

export const tokens = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []

/** The words of a markdown text. */
export const markdownTokens = (markdown: string): Array<string> =>
  tokens(markdown.replace(/!\[([^\]]*)\]\([^)]*\)/g, " ").replace(/\]\((?:[^()]|\([^)]*\))*\)/g, "]"))

export interface Counts {
  readonly tp: number
  readonly fp: number
  readonly fn: number
}

/** The words of a markdown text as a reader sees them: the text content of its rendering. */
export const renderedTokens = (markdown: string): Array<string> => tokens(renderedText(markdown))

const match = (gold: ReadonlyArray<string>, candidate: ReadonlyArray<string>): Counts => {
  const left = new Map<string, number>()
  for (const item of gold) left.set(item, (left.get(item) ?? 0) + 1)
  let tp = 0
  for (const item of candidate) {
    const remaining = left.get(item) ?? 0
    if (remaining > 0) {
      tp++
      left.set(item, remaining - 1)
    }
  }
  return { tp, fp: candidate.length - tp, fn: gold.length - tp }
}

const shingles = (words: ReadonlyArray<string>, n = 4): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < Math.max(1, words.length - n + 1); i++) {
    const shingle = words.slice(i, i + n)
    if (shingle.length > 0) out.push(shingle.join(" "))
  }
  return out
}

/**
 * The candidate words left over by `match` (its false positives), in order. Which occurrences of a word are left over
 * does not change the counts; to point at the text that the gold lacks, occurrences inside a 4-word run that the gold
 * also has are matched first.
 */
export const falsePositives = (gold: ReadonlyArray<string>, candidate: ReadonlyArray<string>): Array<string> => {
  const left = new Map<string, number>()
  for (const item of gold) left.set(item, (left.get(item) ?? 0) + 1)
  const goldShingles = new Set(shingles(gold))
  const inGoldRun = candidate.map((_, i) => {
    for (let start = Math.max(0, i - 3); start <= i && start + 4 <= candidate.length; start++)
      if (goldShingles.has(candidate.slice(start, start + 4).join(" "))) return true
    return false
  })
  const matched = candidate.map(() => false)
  for (const inRunOnly of [true, false])
    candidate.forEach((item, i) => {
      const remaining = left.get(item) ?? 0
      if (matched[i] || remaining === 0 || (inRunOnly && !inGoldRun[i])) return
      matched[i] = true
      left.set(item, remaining - 1)
    })
  return candidate.filter((_, i) => !matched[i])
}

export const precision = ({ tp, fp, fn }: Counts) => (fp === 0 && fn === 0 ? 1 : tp + fp === 0 ? 0 : tp / (tp + fp))
export const recall = ({ tp, fp, fn }: Counts) => (fp === 0 && fn === 0 ? 1 : tp + fn === 0 ? 0 : tp / (tp + fn))

export interface PageQuality {
  readonly token: Counts
  readonly shingle: Counts
  readonly rendered: Counts
  /** The benchmark's shingle measure on the rendered words: what `/v2/scrape` users see, as the benchmark scores it. */
  readonly renderedShingle: Counts
  /** The rendered words that the gold does not have (the false positives of `rendered`), in order. */
  readonly renderedExtra: () => Array<string>
}

export const pageQuality = (gold: string, markdown: string): PageQuality => {
  const goldWords = tokens(gold)
  const words = markdownTokens(markdown)
  const rendered = renderedTokens(markdown)
  return {
    token: match(goldWords, words),
    shingle: match(shingles(goldWords), shingles(words)),
    rendered: match(goldWords, rendered),
    renderedShingle: match(shingles(goldWords), shingles(rendered)),
    renderedExtra: () => falsePositives(goldWords, rendered),
  }
}

export const pageF1 = (counts: Counts): number => {
  const p = precision(counts)
  const r = recall(counts)
  return p + r === 0 ? 0 : (2 * p * r) / (p + r)
}

export interface Summary {
  readonly precision: number
  readonly recall: number
  readonly f1: number
}

const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

/** Macro averages over pages: mean precision, mean recall, F1 of the two means (the benchmark's convention). */
export const summarize = (pages: ReadonlyArray<Counts>): Summary => {
  const p = mean(pages.filter((c) => c.tp + c.fp > 0).map(precision))
  const r = mean(pages.filter((c) => c.tp + c.fn > 0).map(recall))
  return { precision: p, recall: r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) }
}
