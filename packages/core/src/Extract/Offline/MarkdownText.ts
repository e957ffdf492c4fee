/**
 * The readable text of a page's markdown, by blocks: paragraphs and list items as plain text (links keep their text;
 * images, code, tables, HTML tags and link definitions go), headings apart (they are a signal for ranking, never
 * output). A line-based reading, enough for the markdown the content pipeline writes and for most hand-written
 * markdown.
 */

export interface TextBlocks {
  /** Paragraphs and list items, in order. */
  readonly blocks: ReadonlyArray<string>
  readonly headings: ReadonlyArray<string>
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/
const SETEXT = /^\s{0,3}(?:=+|-+)\s*$/
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/
const TABLE_ROW = /^\s*\|/
const LINK_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*\S/

/**
 * Inline markdown as plain text. Every pattern is bounded in length (an emphasis or a link text of at most 300
 * characters, a link target of 500), so that a paragraph of thousands of unclosed `**` or `[a](` costs linear time.
 */
const plainInline = (text: string): string =>
  text
    .replace(/!\[[^\]]{0,300}\]\([^)]{0,500}\)/g, "")
    .replace(/!\[[^\]]{0,300}\]\[[^\]]{0,100}\]/g, "")
    .replace(/\[\^[^\]]{1,100}\]/g, "")
    .replace(/\[([^\]]{0,300})\]\((?:[^()]|\([^()]{0,100}\)){0,500}\)/g, "$1")
    .replace(/\[([^\]]{1,300})\]\[[^\]]{0,100}\]/g, "$1")
    .replace(/<(?:https?|mailto|ftp):[^>\s]{0,2000}>/gi, "")
    .replace(/<\/?[a-zA-Z][^>]{0,500}>/g, "")
    .replace(/`+([^`]{0,500})`+/g, "$1")
    // A backtick left over (a code span broken by the line-based reading) is syntax, not text.
    .replace(/`/g, "")
    .replace(/(\*\*|__)(?=\S)(.{1,300}?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)(.{1,300}?)(?<=\S)\*(?![\p{L}\p{N}*])/gu, "$1$2")
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)(.{1,300}?)(?<=\S)_(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/~~(?=\S)(.{1,300}?)(?<=\S)~~/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, "$1")
    .replace(/\s+/g, " ")
    .trim()

export const markdownText = (markdown: string): TextBlocks => {
  const blocks: Array<string> = []
  const headings: Array<string> = []
  let paragraph: Array<string> = []
  const flush = () => {
    const text = plainInline(paragraph.join(" "))
    if (text !== "") blocks.push(text)
    paragraph = []
  }
  let fence: string | undefined
  for (const line of markdown.split(/\r?\n/)) {
    const fenceMark = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (fenceMark !== undefined && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = undefined
      continue
    }
    if (fenceMark !== undefined) {
      flush()
      fence = fenceMark
      continue
    }
    const heading = HEADING.exec(line)
    if (heading !== null) {
      flush()
      const text = plainInline(heading[1]!)
      if (text !== "") headings.push(text)
      continue
    }
    // A setext underline makes the paragraph above it a heading.
    if (SETEXT.test(line) && paragraph.length > 0) {
      const text = plainInline(paragraph.join(" "))
      if (text !== "") headings.push(text)
      paragraph = []
      continue
    }
    if (line.trim() === "" || RULE.test(line) || TABLE_ROW.test(line) || LINK_DEFINITION.test(line)) {
      flush()
      continue
    }
    const content = line.replace(/^\s{0,3}(?:>\s?)+/, "")
    if (LIST_ITEM.test(content)) {
      flush()
      paragraph.push(content.replace(LIST_ITEM, ""))
      continue
    }
    paragraph.push(content)
  }
  flush()
  return { blocks, headings }
}
