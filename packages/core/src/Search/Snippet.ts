/**
 * The words of a page around the query terms, as a search result shows them: the page's markdown read as plain text
 * (link targets, images, emphasis and heading marks gone), cut on word boundaries around the first term found.
 */

/** Markdown as the words a reader sees: markup and link targets removed, whitespace collapsed. */
export const plainText = (markdown: string): string =>
  markdown
    .replace(/^\s*(```|~~~).*$/gm, " ")
    .replace(/^\s*\[[^\]\n]+\]:\s*\S+.*$/gm, " ")
    .replace(/!\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)/g, "$1")
    .replace(/\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)/g, "$1")
    .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, "$1")
    .replace(/<(https?:[^>\s]+)>/g, "$1")
    .replace(/<\/?[a-zA-Z][^>\n]*>/g, " ")
    .replace(/^\s{0,3}#{1,6}\s+|\s+#+\s*$/gm, " ")
    .replace(/^\s*(?:[-*_=]\s*){3,}$/gm, " ")
    .replace(/^\s*(?:>\s?)+/gm, " ")
    .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/gm, " ")
    .replace(/^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/gm, " ")
    .replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, "$1")
    .replace(/[*`~|]+/g, " ")
    // An underscore inside a word (snake_case) is part of it; at the ends of one it is emphasis.
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, " ")
    .replace(/\s+/g, " ")
    .trim()

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Where a word of `terms` first starts in `text` (case-insensitive), or -1. */
const firstOccurrence = (text: string, terms: ReadonlyArray<string>): number => {
  const words = terms.filter((term) => term.length > 0)
  if (words.length === 0) return -1
  // Longest first, so that a term is found whole rather than a shorter one it starts with.
  const pattern = [...words].sort((a, b) => b.length - a.length).map(escapeRegExp)
  const match = new RegExp(`(?<![\\p{L}\\p{N}])(?:${pattern.join("|")})`, "iu").exec(text)
  return match === null ? -1 : match.index
}

/** How much of the snippet comes before the term found (at most a third): enough to read it in its sentence. */
const LEAD_CHARS = 60

/**
 * About `size` characters of `text` (plain text) around the first occurrence of one of `terms`, cut on word
 * boundaries, with "…" where the text goes on; the start of the text when no term occurs in it.
 */
export const snippet = (text: string, terms: ReadonlyArray<string>, size = 200): string => {
  if (text.length <= size) return text
  const at = Math.max(0, firstOccurrence(text, terms))
  let start = Math.max(0, Math.min(at - Math.min(LEAD_CHARS, Math.floor(size / 3)), text.length - size))
  if (start > 0) {
    const space = text.indexOf(" ", start)
    start = space >= 0 && space < at ? space + 1 : start
  }
  let end = Math.min(text.length, start + size)
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end)
    end = space > start ? space : end
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`
}
