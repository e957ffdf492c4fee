/**
 * Main-content extraction by content scoring, in the spirit of Readability but in one bottom-up pass: every text
 * block scores its ancestors (commas, length), class/id names and tags weigh in, link density discounts navigation,
 * and the best candidate is merged with the siblings that look like more of the same article. Boilerplate without
 * semantic tags (div soup named "menu", or plain link lists) loses on link density and names. When extraction finds
 * (almost) nothing, the page minus its obvious chrome is returned instead, and failing that the whole page.
 */
import { ELEMENT_NODE, TEXT_NODE } from "./Dom.js"

const NEGATIVE =
  /(^|[\s_-])(ad|ads|adv|advert|advertisement|banner|breadcrumbs?|combx|comments?|community|cookies?|consent|disqus|footer|foot|gdpr|masthead|menu|meta|modal|navbar|nav|navigation|newsletter|outbrain|pager|pagination|popup|promo|related|replies|rss|share|sharing|shoutbox|sidebar|skyscraper|social|sponsor|sponsored|shopping|subscribe|taboola|toolbar|widget|topbar|cta)([\s_-]|$)/i
const POSITIVE =
  /(^|[\s_-])(article|body|blog|content|entry|hentry|h-entry|main|page|post|story|text|prose|markdown|documentation|docs)([\s_-]|$)/i
/** Names that mark chrome no matter what it contains. */
const ALWAYS_CHROME =
  /(^|[\s_-])(cookies?|consent|gdpr|newsletter|share|sharing|social|breadcrumbs?|skip-link)([\s_-]|$)/i

const BLOCK_TAGS = new Set(["P", "PRE", "TD", "BLOCKQUOTE", "LI", "DD", "DT", "FIGCAPTION"])
const CHROME_TAGS =
  "nav, aside, footer, header, form, button, select, input, textarea, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], dialog"

const TAG_WEIGHT: Record<string, number> = {
  ARTICLE: 25,
  MAIN: 20,
  SECTION: 3,
  DIV: 5,
  PRE: 3,
  TD: 3,
  BLOCKQUOTE: 3,
  FORM: -3,
  OL: -3,
  UL: -3,
  DL: -3,
  TH: -5,
  ADDRESS: -3,
  LI: -3,
  H1: -5,
  H2: -5,
  H3: -5,
  H4: -5,
  H5: -5,
  H6: -5,
  NAV: -40,
  ASIDE: -30,
  FOOTER: -30,
  HEADER: -15,
}

interface Stats {
  /** Characters of text in the subtree (whitespace collapsed approximately). */
  text: number
  /** Characters of text inside links. */
  link: number
  /** Characters of text directly in this element (not in child elements). */
  own: number
  commas: number
}

const names = (element: Element) => `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`

const classWeight = (element: Element): number => {
  const text = names(element)
  if (text.trim() === "") return 0
  return (NEGATIVE.test(text) ? -25 : 0) + (POSITIVE.test(text) ? 25 : 0)
}

const textLength = (text: string) => text.replace(/\s+/g, " ").trim().length

/** Text statistics of every element, children before parents (reverse document order), in one pass. */
const computeStats = (elements: ReadonlyArray<Element>): Map<Element, Stats> => {
  const stats = new Map<Element, Stats>()
  for (let i = elements.length - 1; i >= 0; i--) {
    const element = elements[i]!
    const own: Stats = { text: 0, link: 0, own: 0, commas: 0 }
    for (let node = element.firstChild; node !== null; node = node.nextSibling) {
      if (node.nodeType === TEXT_NODE) {
        const value = node.nodeValue ?? ""
        const length = textLength(value)
        own.text += length
        own.own += length
        for (const char of value) if (char === "," || char === "，" || char === "、") own.commas++
      } else if (node.nodeType === ELEMENT_NODE) {
        const child = stats.get(node as Element)
        if (child === undefined) continue
        own.text += child.text
        own.link += child.link
        own.commas += child.commas
      }
    }
    if (element.tagName === "A") own.link = own.text
    stats.set(element, own)
  }
  return stats
}

const linkDensity = (stats: Stats | undefined) =>
  stats === undefined || stats.text === 0 ? 0 : stats.link / stats.text

export interface MainContentResult {
  readonly root: Element
  /** How the result was found: scored candidate, page without chrome, or the whole page. */
  readonly method: "scored" | "dechromed" | "full"
}

