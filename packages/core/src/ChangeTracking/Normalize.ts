/**
 * The canonical text of a page for change tracking: what is stored as the previous scrape and what two scrapes are
 * compared on. Edits that do not change what a reader sees or where a link leads read as "same"; every edit of the
 * content (a word, a number, a link target, a list item, a heading, a table cell) still reads as "changed".
 *
 * `normalizeMarkdown` applies, in this order:
 * 1. Line ends: CRLF and lone CR become LF.
 * 2. Invisible characters are removed: zero-width space, non-joiner and joiner (U+200B–U+200D), word joiner
 *    (U+2060), byte-order mark (U+FEFF) and soft hyphen (U+00AD).
 * 3. Unicode NFC: a composed `é` and `e` + combining accent are the same text.
 * 4. Unusual spaces become a plain space: no-break space (U+00A0, `&nbsp;`), the typographic spaces U+2000–U+200A,
 *    narrow no-break space (U+202F), medium mathematical space (U+205F), ideographic space (U+3000) and tab.
 * 5. Runs of spaces inside a line become one space; a line's indentation is kept (it nests lists and code; a tab
 *    in it is one space, as everywhere), and trailing spaces are removed (so a two-space hard break reads as a
 *    plain line end).
 * 6. Tracking parameters are removed from URLs, in link targets `[text](url)` and bare `http(s)://` URLs: `utm_*`
 *    and `mtm_*`, and the click and campaign identifiers listed in `TRACKING_PARAMETERS` (fbclid, gclid, msclkid,
 *    mc_eid, _hsenc, …); names are compared without case and without markdown escapes (`utm\_source` in text). The
 *    rest of the URL is kept exactly, parameter order included; a URL left with no parameter loses its `?`;
 *    punctuation after a bare URL (`.`, `,`, `!`…) stays.
 * 7. Markdown style, outside fenced code: `*` and `+` bullets become `-`, and `__strong__` becomes `**strong**`
 *    (not on a line with a code span, whose underscores are code). The scrape pipeline always writes `-` and `**`;
 *    this is for markdown served as is (`text/markdown` pages).
 * 8. Blank lines: three or more line ends become two, and blank lines at the start and end are removed.
 *
 * `compileIgnore` compiles a caller's patterns of text to leave out of the comparison (a timestamp, a view counter).
 */
import { RE2JS } from "re2js"

const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g
const SPACES = /[\t\u00A0\u2000-\u200A\u202F\u205F\u3000]/g

/** Rules 5 and 8: the spacing every other rule, and an ignore pattern's removal, may leave behind. */
const normalizeSpacing = (text: string): string =>
  text
    .replace(/(?<=\S) {2,}/g, " ")
    .replace(/ +$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "")

/** Click identifiers and campaign tags of ad, analytics and e-mail platforms; `utm_` and `mtm_` are prefixes. */
const TRACKING_PARAMETERS = new Set([
  // Google Ads, Analytics and Shopping
  "gclid",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "_ga",
  "_gl",
  "srsltid",
  // Meta, Microsoft, Yandex, X, TikTok, LinkedIn
  "fbclid",
  "igshid",
  "msclkid",
  "yclid",
  "twclid",
  "ttclid",
  "li_fat_id",
  // Adobe, Matomo
  "s_kwcid",
  "ef_id",
  "pk_campaign",
  "pk_kwd",
  "pk_source",
  "pk_medium",
  "pk_content",
  // Mailchimp, HubSpot, Marketo, Vero, Olytics
  "mc_cid",
  "mc_eid",
  "_hsenc",
  "_hsmi",
  "__hstc",
  "__hssc",
  "__hsfp",
  "hsctatracking",
  "mkt_tok",
  "vero_id",
  "vero_conv",
  "oly_anon_id",
  "oly_enc_id",
])

const isTracking = (parameter: string): boolean => {
  const equals = parameter.indexOf("=")
  // A URL in the page's text has its underscores escaped by the markdown writer (`utm\_source`).
  const name = (equals === -1 ? parameter : parameter.slice(0, equals)).replaceAll("\\", "").toLowerCase()
  return name.startsWith("utm_") || name.startsWith("mtm_") || TRACKING_PARAMETERS.has(name)
}

/**
 * A URL: its start (`http(s)://` or a link target's `](`), its path, and its query up to the fragment if it has one.
 * Both parts stop at what ends a URL in markdown text (space, quote, bracket, parenthesis) but run over a
 * backslash-escaped character, as the pipeline escapes parentheses in link targets. The query is optional so that
 * every URL matches whole and the search resumes after it: linear in the text, whatever the page holds.
 */
