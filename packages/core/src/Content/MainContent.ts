/**
 * Main-content extraction by content scoring, in the spirit of Readability but decided on numbers alone
 * (PageStats) so that retries cost no re-parse and the DOM is touched once, for the answer chosen:
 *
 * 1. Blocks of running text (an element's own inline text of 25+ characters) score their ancestors by length and
 *    commas; boilerplate-named subtrees (menus, comments, share bars, …) do not score.
 * 2. The best candidate, discounted by link density, is widened to the ancestor holding several strong candidates
 *    or scoring nearly as well, and joined by the siblings that look like more of the same article.
 * 3. Inside it, boilerplate is pruned bottom-up (link-heavy lists, forms, widgets, bylines, share bars).
 * 4. A result under 500 characters is retried with fewer rules; a page that is not an article at all (no run of
 *    long paragraphs: a landing page, an index) keeps everything except its page chrome, and when even that is
 *    empty the whole page is returned.
 */
import { append, attr, classOf, type Element, newElement, remove } from "./Dom.js"
import { bylineLimit, classWeight, type Hints, hintsOf, isNegative } from "./Hints.js"
import { INLINE, linkDensity, type PageStats } from "./PageStats.js"

const MIN_BLOCK = 25
const ENOUGH_TEXT = 500

/** A Map, not an object: tag names come from the page (`<constructor>` is a valid custom element name). */
const TAG_WEIGHT = new Map<string, number>(
  Object.entries({
    div: 5,
    article: 10,
    main: 10,
    section: 3,
    pre: 3,
    td: 3,
    blockquote: 3,
    address: -3,
    ol: -3,
    ul: -3,
    dl: -3,
    dd: -3,
    dt: -3,
    li: -3,
    form: -3,
    h1: -5,
    h2: -5,
    h3: -5,
    h4: -5,
    h5: -5,
    h6: -5,
    th: -5,
  }),
)

/** Never part of an article's text. */
const NOT_CONTENT = new Set(["nav", "aside", "footer", "button", "input", "select", "textarea", "dialog", "menu"])
/** Containers judged by their contents when pruning. */
const CONDITIONAL = new Set(["div", "section", "ul", "ol", "dl", "form", "fieldset", "table", "figure", "span", "p"])
const LISTS = new Set(["ul", "ol", "dl"])

interface Flags {
  /** Boilerplate-named subtrees neither score nor join. */
  readonly unlikely: boolean
  /** Class/id names weigh in. */
  readonly weights: boolean
  /** Boilerplate inside the chosen content is pruned. */
  readonly prune: boolean
}

const ATTEMPTS: ReadonlyArray<Flags> = [
  { unlikely: true, weights: true, prune: true },
  { unlikely: false, weights: true, prune: true },
  { unlikely: false, weights: false, prune: true },
  { unlikely: false, weights: false, prune: false },
]

interface Selection {
  /** The chosen elements, in document order. */
  readonly parts: ReadonlyArray<number>
  /** Elements to remove inside the parts (outermost only). */
  readonly removed: ReadonlyArray<number>
  /** Characters of text left. */
  readonly text: number
  /** Of which running prose (see `Page.prose`). */
  readonly prose: number
}

export interface MainContentResult {
  readonly root: Element
  /** How it was found: a scored article, the page without its chrome, or the whole page. */
  readonly method: "scored" | "dechromed" | "full"
}

/** A view of the page for one extraction: lazily computed hints, child lists. */
class Page {
  private readonly hintCache: Array<Hints | undefined> = []
  constructor(readonly stats: PageStats) {}

  hints(index: number): Hints {
    let hints = this.hintCache[index]
    if (hints === undefined) {
      hints = hintsOf(this.stats.elements[index]!)
      this.hintCache[index] = hints
    }
    return hints
  }

  children(index: number): Array<number> {
    const { ends } = this.stats
    const children: Array<number> = []
    for (let child = index + 1; child <= ends[index]!; child = ends[child]! + 1) children.push(child)
    return children
  }

