/**
 * What CommonMark (with GFM's tables and strikethrough) reads as syntax in text, and how to keep text from being
 * read so: the escapes for text, for the start of a line, for link destinations, and the flanking rules that decide
 * whether an emphasis delimiter opens or closes anything.
 */

/** Characters read as syntax anywhere in a line; `<` only before what could be a tag, `&` only before a reference. */
const INLINE = /[\\`*_[\]]|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|~(?=~)|(?<=~)~/g
/** The characters `INLINE` may match: one class, cheap to test on text that has none (most text). */
const MAY_NEED_ESCAPE = /[\\`*_[\]<&~]/

/** Text with every character a renderer would read as markup (emphasis, code, links, HTML, references) escaped. */
export const escapeInline = (text: string): string => (MAY_NEED_ESCAPE.test(text) ? text.replace(INLINE, "\\$&") : text)

/**
 * Block syntax at the start of a line: ATX headings, bullets, quotes, ordered-list markers (`1.` and `1)`), setext
 * underlines and thematic breaks (fences cannot start text: backticks and doubled tildes are escaped inline). Group 1 is the number of an ordered-list marker, whose `.` or `)` is escaped.
 */
const LINE_START = /^(?:#{1,6}(?:[ \t]|$)|[-+*](?:[ \t]|$)|>|(\d{1,9})[.)](?:[ \t]|$)|=+[ \t]*$|(?:-[ \t]*)+$)/
const MAY_START_BLOCK = /^[#\-+*>=0-9]/

/** A GFM table's delimiter row (`--- | ---`): under a line of text with a `|` it makes that line a table header. */
const DELIMITER_ROW = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/

/** A line of text with a backslash where its start would otherwise be read as a block (a heading, list, quote…). */
export const escapeLineStart = (line: string): string => {
  let at = -1
  if (MAY_START_BLOCK.test(line)) {
    const match = LINE_START.exec(line)
    if (match !== null) at = match[1]?.length ?? 0
  }
  if (at < 0 && line.includes("|") && DELIMITER_ROW.test(line)) at = line.search(/[-:]/)
  return at < 0 ? line : `${line.slice(0, at)}\\${line.slice(at)}`
}

/** A heading's text whose trailing `#`s would be read as the heading's optional closing sequence. */
export const escapeHeadingEnd = (text: string): string => text.replace(/(^|[ \t])(#+)$/, "$1\\$2")

/**
 * A link or image destination: in angle brackets when it holds spaces or brackets (a fragment `#section two`),
 * else with parentheses escaped so that an unbalanced one does not end it early.
 */
export const destination = (url: string): string =>
  /[\s<>]/.test(url)
    ? `<${url.replace(/[\r\n]/g, "").replace(/[<>]/g, (bracket) => encodeURIComponent(bracket))}>`
    : url.replace(/[()\\]/g, "\\$&")

/** A link or image title in double quotes. */
export const title = (text: string): string => (text === "" ? "" : ` "${text.replace(/["\\]/g, "\\$&")}"`)

/** Unicode whitespace as CommonMark counts it (space separators, tab, line feed, form feed, carriage return). */
export const isWhitespaceCode = (code: number): boolean =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000

/** The start or end of a line ("") counts as whitespace. */
const isWhitespace = (char: string): boolean => char === "" || isWhitespaceCode(char.charCodeAt(0))
/** ASCII punctuation and Unicode punctuation and symbols (CommonMark 0.31). */
const PUNCTUATION = /[\p{P}\p{S}]/u
const isPunctuation = (char: string): boolean => PUNCTUATION.test(char)

/** A delimiter run between `before` and `after` can open emphasis (it is left-flanking). */
export const canOpen = (before: string, after: string): boolean =>
  !isWhitespace(after) && (!isPunctuation(after) || isWhitespace(before) || isPunctuation(before))

/** A delimiter run between `before` and `after` can close emphasis (it is right-flanking). */
export const canClose = (before: string, after: string): boolean =>
  !isWhitespace(before) && (!isPunctuation(before) || isWhitespace(after) || isPunctuation(after))