const URL_QUERY = /(https?:\/\/|\]\(<?)((?:[^\s?#<>"'`()[\]\\]|\\.)*)(?:\?((?:[^\s#<>"'`()[\]\\]|\\.)*))?/gi

/** Punctuation that ends a sentence rather than a bare URL (GFM's autolink rule), kept when a parameter goes. */
const trailingPunctuation = (query: string): number => {
  let end = query.length
  while (end > 0 && ".,;:!?*_~".includes(query[end - 1]!)) end--
  return end
}

const stripTracking = (url: string, start: string, path: string, query: string | undefined): string => {
  if (query === undefined) return url
  const end = trailingPunctuation(query)
  const parameters = query.slice(0, end).split("&")
  const kept = parameters.filter((parameter) => !isTracking(parameter))
  if (kept.length === parameters.length) return url
  const rest = kept.join("&")
  return `${start}${path}${rest === "" ? "" : `?${rest}`}${query.slice(end)}`
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/
/** A bullet's marker; a thematic break (`* * *`) is excluded by the caller. */
const BULLET = /^( *)[*+](?= +\S)/
const THEMATIC_BREAK = /^ {0,3}(?:\* *){3,}$/
/** `__text__` where CommonMark reads strong emphasis: not inside a word, not around spaces. */
const UNDERSCORE_STRONG = /(?<![\w\\])__(?![\s_])(.+?)(?<![\s\\_])__(?!\w)/g

const normalizeStyle = (line: string): string => {
  let styled = THEMATIC_BREAK.test(line) ? line : line.replace(BULLET, "$1-")
  if (styled.includes("__") && !styled.includes("`")) styled = styled.replace(UNDERSCORE_STRONG, "**$1**")
  return styled
}

/** Rule 7, line by line: a fence opens with three or more backticks or tildes and closes with at least as many. */
const normalizeMarkdownStyle = (text: string): string => {
  let fence: string | undefined
  return text
    .split("\n")
    .map((line) => {
      const marker = FENCE.exec(line)?.[1]
      if (fence === undefined) {
        if (marker === undefined) return normalizeStyle(line)
        fence = marker
      } else if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return line
    })
    .join("\n")
}

/** The canonical text of a page's markdown (the rules are in this module's comment). */
export const normalizeMarkdown = (markdown: string): string =>
  normalizeSpacing(
    normalizeMarkdownStyle(
      markdown
        .replace(/\r\n?/g, "\n")
        // Before NFC: an invisible character between a letter and its accent would keep them apart.
        .replace(INVISIBLE, "")
        .normalize("NFC")
        .replace(SPACES, " ")
        .replace(URL_QUERY, stripTracking),
    ),
  )

/**
 * Bounds on a caller's ignore patterns. Matching is linear in the text, but its cost per character grows with the
 * compiled program: up to ~30 ns per instruction and character (re2js, when the fast DFA test finds a match and the
 * matcher must locate it). A page's text is much longer than a URL, hence tighter bounds than `includePaths`': the
 * whole budget costs at most about 1 s on 50 KB of markdown. Ordinary patterns (a date, a counter) compile to 10–50
 * instructions; counted repetitions (`.{0,100}`) are what grow a program.
 */
export const IGNORE_LIMITS = { count: 50, length: 500, programSize: 300, totalProgramSize: 1_000 } as const

export type CompiledIgnore =
  | { readonly ok: true; readonly apply: (text: string) => string }
  | { readonly ok: false; readonly pattern: string; readonly message: string }

const compileOne = (pattern: string): RE2JS | string => {
  if (pattern.length > IGNORE_LIMITS.length) return `longer than ${IGNORE_LIMITS.length} characters`
  try {
    // Multiline: `^` and `$` match at line ends, as a pattern written against the page's lines expects.
    const compiled = RE2JS.compile(pattern, RE2JS.MULTILINE)
    return compiled.programSize() > IGNORE_LIMITS.programSize
      ? "too complex (its compiled program is too large); simplify its repetitions"
      : compiled
  } catch (error) {
    // re2js quotes the pattern with the multiline flag it was given in front; the caller did not write that.
    const message = (error instanceof Error ? error.message : String(error)).replace("`(?m)", "`")
    return /unsupported|escape|named capture/.test(message)
      ? `${message} (patterns use RE2 syntax: no look-around, no back-references)`
      : message
  }
}

/**
 * Compiles ignore patterns (RE2 syntax, so matching stays linear whatever the pattern), skipping blank ones. `apply`
 * removes every match, then normalizes spacing again. A match is replaced by nothing rather than a placeholder: the
 * ignored text then counts as absent, so a counter or banner that appears on one scrape only does not read as a change.
 * The first invalid pattern is returned with the reason, for the API's 400 answer.
 */
export const compileIgnore = (patterns: ReadonlyArray<string>): CompiledIgnore => {
  if (patterns.length > IGNORE_LIMITS.count)
    return { ok: false, pattern: `${patterns.length} patterns`, message: `at most ${IGNORE_LIMITS.count} are allowed` }
  const compiled: Array<RE2JS> = []
  let programSize = 0
  for (const pattern of patterns) {
    if (pattern.trim() === "") continue
    const result = compileOne(pattern)
    if (typeof result === "string") return { ok: false, pattern, message: result }
    programSize += result.programSize()
    if (programSize > IGNORE_LIMITS.totalProgramSize)
      return { ok: false, pattern, message: "the patterns together are too complex; simplify or remove some" }
    compiled.push(result)
  }
  return {
    ok: true,
    apply: (text) => {
      // `test` runs re2js's DFA, much faster than the matcher that finds positions: most patterns miss most pages.
      const removed = compiled.reduce(
        (each, pattern) => (pattern.test(each) ? pattern.matcher(each).replaceAll("") : each),
        text,
      )
      return normalizeSpacing(removed)
    },
  }
}
