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
    .replace(/[*`~]+/g, "")
    .replace(/\|/g, " ")
    // An underscore inside a word (snake_case) is part of it; at the ends of one it is emphasis.
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, " ")
    .replace(/\s+/g, " ")
    .trim()

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * What finds the words `terms` in a text: the start of a word that is one of them (case-insensitive); none without
 * terms. Made once for all the snippets of a query (compiling it per page would cost more than the rest).
 */
export const termFinder = (terms: Iterable<string>): RegExp | undefined => {
  // Longest first, so that a term is found whole rather than a shorter one it starts with.
  const words = [...new Set(terms)].filter((term) => term.length > 0).sort((a, b) => b.length - a.length)
  return words.length === 0
    ? undefined
    : new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escapeRegExp).join("|")})`, "iu")
}

/** Where `finder` first finds a term in `text`, or -1. */
const firstOccurrence = (text: string, finder: RegExp | undefined): number => finder?.exec(text)?.index ?? -1

/** How much of the snippet comes before the term found (at most a third): enough to read it in its sentence. */
const LEAD_CHARS = 60

/**
 * About `size` characters of `text` (plain text) around the first term `finder` finds, cut on word
 * boundaries, with "…" where the text goes on (`cut`: whether `text` itself was cut out of a longer one); the start
 * of the text when no term occurs in it.
 */
export const snippet = (
  text: string,
  finder: RegExp | undefined,
  size = 200,
  cut: { readonly before: boolean; readonly after: boolean } = { before: false, after: false },
): string => {
  const at = Math.max(0, firstOccurrence(text, finder))
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
  const before = start > 0 || cut.before
  const after = end < text.length || cut.after
  return `${before ? "…" : ""}${text.slice(start, end).trim()}${after ? "…" : ""}`
}

/** Raw markdown read around the first term, in lines (markup such as headings and lists is marked at line starts). */
const WINDOW_LINES_CHARS = 2000

/**
 * The snippet of a page's markdown: only the part around the first term is read as plain text, so that the cost does
 * not grow with the page. The window is wide enough for the markup it drops (link targets, emphasis).
 */
export const markdownSnippet = (markdown: string, finder: RegExp | undefined, size = 200): string => {
  const at = Math.max(0, firstOccurrence(markdown, finder))
  const from = Math.max(0, at - size * 2)
  const to = Math.min(markdown.length, at + size * 4)
  // Whole lines, unless a line is very long (a page on one line).
  const lineStart = markdown.lastIndexOf("\n", from) + 1
  const start = from - lineStart <= WINDOW_LINES_CHARS ? lineStart : from
  const lineEnd = markdown.indexOf("\n", to)
  const end = lineEnd < 0 ? markdown.length : lineEnd - to <= WINDOW_LINES_CHARS ? lineEnd : to
  const text = plainText(markdown.slice(start, end))
  return snippet(text, finder, size, { before: start > 0, after: end < markdown.length })
}