/** Picks the main content of `body` (which it may modify). */
export const extractMainContent = (document: Document, body: Element): MainContentResult => {
  const elements = Array.from(body.querySelectorAll("*"))
  const stats = computeStats([body, ...elements])
  const bodyText = stats.get(body)?.text ?? 0

  const scores = new Map<Element, number>()
  const initial = (element: Element) => (TAG_WEIGHT[element.tagName] ?? 0) + classWeight(element)
  for (const element of elements) {
    const own = stats.get(element)!
    const isBlock =
      BLOCK_TAGS.has(element.tagName) || ((element.tagName === "DIV" || element.tagName === "SECTION") && own.own >= 25)
    if (!isBlock || own.text < 25) continue
    const blockScore = 1 + own.commas + Math.min(Math.floor(own.text / 100), 3)
    let ancestor = element.parentElement
    for (let level = 0; ancestor !== null && level < 5; level++, ancestor = ancestor.parentElement) {
      if (!scores.has(ancestor)) scores.set(ancestor, initial(ancestor))
      scores.set(ancestor, scores.get(ancestor)! + blockScore / (level === 0 ? 1 : level === 1 ? 2 : level * 3))
      if (ancestor === body) break
    }
  }

  let top: Element | undefined
  let topScore = Number.NEGATIVE_INFINITY
  for (const [candidate, score] of scores) {
    if (candidate === body || candidate.tagName === "HTML") continue
    const adjusted = score * (1 - linkDensity(stats.get(candidate)))
    scores.set(candidate, adjusted)
    if (adjusted > topScore) {
      top = candidate
      topScore = adjusted
    }
  }

  if (top !== undefined && topScore > 0) {
    // Several strong candidates under one ancestor mean the article is split across them: take the ancestor.
    const strong = [...scores]
      .filter(([candidate, score]) => candidate !== top && score >= topScore * 0.75)
      .map(([candidate]) => candidate)
    if (strong.length >= 2) {
      for (
        let ancestor = top.parentElement;
        ancestor !== null && ancestor !== body;
        ancestor = ancestor.parentElement
      ) {
        const held = strong.filter((candidate) => ancestor.contains(candidate)).length
        if (held >= Math.min(strong.length, 2)) {
          top = ancestor
          topScore = Math.max(topScore, scores.get(ancestor) ?? 0)
          break
        }
      }
    }
    // A parent that scores nearly as well, or a wrapper with nothing else in it, holds more of the article.
    for (let parent = top.parentElement; parent !== null && parent !== body; parent = parent.parentElement) {
      const parentScore = scores.get(parent) ?? 0
      if (parentScore < topScore * 0.75 && parent.children.length > 1) break
      top = parent
      topScore = Math.max(topScore, parentScore)
    }
    // Decide on text lengths first and touch the DOM only for the answer chosen, so no copy of the page is needed.
    const parts = articleParts(top, topScore, scores, stats)
    const chrome = parts.flatMap((part) => outermost(part, (element) => isChrome(element, stats)))
    const extracted = sum(parts, stats) - sum(chrome, stats)
    if (extracted > 0 && extracted >= Math.min(200, bodyText * 0.5)) {
      for (const element of chrome) element.remove()
      const container = document.createElement("div")
      for (const part of parts) container.appendChild(part)
      return { root: container, method: "scored" }
    }
  }

  // Fallback: the page without its obvious chrome, else everything.
  const chrome = outermost(body, (element) => element.matches(CHROME_TAGS) || ALWAYS_CHROME.test(names(element)))
  if (bodyText - sum(chrome, stats) <= 0) return { root: body, method: "full" }
  for (const element of chrome) element.remove()
  return { root: body, method: "dechromed" }
}

const sum = (elements: ReadonlyArray<Element>, stats: ReadonlyMap<Element, Stats>) =>
  elements.reduce((total, element) => total + (stats.get(element)?.text ?? 0), 0)

/** The elements under `root` that match, leaving out those inside another match (document order). */
const outermost = (root: Element, matches: (element: Element) => boolean): Array<Element> => {
  const found = new Set<Element>()
  for (const element of Array.from(root.querySelectorAll("*"))) {
    let ancestor = element.parentElement
    while (ancestor !== null && ancestor !== root && !found.has(ancestor)) ancestor = ancestor.parentElement
    if ((ancestor === null || ancestor === root) && matches(element)) found.add(element)
  }
  return [...found]
}

/** The top candidate with the siblings that belong to the same article, in document order. */
const articleParts = (
  top: Element,
  topScore: number,
  scores: ReadonlyMap<Element, number>,
  stats: ReadonlyMap<Element, Stats>,
): Array<Element> => {
  const parent = top.parentElement
  if (parent === null) return [top]
  const threshold = Math.max(10, topScore * 0.2)
  const siblings = Array.from(parent.children)
  const index = siblings.indexOf(top)
  const parts: Array<Element> = []
  siblings.forEach((sibling, position) => {
    if (sibling === top) {
      parts.push(sibling)
      return
    }
    if (ALWAYS_CHROME.test(names(sibling))) return
    const own = stats.get(sibling)
    const density = linkDensity(own)
    const text = own?.text ?? 0
    // Siblings styled like the top candidate are usually more of the same article.
    const sameClass =
      (top.getAttribute("class") ?? "") !== "" && sibling.getAttribute("class") === top.getAttribute("class")
    const base = scores.get(sibling)
    const score = base === undefined && !sameClass ? undefined : (base ?? 0) + (sameClass ? topScore * 0.2 : 0)
    const isTitle = /^H[12]$/.test(sibling.tagName) && position < index && index - position <= 2
    const isParagraph =
      sibling.tagName === "P" &&
      ((text > 80 && density < 0.25) ||
        (text > 0 && text <= 80 && density === 0 && /[.!?]\s*$/.test(sibling.textContent ?? "")))
    if (isTitle || isParagraph || (score !== undefined && score >= threshold && density < 0.5)) parts.push(sibling)
  })
  return parts
}

/** Inside the chosen content: navigation-like elements, named chrome and link farms. */
const isChrome = (element: Element, stats: ReadonlyMap<Element, Stats>): boolean => {
  const own = stats.get(element)
  const density = linkDensity(own)
  const text = own?.text ?? 0
  const tag = element.tagName
  const named = names(element)
  const chromeTag =
    tag === "NAV" || tag === "ASIDE" || tag === "FORM" || tag === "BUTTON" || tag === "DIALOG" || tag === "FOOTER"
  return (
    ALWAYS_CHROME.test(named) ||
    (chromeTag && (density > 0.2 || text < 300)) ||
    (NEGATIVE.test(named) && !POSITIVE.test(named) && (density > 0.3 || text < 200)) ||
    ((tag === "UL" || tag === "OL" || tag === "DIV") &&
      density > 0.7 &&
      text > 0 &&
      element.querySelectorAll("a").length >= 4)
  )
}