  contains(ancestor: number, index: number): boolean {
    return index >= ancestor && index <= this.stats.ends[ancestor]!
  }

  /** Text of an element's own inline runs: its share of the page's running text. */
  isBlock(index: number): boolean {
    return this.stats.inlineText[index]! >= MIN_BLOCK && !INLINE.has(this.stats.tags[index]!)
  }

  /** Characters of running prose an element holds itself: sentences, not link lists or labels. */
  prose(index: number): number {
    const { stats } = this
    const text = stats.inlineText[index]!
    return this.isBlock(index) && stats.inlineStops[index]! > 0 && stats.inlineLinkText[index]! < text * 0.5 ? text : 0
  }

  /** Inside a `<figure>`, looking up to `limit` (exclusive). */
  inFigure(index: number, limit: number): boolean {
    for (let i = index; i > limit; i = this.stats.parents[i]!) if (this.stats.tags[i] === "figure") return true
    return false
  }
}

/** A form field, except a task list's checkbox (`<li><input type="checkbox">`), which markdown writes as `[x]`. */
const isFormField = (stats: PageStats, index: number): boolean =>
  NOT_CONTENT.has(stats.tags[index]!) &&
  !(
    stats.tags[index] === "input" &&
    stats.tags[stats.parents[index]!] === "li" &&
    attr(stats.elements[index]!, "type")?.toLowerCase() === "checkbox"
  )

/** Boilerplate by tag, role or name: excluded from scoring (with `unlikely`) and pruned (with `prune`). */
const isUnlikely = (page: Page, index: number): boolean => {
  const tag = page.stats.tags[index]!
  if (isFormField(page.stats, index)) return true
  if (tag === "body" || tag === "article" || tag === "main" || tag === "a") return false
  const hints = page.hints(index)
  return hints.chrome || isNegative(hints)
}

/** Per element: inside an unlikely subtree (parents come first, so one forward pass suffices). */
const unlikelyMarks = (page: Page): Array<boolean> => {
  const { parents, tags } = page.stats
  const marks: Array<boolean> = new Array(tags.length)
  for (let i = 0; i < tags.length; i++) {
    const parent = parents[i]!
    marks[i] = (parent >= 0 && marks[parent]!) || (i > 0 && isUnlikely(page, i))
  }
  return marks
}

const score = (page: Page, flags: Flags, excluded: ReadonlyArray<boolean> | undefined): Map<number, number> => {
  const { stats } = page
  const scores = new Map<number, number>()
  const initial = (index: number) =>
    (TAG_WEIGHT.get(stats.tags[index]!) ?? 0) + (flags.weights ? classWeight(page.hints(index)) : 0)
  for (let i = 1; i < stats.tags.length; i++) {
    if (!page.isBlock(i) || excluded?.[i]) continue
    const blockScore = 1 + stats.inlineCommas[i]! + Math.min(Math.floor(stats.inlineText[i]! / 100), 3)
    // A paragraph scores its ancestors; a container mixing loose text with blocks is itself the text's parent.
    let ancestor = stats.blockChildren[i]! > 0 ? i : stats.parents[i]!
    // The root competes too: text straight in <body> makes the whole page the article.
    for (let level = 0; ancestor >= 0 && level < 5; level++, ancestor = stats.parents[ancestor]!) {
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3
      scores.set(ancestor, (scores.get(ancestor) ?? initial(ancestor)) + blockScore / divider)
    }
  }
  for (const [candidate, value] of scores) scores.set(candidate, value * (1 - linkDensity(stats, candidate)))
  return scores
}

