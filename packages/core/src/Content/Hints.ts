/**
 * What class names, ids and roles say about an element. Words are matched as whole tokens of the name
 * (`post-content`, `nav_bar`, `articleBody`), so "nav" does not fire inside "canvas", nor "ad" inside "header".
 */
import { attr, classOf, type Element } from "./Dom.js"

/** Splits `class id` text into lower-case words: separators, and camelCase humps (`articleBody` → article body). */
const words = (names: string): Array<string> =>
  names
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "")

const set = (text: string) => new Set(text.split(" "))

/** Names of boilerplate: navigation, promotion, social, comments, page furniture. */
const NEGATIVE = set(
  "ad ads adv advert adverts banner combx community extra foot gdpr login menu modal nav pager popup promo promos " +
    "promotion recirc replies reply rss share tags toolbar topbar trending signup teaser teasers tools legends " +
    "remark supplemental agegate carousel slideshow gallery",
)
/** Stems of boilerplate names, matched inside words too ("relatedposts", "sidebarwidget"). */
const NEGATIVE_STEM =
  /related|sidebar|footer|social|sponsor|newsletter|subscri|breadcrumb|paginat|widget|disqus|outbrain|taboola|cookie|consent|masthead|skyscraper|shoutbox|navbar|navigation|comment(?!ary)|sharing|recommend|advertis/
/** Names of content. */
const POSITIVE = set("body main page post text prose markdown documentation docs column single hentry")
const POSITIVE_STEM = /article|content|entry|story|blog/
/** Names that mark boilerplate whatever it contains (cookie banners, comment threads, ad networks). */
const CHROME_STEM = /cookie|consent|gdpr|breadcrumb|comment(?!ary)|disqus|outbrain|taboola/
/** Roles of page furniture (ARIA landmarks and widgets). */
const CHROME_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "menu",
  "menubar",
  "dialog",
  "alertdialog",
  "search",
])

export interface Hints {
  /** Boilerplate words in the class attribute, in the id. */
  readonly negativeClass: boolean
  readonly negativeId: boolean
  /** Content words in the class attribute, in the id. */
  readonly positiveClass: boolean
  readonly positiveId: boolean
  /** Boilerplate by name or role, whatever its content. */
  readonly chrome: boolean
}

const isNegativeWord = (word: string) => NEGATIVE.has(word) || NEGATIVE_STEM.test(word)
const isPositive = (word: string) => POSITIVE.has(word) || POSITIVE_STEM.test(word)

const NONE: Hints = { negativeClass: false, negativeId: false, positiveClass: false, positiveId: false, chrome: false }

const memo = new Map<string, Hints>()

/** The hints of an element's class, id and role (memoised by the attribute text: pages repeat names a lot). */
export const hintsOf = (element: Element): Hints => {
  const className = classOf(element)
  const id = attr(element, "id") ?? ""
  const role = attr(element, "role")
  if (className === "" && id === "" && role === undefined) return NONE
  const key = `${className}|${id}|${role ?? ""}`
  let hints = memo.get(key)
  if (hints === undefined) {
    const classWords = words(className)
    const idWords = words(id)
    const positiveClass = classWords.some(isPositive)
    const positiveId = idWords.some(isPositive)
    hints = {
      negativeClass: classWords.some(isNegativeWord),
      negativeId: idWords.some(isNegativeWord),
      positiveClass,
      positiveId,
      // A content name wins: `<article class="post comments-open">` is the article.
      chrome:
        (!positiveClass && !positiveId && [...classWords, ...idWords].some((word) => CHROME_STEM.test(word))) ||
        (role !== undefined && CHROME_ROLES.has(role.trim().toLowerCase())),
    }
    // Bounded: a hostile page with millions of distinct names must not grow it without end.
    if (memo.size > 10_000) memo.clear()
    memo.set(key, hints)
  }
  return hints
}

/** Readability-style weight: class and id each count 25 against for boilerplate words and 25 for content words. */
export const classWeight = (hints: Hints): number =>
  (hints.negativeClass ? -25 : 0) +
  (hints.negativeId ? -25 : 0) +
  (hints.positiveClass ? 25 : 0) +
  (hints.positiveId ? 25 : 0)

/** Boilerplate words without content words: the element is unlikely to be (part of) the article. */
export const isNegative = (hints: Hints): boolean =>
  (hints.negativeClass || hints.negativeId) && !hints.positiveClass && !hints.positiveId

/** Names of bylines, datelines and author boxes: the article's furniture, not its text. */
const BYLINE =
  /(^|[\s_-])(byline|author|authors|dateline|writtenby|post-meta|entry-meta|article-meta|meta|timestamp|published|posted-on|date|credit|credits|caption-credit)([\s_-]|$)/i
const AUTHOR_BOX = /author-?(bio|box|info|card|profile|details)|about-?(the-?)?author|(^|[\s_-])bio([\s_-]|$)/i

/** Up to how many characters an element is a byline or author box by its names and attributes (0: it is none). */
export const bylineLimit = (element: Element): number => {
  const names = `${classOf(element)} ${attr(element, "id") ?? ""}`
  if (AUTHOR_BOX.test(names)) return 1000
  const itemprop = attr(element, "itemprop")
  if (attr(element, "rel") === "author" || (itemprop !== undefined && /\bauthor\b/.test(itemprop))) return 200
  return BYLINE.test(names) ? 200 : 0
}
