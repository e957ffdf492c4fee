/**
 * Sentences of a block of plain text: the Unicode sentence boundaries (`Intl.Segmenter`, which already keeps
 * decimals and "e.g. the" together), joined back where a boundary follows an abbreviation ("Dr. Smith", "approx. 5")
 * or an initial ("J. K. Rowling"), where ICU breaks.
 */

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" })

/** Abbreviations that rarely end a sentence, without their final period, lower-cased. */
const ABBREVIATIONS = new Set(
  (
    "mr mrs ms dr prof sr jr st mt vs v e.g i.e cf al approx ca no nos fig figs vol pp p ed eds inc ltd co corp dept " +
    "gen col lt sgt capt gov sen rep rev hon jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n " +
    "est ft min max tel ave blvd rd"
  ).split(" "),
)

const endsWithAbbreviation = (text: string): boolean => {
  const match = /(?:^|[\s(["'])([\p{L}.]+)\.\s*$/u.exec(text)
  if (match === null) return false
  const word = match[1]!
  // A single capital is an initial ("J. K. Rowling").
  return ABBREVIATIONS.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word)
}

/**
 * Characters of one block segmented at most. The segmenter's time grows faster than linearly with the segments of
 * one string (a paragraph of 40,000 "!" takes over a minute); real paragraphs are far shorter.
 */
const MAX_BLOCK_CHARS = 5_000

/** The block's sentences, trimmed, whitespace collapsed; of a longer block, the complete ones of its beginning. */
export const sentencesOf = (block: string): Array<string> => {
  const sentences: Array<string> = []
  const cut = block.length > MAX_BLOCK_CHARS
  let pending = ""
  for (const { segment } of segmenter.segment(cut ? block.slice(0, MAX_BLOCK_CHARS) : block)) {
    pending += segment
    if (endsWithAbbreviation(pending)) continue
    const sentence = pending.replace(/\s+/g, " ").trim()
    if (sentence !== "") sentences.push(sentence)
    pending = ""
  }
  const rest = pending.replace(/\s+/g, " ").trim()
  if (rest !== "") sentences.push(rest)
  // The last sentence of a cut block may be cut too.
  if (cut) sentences.pop()
  return sentences
}