const topCandidate = (page: Page, scores: Map<number, number>): number | undefined => {
  const { stats } = page
  const ranked = [...scores].sort((a, b) => b[1] - a[1]).slice(0, 5)
  const best = ranked[0]
  if (best === undefined || best[1] <= 0) return undefined
  let top = best[0]
  // Several strong candidates under one ancestor mean the article is split across them: take the ancestor.
  const alternatives = ranked.slice(1).filter(([, value]) => value >= best[1] * 0.75)
  if (alternatives.length >= 3) {
    for (let ancestor = stats.parents[top]!; ancestor >= 0; ancestor = stats.parents[ancestor]!) {
      const held = alternatives.filter(([candidate]) => page.contains(ancestor, candidate)).length
      if (held >= 3) {
        top = ancestor
        break
      }
    }
  }
  // A parent that scores better holds more of the article; climb while the scores stay within reach.
  let last = scores.get(top) ?? 0
  const threshold = last / 3
  for (let parent = stats.parents[top]!; parent >= 0; parent = stats.parents[parent]!) {
    const parentScore = scores.get(parent)
    if (parentScore === undefined) continue
    if (parentScore < threshold) break
    if (parentScore > last) {
      top = parent
      break
    }
    last = parentScore
  }
  // A wrapper with nothing else in it is the same content.
  while (stats.parents[top]! > 0 && page.children(stats.parents[top]!).length === 1) top = stats.parents[top]!
  return top
}

/** The top candidate with the siblings that belong to the same article, in document order. */
const articleParts = (
  page: Page,
  top: number,
  scores: ReadonlyMap<number, number>,
  excluded: ReadonlyArray<boolean> | undefined,
): Array<number> => {
  const { stats } = page
  const parent = stats.parents[top]!
  if (parent < 0) return [top]
  const topScore = scores.get(top) ?? 0
  const threshold = Math.max(10, topScore * 0.2)
  const topClass = classOf(stats.elements[top]!)
  const siblings = page.children(parent)
  const position = siblings.indexOf(top)
  return siblings.filter((sibling, index) => {
    if (sibling === top) return true
    if (excluded?.[sibling]) return false
    const sameClass = topClass !== "" && classOf(stats.elements[sibling]!) === topClass
    const siblingScore = scores.get(sibling)
    if (siblingScore !== undefined && siblingScore + (sameClass ? topScore * 0.2 : 0) >= threshold) return true
    // Styled like the article and made of prose (its paragraphs may sit too deep to have scored it): more of it.
    if (sameClass && stats.text[sibling]! > 200 && linkDensity(stats, sibling) < 0.25) return true
    const tag = stats.tags[sibling]!
    // The title just before the article body.
    if ((tag === "h1" || tag === "h2" || tag === "header") && index < position && position - index <= 2) return true
    if (tag !== "p") return false
    const density = linkDensity(stats, sibling)
    const text = stats.text[sibling]!
    return (text > 80 && density < 0.25) || (text > 0 && text <= 80 && density === 0 && stats.inlineStops[sibling]! > 0)
  })
}

/**
 * Boilerplate inside the chosen parts, decided bottom-up on the text that survives pruning (a container emptied
 * of its widgets is judged by what is left). Returns the outermost elements to remove and the text kept.
 */
