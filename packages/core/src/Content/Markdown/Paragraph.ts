/**
 * One paragraph of inline markdown, collected as pieces and written when the paragraph ends, when everything around
 * each emphasis delimiter is known. Whitespace is moved out of emphasis, empty emphasis is dropped, `</b><b>` is
 * merged, and emphasis whose delimiters CommonMark would not read as emphasis (next to punctuation or a no-break
 * space on the wrong side) is written as plain text: a renderer never shows a literal `*`. Emphasis that spans a
 * block boundary is closed before it and opened again after it.
 */
import { canClose, canOpen, escapeLineStart } from "./Syntax.js"

type Piece =
  /** Escaped text, or markup written as is (inline code, images, link brackets). */
  | { readonly kind: "text"; text: string }
  /** Whitespace between words: collapsible spaces, or no-break spaces kept as they are. */
  | { readonly kind: "space"; readonly text: string }
  /** A hard line break. */
  | { readonly kind: "break"; readonly text: "\n" }
  /** A link's `[` and its `](url)`: whitespace goes outside them like outside emphasis. */
  | { readonly kind: "linkOpen" | "linkClose"; readonly text: string }
  | { readonly kind: "open" | "close"; readonly text: string; readonly id: number }

interface OpenEmphasis {
  readonly mark: string
  readonly id: number
  /** Its opening delimiter is in the current paragraph. */
  inParagraph: boolean
}

/** The first code point of a string, "" for none. */
const firstChar = (text: string): string => {
  const code = text.codePointAt(0)
  return code === undefined ? "" : String.fromCodePoint(code)
}

/** The last code point of a string, "" for none. */
const lastChar = (text: string): string => {
  const low = text.charCodeAt(text.length - 1)
  return low >= 0xdc00 && low <= 0xdfff && text.length > 1 ? text.slice(-2) : text.slice(-1)
}

const isDelimiter = (piece: Piece): piece is Extract<Piece, { kind: "open" | "close" }> =>
  piece.kind === "open" || piece.kind === "close"

export class Paragraph {
  private pieces: Array<Piece> = []
  private content = false
  /** Emphasis or links are in it: whitespace is moved out of them. */
  private delimited = false
  /** Emphasis is in it: its delimiters are checked. */
  private emphasis = false
  private readonly open: Array<OpenEmphasis> = []
  private ids = 0
  /** Whitespace after the last piece, not placed yet: it joins the next text, or becomes a space piece. */
  private gap = ""

  get hasContent(): boolean {
    return this.content
  }

  /** Escaped text; `text` holds no whitespace at either end. */
  text(text: string): void {
    // Text after text (with plain whitespace between) is one piece: most of a paragraph is.
    const last = this.pieces.at(-1)
    if (last?.kind === "text") {
      last.text += this.gap === "" ? text : gapOf(this.gap).text + text
      this.gap = ""
      return
    }
    this.placeGap()
    this.beginContent()
    this.pieces.push({ kind: "text", text })
  }

  /** Markup written as is, set off like text (inline code, an image). */
  markup(text: string): void {
    // Two code spans in a row would read as one run of backticks.
    const last = this.pieces.at(-1)
    if (text.startsWith("`") && this.gap === "" && last?.kind === "text" && last.text.endsWith("`")) this.space(" ")
    this.text(text)
  }

  space(text: string): void {
    this.gap += text
  }

  /** Pending whitespace becomes a piece, before a piece that is not text. */
  private placeGap(): void {
    if (this.gap === "") return
    this.pieces.push(gapOf(this.gap))
    this.gap = ""
  }

  /** A hard line break; false when the paragraph already ends in one (two in a row end the paragraph instead). */
  lineBreak(): boolean {
    this.placeGap()
    for (let i = this.pieces.length - 1; i >= 0; i--) {
      const piece = this.pieces[i]!
      if (piece.kind === "break") return false
      if (piece.kind !== "space") break
    }
    this.pieces.push({ kind: "break", text: "\n" })
    return true
  }

  /** Opens emphasis with `mark`; undefined (nothing to close) inside emphasis of the same mark. */
  openEmphasis(mark: string): number | undefined {
    if (this.open.some((entry) => entry.mark === mark)) return undefined
    this.placeGap()
    this.beginContent()
    const id = this.ids++
    this.open.push({ mark, id, inParagraph: true })
    this.pieces.push({ kind: "open", text: mark, id })
    this.delimited = true
    this.emphasis = true
    return id
  }

