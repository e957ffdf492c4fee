/**
 * How close a markdown rendering is to a ground-truth one. Two measures:
 * - text: F1 of the word multisets (markdown syntax, link targets and HTML comments removed, lower case), and of
 *   the word-bigram multisets, which also rewards reading order;
 * - tables: each ground-truth GFM table matched to the candidate table that shares most (row, column, cell text)
 *   triples; F1 of those triples, averaged over the ground truth's tables (a missing table scores 0).
 */

const words = (markdown: string): Array<string> =>
  markdown
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s*\|?\s*:?-+\s*(\||$).*$/gm, " ")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []

const counts = (items: ReadonlyArray<string>) => {
  const map = new Map<string, number>()
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1)
  return map
}

const f1 = (candidate: ReadonlyArray<string>, truth: ReadonlyArray<string>): number => {
  if (truth.length === 0) return candidate.length === 0 ? 1 : 0
  if (candidate.length === 0) return 0
  const have = counts(candidate)
  let overlap = 0
  for (const [item, count] of counts(truth)) overlap += Math.min(count, have.get(item) ?? 0)
  const precision = overlap / candidate.length
  const recall = overlap / truth.length
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
}

const bigrams = (tokens: ReadonlyArray<string>) => tokens.slice(1).map((token, index) => `${tokens[index]} ${token}`)

export const textF1 = (candidate: string, truth: string): number => f1(words(candidate), words(truth))
export const orderF1 = (candidate: string, truth: string): number =>
  f1(bigrams(words(candidate)), bigrams(words(truth)))

type Table = Array<Array<string>>

/** GFM tables: runs of `|` lines with a delimiter row second. */
export const tablesOf = (markdown: string): Array<Table> => {
  const tables: Array<Table> = []
  const lines = markdown.split("\n")
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*\|/.test(lines[index]!) || !/^\s*\|?\s*:?-+\s*(\||$)/.test(lines[index + 1] ?? "")) continue
    const rows: Table = []
    let end = index
    while (end < lines.length && /^\s*\|/.test(lines[end]!)) {
      if (end !== index + 1)
        rows.push(
          lines[end]!.trim()
            .replace(/^\||\|$/g, "")
            .split("|")
            .map((cell) => words(cell).join(" ")),
        )
      end++
    }
    tables.push(rows)
    index = end
  }
  return tables
}

const triples = (table: Table) =>
  table
    .flatMap((row, r) => row.map((cell, c) => `${r}\u0000${c}\u0000${cell}`))
    .filter((key) => !key.endsWith("\u0000"))

/** Mean over the truth's tables of the best triple F1 among the candidate's; undefined when the truth has none. */
export const tableF1 = (candidate: string, truth: string): number | undefined => {
  const expected = tablesOf(truth)
  if (expected.length === 0) return undefined
  const found = tablesOf(candidate).map(triples)
  const scores = expected.map((table) => Math.max(0, ...found.map((cells) => f1(cells, triples(table)))))
  return scores.reduce((sum, score) => sum + score, 0) / scores.length
}