const prune = (page: Page, parts: ReadonlyArray<number>, flags: Flags): Omit<Selection, "parts"> => {
  const { stats } = page
  const removed: Array<number> = []
  let total = 0
  let prose = 0
  for (const part of parts) {
    const end = stats.ends[part]!
    const size = end - part + 1
    // Kept statistics of the part's subtree, relative to `part`.
    const text = new Array<number>(size).fill(0)
    const links = new Array<number>(size).fill(0)
    const commas = new Array<number>(size).fill(0)
    const paragraphs = new Array<number>(size).fill(0)
    const images = new Array<number>(size).fill(0)
    const items = new Array<number>(size).fill(0)
    const inputs = new Array<number>(size).fill(0)
    const headings = new Array<number>(size).fill(0)
    const gone = new Array<boolean>(size).fill(false)
    for (let i = end; i >= part; i--) {
      const k = i - part
      const tag = stats.tags[i]!
      text[k]! += stats.ownText[i]!
      commas[k]! += stats.ownCommas[i]!
      if (tag === "a") links[k] = text[k]!
      else if (tag === "p") paragraphs[k]!++
      else if (tag === "img") images[k]!++
      else if (tag === "li") items[k]!++
      else if (tag === "input" || tag === "select" || tag === "textarea") inputs[k]!++
      else if (/^h[1-6]$/.test(tag)) headings[k] = text[k]!
      if (
        flags.prune &&
        i !== part &&
        shouldRemove(page, i, flags, part, {
          text: text[k]!,
          links: links[k]!,
          commas: commas[k]!,
          paragraphs: paragraphs[k]!,
          images: images[k]!,
          items: items[k]!,
          inputs: inputs[k]!,
          headings: headings[k]!,
        })
      ) {
        gone[k] = true
        continue
      }
      const up = stats.parents[i]! - part
      if (i === part || up < 0) continue
      text[up]! += text[k]!
      links[up]! += links[k]!
      commas[up]! += commas[k]!
      paragraphs[up]! += paragraphs[k]!
      images[up]! += images[k]!
      items[up]! += items[k]!
      inputs[up]! += inputs[k]!
      headings[up]! += headings[k]!
    }
    // Outermost removals only: a removed element's descendants go with it.
    for (let i = part; i <= end; ) {
      if (gone[i - part]) {
        removed.push(i)
        i = stats.ends[i]! + 1
      } else prose += page.prose(i++)
    }
    total += text[0]!
  }
  return { removed, text: total, prose }
}

interface Kept {
  readonly text: number
  readonly links: number
  readonly commas: number
  readonly paragraphs: number
  readonly images: number
  readonly items: number
  readonly inputs: number
  readonly headings: number
}

const shouldRemove = (page: Page, index: number, flags: Flags, part: number, kept: Kept): boolean => {
  const { stats } = page
  const tag = stats.tags[index]!
  if (isFormField(stats, index)) return true
  const hints = flags.weights ? page.hints(index) : undefined
  if (hints?.chrome) return true
  const weight = hints === undefined ? 0 : classWeight(hints)
  const density = kept.text === 0 ? 0 : kept.links / kept.text
  // Headings of widgets ("Related", "Share this") and bylines are not the article's text.
  if ((tag === "h1" || tag === "h2" || tag === "h3") && weight < 0) return true
  if (hints !== undefined && kept.text < bylineLimit(stats.elements[index]!)) return true
  if (!CONDITIONAL.has(tag)) return false
  if (tag === "table" || tag === "p" || tag === "span")
    return tag === "table" ? density > 0.5 : weight < 0 && density > 0.5
  // A bad id loses to a body of prose: ids are often slugs of headings ("sharing-with-a-single-developer").
  if (kept.commas >= 10) return weight < 0 && (hints?.negativeClass === true || density >= 0.25)
  if (weight < 0) return true
  const isList = LISTS.has(tag)
  const inFigure = page.inFigure(index, part - 1)
  return (
    (kept.images > 1 && kept.paragraphs / kept.images < 0.5 && !inFigure) ||
    (!isList && kept.items - 100 > kept.paragraphs) ||
    kept.inputs > Math.floor(kept.paragraphs / 3) ||
    (!isList &&
      !inFigure &&
      kept.headings / Math.max(1, kept.text) < 0.9 &&
      kept.text < MIN_BLOCK &&
      (kept.images === 0 || kept.images > 2) &&
      density > 0) ||
    (!isList && weight < 25 && density > 0.2) ||
    (weight >= 25 && density > 0.5) ||
    // Link lists ("more stories", tag clouds) whatever their names.
    (isList && density > 0.9 && kept.text > 0 && kept.items >= 3) ||
    (kept.images === 0 && kept.text === 0)
  )
}

