/**
 * Fitting content into a model's context: a cheap token estimate (about four characters a token, each non-ASCII
 * character counted as a whole token, which errs on the safe side for non-Latin scripts), a reserve for the answer,
 * and the splitting of content that does not fit into chunks on paragraph boundaries (for objects, whose chunks'
 * values are merged) or its trimming (for text).
 */

/** Estimated tokens of a text. */
export const estimateTokens = (text: string): number => {
  let ascii = 0
  let other = 0
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) < 128) ascii++
    else other++
  }
  return Math.ceil(ascii / 4 + other)
}

/** Tokens kept free for the answer: a quarter of the context, between 1k and 16k. */
export const answerReserve = (contextTokens: number): number =>
  Math.min(16_384, Math.max(1_024, Math.floor(contextTokens / 4)))

/** Added to what is left of the rest when content is cut short. */
export const TRIM_NOTE = "\n\n[The rest of the content was cut to fit the model's context.]"

/** Chunks are not made smaller than this, however little room the prompt leaves. */
const MIN_CHUNK_TOKENS = 256

/** The longest prefix of `text` within `maxTokens`, ending on white space when one is near the end. */
const cutToTokens = (text: string, maxTokens: number): string => {
  let cost = 0
  let end = 0
  while (end < text.length) {
    cost += text.charCodeAt(end) < 128 ? 0.25 : 1
    if (cost > maxTokens) break
    end++
  }
  if (end >= text.length) return text
  const space = text.lastIndexOf(" ", end)
  const newline = text.lastIndexOf("\n", end)
  const boundary = Math.max(space, newline)
  return boundary > end * 0.8 ? text.slice(0, boundary) : text.slice(0, end)
}

interface Unit {
  readonly text: string
  /** What joins it to the unit before it in the same chunk. */
  readonly joiner: string
}

/** The content as paragraphs, each within `maxTokens` (longer ones split into lines, longer lines cut). */
const units = (content: string, maxTokens: number): Array<Unit> => {
  const result: Array<Unit> = []
  for (const paragraph of content.split(/\n[ \t]*\n+/)) {
    if (paragraph.trim() === "") continue
    if (estimateTokens(paragraph) <= maxTokens) {
      result.push({ text: paragraph, joiner: "\n\n" })
      continue
    }
    let joiner = "\n\n"
    for (const line of paragraph.split("\n")) {
      let rest = line
      for (;;) {
        // A prefix at a time (never the whole rest again: a long line of a large page would take quadratic time).
        const piece = cutToTokens(rest, maxTokens) || rest.slice(0, 1)
        if (piece.length >= rest.length) break
        result.push({ text: piece, joiner })
        joiner = " "
        rest = rest.slice(piece.length).trimStart()
      }
      if (rest.trim() !== "") result.push({ text: rest, joiner })
      joiner = "\n"
    }
  }
  return result
}

export interface Chunked {
  readonly chunks: ReadonlyArray<string>
  /** Content beyond `maxChunks` chunks was left out (the last chunk ends with `TRIM_NOTE`). */
  readonly trimmed: boolean
}

/**
 * `content` in chunks of at most `maxTokens` each, split between paragraphs where it can be; one chunk when it fits.
 * At most `maxChunks`: what would not fit in them is left out and said so at the end of the last.
 */
export const splitContent = (content: string, maxTokens: number, maxChunks: number): Chunked => {
  const budget = Math.max(MIN_CHUNK_TOKENS, Math.floor(maxTokens))
  if (estimateTokens(content) <= budget) return { chunks: [content], trimmed: false }
  // No character costs less than a quarter of a token: what lies beyond this can never be in a chunk.
  const reachable = budget * maxChunks * 4
  const cut = content.length > reachable
  if (cut) content = content.slice(0, reachable)
  const noteTokens = estimateTokens(TRIM_NOTE)
  const chunks: Array<string> = []
  let current = ""
  let currentTokens = 0
  const room = budget - noteTokens
  for (const unit of units(content, room)) {
    if (current === "") {
      current = unit.text
      currentTokens = estimateTokens(unit.text)
      continue
    }
    const tokens = estimateTokens(unit.joiner) + estimateTokens(unit.text)
    if (currentTokens + tokens <= room) {
      current = `${current}${unit.joiner}${unit.text}`
      currentTokens += tokens
      continue
    }
    if (chunks.length === maxChunks - 1) return { chunks: [...chunks, `${current}${TRIM_NOTE}`], trimmed: true }
    chunks.push(current)
    current = unit.text
    currentTokens = estimateTokens(unit.text)
  }
  if (current !== "") chunks.push(cut ? `${current}${TRIM_NOTE}` : current)
  return { chunks, trimmed: cut }
}

/** `content` cut to `maxTokens` on a paragraph boundary (with `TRIM_NOTE`), or as it is when it fits. */
export const trimContent = (
  content: string,
  maxTokens: number,
): { readonly content: string; readonly trimmed: boolean } => {
  const { chunks, trimmed } = splitContent(content, maxTokens, 1)
  return { content: chunks[0] ?? "", trimmed }
}