  closeEmphasis(id: number | undefined): void {
    const at = this.open.findIndex((entry) => entry.id === id)
    if (at < 0) return
    const [entry] = this.open.splice(at, 1)
    this.placeGap()
    if (entry!.inParagraph) this.pieces.push({ kind: "close", text: entry!.mark, id: entry!.id })
  }

  /** Where a link starts: its `[` goes in, and a `!` right before it is escaped (it would make an image). */
  linkStart(): number {
    this.placeGap()
    const last = this.pieces.at(-1)
    if (last?.kind === "text" && last.text.endsWith("!") && !last.text.endsWith("\\!"))
      last.text = `${last.text.slice(0, -1)}\\!`
    this.beginContent()
    const start = this.pieces.length
    this.pieces.push({ kind: "linkOpen", text: "[" })
    this.delimited = true
    return start
  }

  /** Ends the link started at `start`; a link without content is replaced by what `empty` gives (maybe ""). */
  linkEnd(start: number, closing: string, empty: () => string): void {
    let hasContent = false
    let spaced = false
    for (let i = start + 1; i < this.pieces.length; i++) {
      const kind = this.pieces[i]!.kind
      if (kind === "text") hasContent = true
      else if (kind === "space" || kind === "break") spaced = true
    }
    if (hasContent) {
      this.placeGap()
      this.pieces.push({ kind: "linkClose", text: closing })
      return
    }
    // The link goes, the whitespace in it stays between the words around it.
    this.pieces.length = start
    if (spaced) this.space(" ")
    const replacement = empty()
    if (replacement !== "") this.markup(replacement)
  }

  /** The paragraph's markdown ("" when it has no content); emphasis still open is closed and opened again later. */
  take(): string {
    if (!this.content) {
      // Most block boundaries end no paragraph at all (a `<div>` in a `<div>`): nothing to write or allocate.
      this.gap = ""
      if (this.pieces.length > 0) this.pieces = []
      for (const entry of this.open) entry.inParagraph = false
      this.delimited = false
      this.emphasis = false
      return ""
    }
    this.placeGap()
    for (let i = this.open.length - 1; i >= 0; i--) {
      const entry = this.open[i]!
      if (entry.inParagraph) this.pieces.push({ kind: "close", text: entry.mark, id: entry.id })
      entry.inParagraph = false
    }
    const pieces = this.pieces
    const delimited = this.delimited
    const emphasis = this.emphasis
    this.pieces = []
    this.content = false
    this.delimited = false
    this.emphasis = false
    let settled = emphasis ? settleEmphasis(pieces) : delimited ? moveSpacesOut(pieces) : pieces
    settled = tidySpaces(settled)
    let line = ""
    const lines: Array<string> = []
    for (const piece of settled) {
      if (piece.kind === "break") {
        lines.push(escapeLineStart(line))
        line = ""
      } else line += piece.text
    }
    lines.push(escapeLineStart(line))
    return lines.join("  \n")
  }

  /** Content is coming: emphasis split off by a block boundary opens again first. */
  private beginContent(): void {
    this.content = true
    for (const entry of this.open) {
      if (entry.inParagraph) continue
      entry.inParagraph = true
      this.pieces.push({ kind: "open", text: entry.mark, id: entry.id })
      this.delimited = true
      this.emphasis = true
    }
  }
}

/** The spaces of a gap as one space, no-break spaces kept as they are. */
const gapOf = (text: string): Piece => ({ kind: "space", text: text.replace(/ +/g, " ") })

/** One gap between words however many spaces met there; none at the ends, and only no-break spaces after a break. */
const tidySpaces = (pieces: ReadonlyArray<Piece>): Array<Piece> => {
  const out: Array<Piece> = []
  let pending: Piece | undefined
  for (const piece of pieces) {
    if (piece.kind === "space") {
      pending = pending === undefined ? piece : gapOf(pending.text + piece.text)
      continue
    }
    if (piece.kind === "break") {
      pending = undefined
      // A break needs text before it on its line and after it.
      if (out.length > 0 && out.at(-1)!.kind !== "break") out.push(piece)
      continue
    }
    if (pending !== undefined) {
      // At the start of a line only no-break spaces stay (as turndown keeps them): they indent nothing, and the
      // line's start is still escaped after them.
      if (out.length > 0 && out.at(-1)!.kind !== "break") out.push(pending)
      else if (pending.text.trim() === "" && pending.text.replace(/ /g, "") !== "")
        out.push({ kind: "space", text: pending.text.replace(/ /g, "") })
    }
    pending = undefined
    out.push(piece)
  }
  while (out.at(-1)?.kind === "break") out.pop()
  return out
}