const attempt = (page: Page, flags: Flags, unlikely: ReadonlyArray<boolean>): Selection | undefined => {
  const excluded = flags.unlikely ? unlikely : undefined
  const scores = score(page, flags, excluded)
  const top = topCandidate(page, scores)
  if (top === undefined) return undefined
  const parts = articleParts(page, top, scores, excluded)
  return { parts, ...prune(page, parts, flags) }
}

/**
 * Whether the page reads as an article: enough long paragraphs (square roots, so one huge block does not count
 * as a run of them). Landing pages and indexes fail it and keep all their non-chrome content.
 */
const isArticle = (page: Page, excluded: ReadonlyArray<boolean>): boolean => {
  const { stats } = page
  let total = 0
  for (let i = 1; i < stats.tags.length; i++) {
    if (excluded[i] || !page.isBlock(i)) continue
    const text = stats.inlineText[i]!
    if (text < 140 || stats.inlineLinkText[i]! / text > 0.5) continue
    total += Math.sqrt(text - 140)
    if (total > 20) return true
  }
  return false
}

const pageProse = (page: Page, excluded: ReadonlyArray<boolean>): number => {
  let total = 0
  for (let i = 1; i < page.stats.tags.length; i++) if (!excluded[i]) total += page.prose(i)
  return total
}

/** The page minus its chrome: landmarks, boilerplate-named blocks, page-level headers full of links. */
const dechrome = (page: Page): Array<number> => {
  const { stats } = page
  const removed: Array<number> = []
  for (let i = 1; i < stats.tags.length; ) {
    const tag = stats.tags[i]!
    const hints = page.hints(i)
    const density = linkDensity(stats, i)
    const chrome =
      isFormField(stats, i) ||
      hints.chrome ||
      (isNegative(hints) && (density > 0.3 || stats.text[i]! < 200)) ||
      (tag === "header" && density > 0.4) ||
      (tag === "form" && stats.text[i]! < 200)
    if (chrome) {
      removed.push(i)
      i = stats.ends[i]! + 1
    } else i++
  }
  return removed
}

const sumText = (stats: PageStats, elements: ReadonlyArray<number>) =>
  elements.reduce((total, index) => total + stats.text[index]!, 0)

/** Picks the main content of the page whose statistics are given (the root is `stats.elements[0]`). */
export const extractMainContent = (stats: PageStats): MainContentResult => {
  const page = new Page(stats)
  const root = stats.elements[0]!
  const pageText = stats.text[0]!
  if (pageText === 0) return { root, method: "full" }

  const unlikely = unlikelyMarks(page)
  // Fewer rules find more text, but often by taking in boilerplate: a laxer attempt wins only with more prose.
  let best: Selection | undefined
  for (const flags of ATTEMPTS) {
    const selection = attempt(page, flags, unlikely)
    if (selection !== undefined && (best === undefined || selection.prose > best.prose * 1.2)) best = selection
    if (best !== undefined && best.text >= ENOUGH_TEXT) break
  }
  const chrome = dechrome(page)
  const dechromedText = pageText - sumText(stats, chrome)
  // An article stands on its own; on other pages the selection must hold most of the page's prose.
  const accepted =
    best !== undefined &&
    best.text > 0 &&
    (isArticle(page, unlikely)
      ? best.text >= Math.min(ENOUGH_TEXT, pageText * 0.3)
      : best.prose >= pageProse(page, unlikely) * 0.7 && best.text >= dechromedText * 0.1)
  if (accepted && best !== undefined) {
    for (const index of best.removed) remove(stats.elements[index]!)
    if (best.parts[0] === 0) return { root, method: "scored" }
    const container = newElement("div")
    for (const part of best.parts) append(container, stats.elements[part]!)
    return { root: container, method: "scored" }
  }
  if (dechromedText <= 0) return { root, method: "full" }
  for (const index of chrome) remove(stats.elements[index]!)
  return { root, method: "dechromed" }
}
