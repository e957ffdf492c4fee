/**
 * The markdown of one container, block by block: paragraphs of inline content (`Paragraph`) and finished blocks
 * (lists, tables, fences, headings) set off by blank lines. Whitespace is collapsed as text is written; breaks are
 * owed, not written, so none ends up at the start or the end.
 */
import { Paragraph } from "./Paragraph.js"
import { escapeInline, isWhitespaceCode } from "./Syntax.js"

const WHITESPACE = /[ \t\n\r\f]+/g
/** Runs of collapsible whitespace as one space; most text nodes have none to collapse, and are returned as they are. */
export const collapse = (text: string): string => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (
      code === 0x20 ? text.charCodeAt(i + 1) === 0x20 : code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c
    )
      return text.replace(WHITESPACE, " ")
  }
  return text
}

export class Writer {
  private out = ""
  /** Newlines owed before the next block (at most 2: one blank line). */
  private breaks = 0
  private readonly paragraph = new Paragraph()
  /** The marker of the list written last, while nothing else followed it: the next list must differ to stay apart. */
  private lastList: string | undefined
  /** Inside a link: blocks (a card's heading and teaser) run on as one line of link text. */
  inline = 0

  constructor(
    /** Inside a list item: a nested list follows its item's text on the next line. */
    readonly inItem = false,
  ) {}

  /** Text of a text node: escaped, its outer whitespace kept as spaces between words. */
  text(raw: string): void {
    const text = collapse(raw)
    let start = 0
    let end = text.length
    while (start < end && isWhitespaceCode(text.charCodeAt(start))) start++
    while (end > start && isWhitespaceCode(text.charCodeAt(end - 1))) end--
    if (start > 0) this.paragraph.space(text.slice(0, start))
    if (end === start) return
    this.paragraph.text(escapeInline(text.slice(start, end)))
    if (end < text.length) this.paragraph.space(text.slice(end))
  }

  /** Inline markup written as is (code, an image). */
  markup(markdown: string): void {
    if (markdown !== "") this.paragraph.markup(markdown)
  }

  space(): void {
    this.paragraph.space(" ")
  }

  openEmphasis(mark: string): number | undefined {
    return this.paragraph.openEmphasis(mark)
  }

  closeEmphasis(id: number | undefined): void {
    this.paragraph.closeEmphasis(id)
  }

  linkStart(): number {
    this.inline++
    return this.paragraph.linkStart()
  }

  linkEnd(start: number, closing: string, empty: () => string): void {
    this.inline--
    this.paragraph.linkEnd(start, closing, empty)
  }

  lineBreak(): void {
    if (this.inline > 0) this.space()
    else if (!this.paragraph.lineBreak()) this.block()
  }

  /** Ends the paragraph; the next block starts after `gap` newlines. */
  block(gap = 2): void {
    if (this.inline > 0) {
      this.space()
      return
    }
    const text = this.paragraph.take()
    if (text !== "") {
      this.emit(text)
      this.lastList = undefined
    }
    if (this.out !== "") this.breaks = Math.max(this.breaks, gap)
  }

  /** A block of finished markdown (a list, a table, a fenced block), set off by blank lines. */
  rawBlock(markdown: string, gap = 2, listMarker?: string): void {
    if (markdown === "") return
    if (this.inline > 0) {
      this.space()
      this.markup(markdown.replace(/\s*\n\s*/g, " "))
      this.space()
      return
    }
    this.block(gap)
    this.emit(markdown)
    this.lastList = listMarker
    // Text right after a list would continue its last item: a blank line ends the list.
    this.breaks = listMarker === undefined ? gap : 2
  }

  /** The marker a list starting here should use: `preferred`, unless the list just written used it. */
  listMarker(preferred: string, other: string): string {
    return this.lastList === preferred && !this.paragraph.hasContent ? other : preferred
  }

  private emit(markdown: string): void {
    if (this.out !== "" && this.breaks > 0) this.out += "\n".repeat(this.breaks)
    this.breaks = 0
    this.out += markdown
  }

  toString(): string {
    this.block(0)
    return this.out
  }
}