/**
 * Whitespace moved out of emphasis, empty emphasis and `</b><b>` removed, then every delimiter checked against
 * CommonMark's flanking rules with its neighbours; emphasis that would not render is dropped, until all that is left
 * renders.
 */
const settleEmphasis = (input: ReadonlyArray<Piece>): Array<Piece> => {
  let pieces = paired(input)
  for (let round = 0; round < 8; round++) {
    pieces = moveSpacesOut(pieces)
    const dropped = unrenderable(pieces)
    if (dropped.size === 0) return paired(pieces)
    pieces = pieces.filter((piece) => !(isDelimiter(piece) && dropped.has(piece.id)))
  }
  return pieces.filter((piece) => !isDelimiter(piece))
}

/** Without the delimiters whose partner is not in the paragraph: those would show as they are. */
const paired = (pieces: ReadonlyArray<Piece>): Array<Piece> => {
  const opened = new Set<number>()
  const closed = new Set<number>()
  for (const piece of pieces)
    if (piece.kind === "open") opened.add(piece.id)
    else if (piece.kind === "close") closed.add(piece.id)
  return pieces.filter((piece) => !isDelimiter(piece) || (opened.has(piece.id) && closed.has(piece.id)))
}

const blank = (piece: Piece) => piece.kind === "space" || piece.kind === "break"
const isOpener = (piece: Piece) => piece.kind === "open" || piece.kind === "linkOpen"

/**
 * Spaces and breaks after an opener or before a closer go outside it; empty emphasis goes, and `</b><b>` joins two
 * runs into one (the later closer closes the earlier opener). One pass: each piece moves past the few delimiters at
 * the end, so a paragraph of a hundred thousand `<b></b>` costs what its length costs.
 */
const moveSpacesOut = (pieces: ReadonlyArray<Piece>): Array<Piece> => {
  const out: Array<Piece> = []
  const joined = new Map<number, number>()
  for (const input of pieces) {
    const piece: Piece =
      input.kind === "close" && joined.has(input.id) ? { ...input, id: joined.get(input.id)! } : input
    if (blank(piece)) {
      let at = out.length
      while (at > 0 && isOpener(out[at - 1]!)) at--
      out.splice(at, 0, piece)
    } else if (piece.kind === "close" || piece.kind === "linkClose") {
      let at = out.length
      while (at > 0 && blank(out[at - 1]!)) at--
      const before = out[at - 1]
      if (piece.kind === "close" && before?.kind === "open" && before.id === piece.id) out.splice(at - 1, 1)
      else out.splice(at, 0, piece)
    } else {
      const last = out.at(-1)
      if (piece.kind === "open" && last?.kind === "close" && last.text === piece.text) {
        out.pop()
        joined.set(piece.id, last.id)
      } else out.push(piece)
    }
  }
  return out
}

/** The ids of emphasis whose opener cannot open or whose closer cannot close where it stands. */
const unrenderable = (pieces: ReadonlyArray<Piece>): Set<number> => {
  const dropped = new Set<number>()
  let i = 0
  while (i < pieces.length) {
    const piece = pieces[i]!
    if (!isDelimiter(piece)) {
      i++
      continue
    }
    // A run: adjacent delimiters of the same character count as one (`***`).
    const char = piece.text[0]
    let end = i
    while (end + 1 < pieces.length && isDelimiter(pieces[end + 1]!) && pieces[end + 1]!.text[0] === char) end++
    const before = i > 0 ? lastChar(pieces[i - 1]!.text) : ""
    const after = end + 1 < pieces.length ? firstChar(pieces[end + 1]!.text) : ""
    for (let k = i; k <= end; k++) {
      const delimiter = pieces[k] as Extract<Piece, { kind: "open" | "close" }>
      // Text ending or starting in the delimiter's character would lengthen the run (`~~` + `~` is a fence).
      const fits =
        before !== char &&
        after !== char &&
        (delimiter.kind === "open" ? canOpen(before, after) : canClose(before, after))
      if (!fits) dropped.add(delimiter.id)
    }
    i = end + 1
  }
  return dropped
}
