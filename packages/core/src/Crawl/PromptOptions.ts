/**
 * Crawl options from a natural-language `prompt`, without a language model: a fixed set of English phrasings, each
 * recognised by a pattern and turned into one option. Firecrawl asks an LLM for this; the deterministic reading is
 * the offline fallback, and it never guesses: a phrasing it does not know yields nothing, and section names are taken
 * literally ("the blog" → `/blog`) only for a list of common section words.
 *
 * Rules run in order and each consumes the text it matched, so that "ignore the sitemap" is not also read as an
 * exclusion, nor "up to 2 levels deep" as a page limit.
 */

export interface CrawlOptionsLike {
  readonly includePaths: ReadonlyArray<string>
  readonly excludePaths: ReadonlyArray<string>
  readonly limit: number
  readonly maxDiscoveryDepth: number
  readonly allowSubdomains: boolean
  readonly allowExternalLinks: boolean
  readonly crawlEntireDomain: boolean
  readonly ignoreQueryParameters: boolean
  readonly sitemap: "skip" | "include" | "only"
}

export interface PromptOptions {
  readonly options: Partial<CrawlOptionsLike>
  /** One line per recognised phrase: the phrase as written and what it set. */
  readonly understood: string[]
}

type Draft = { -readonly [K in keyof CrawlOptionsLike]?: CrawlOptionsLike[K] }

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  "a hundred": 100,
  "one hundred": 100,
  "a thousand": 1000,
  "one thousand": 1000,
}

const NUMBER = `(\\d{1,3}(?:,\\d{3})+|\\d+k?|${Object.keys(NUMBER_WORDS).join("|")})`

const toNumber = (text: string): number => {
  const word = NUMBER_WORDS[text.toLowerCase()]
  if (word !== undefined) return word
  const digits = text.replace(/,/g, "")
  return /k$/i.test(digits) ? Number(digits.slice(0, -1)) * 1000 : Number(digits)
}

/** Section names read as a path; those in `BARE` need no "the" before or noun after ("skip tags"). */
const SECTIONS = [
  "blog",
  "docs",
  "documentation",
  "news",
  "articles",
  "guides",
  "tutorials",
  "help",
  "support",
  "faq",
  "api",
  "changelog",
  "careers",
  "jobs",
  "products",
  "shop",
  "store",
  "pricing",
  "about",
  "events",
  "press",
  "resources",
  "wiki",
  "forum",
  "forums",
  "community",
  "podcasts",
  "videos",
  "tag",
  "tags",
  "author",
  "authors",
  "category",
  "categories",
  "archive",
  "archives",
  "search",
  "login",
  "signup",
  "account",
  "cart",
  "checkout",
  "admin",
  "comments",
  "legal",
  "privacy",
  "terms",
]
const BARE = [
  "blog",
  "docs",
  "documentation",
  "news",
  "faq",
  "api",
  "changelog",
  "careers",
  "pricing",
  "wiki",
  "forums?",
  "tags?",
  "authors?",
  "categories",
  "category",
  "archives?",
  "login",
  "signup",
  "cart",
  "checkout",
  "admin",
  "comments",
]

const SUFFIX = "(?:sections?|pages?|posts?|articles?|areas?|parts?|folders?|director(?:y|ies)|subtrees?|urls?)"
const QUOTE = "[\"'`“”‘’]?"
const URL_TOKEN = "https?://[^\\s,;\"'`<>]+"
// No quotes or brackets in a path: they delimit it, and overlapping with QUOTE would make matching quadratic.
const PATH_TOKEN = "/[\\w.~%!$&*+=:@/-]*"
const THIS_TOKEN = "this\\s+(?:section|path|folder|directory)"
const ITEM = [
  `(?:the\\s+)?${QUOTE}(?:${URL_TOKEN}|${PATH_TOKEN})${QUOTE}(?:\\s+${SUFFIX})?`,
  THIS_TOKEN,
  `the\\s+(?:${SECTIONS.join("|")})\\b(?:\\s+${SUFFIX})?`,
  `(?:${SECTIONS.join("|")})\\s+${SUFFIX}\\b`,
  `(?:${BARE.join("|")})\\b`,
].join("|")
/** Up to 20 items: longer lists are not prose, and the bound keeps matching linear. */
const LIST = `((?:${ITEM})(?:\\s*(?:,|&|\\+|\\band\\b|\\bor\\b)\\s*(?:and\\s+|or\\s+)?(?:${ITEM})){0,19})`
const TOKENS = new RegExp(`${URL_TOKEN}|${THIS_TOKEN}|${PATH_TOKEN}|\\b(?:${SECTIONS.join("|")})\\b`, "gi")

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** `/docs`, `/docs/`, `/docs/*` → `^/docs(?:/|$)`: the section and everything under it, not `/docsearch`. `path`
 * starts with a slash. */
const pathPattern = (raw: string): string | undefined => {
  const path = raw
    .replace(/[.,;:!?)'"`”’]+$/, "")
    .replace(/\/?\*+$/, "")
    .replace(/\/+$/, "")
  return path === "" ? undefined : `^${escapeRegex(path).replace(/\\\*/g, "[^/]*")}(?:/|$)`
}

/** The path patterns named in a list: literal paths, same-site URLs, "this section" (the seed's) and section words. */
const listPatterns = (list: string, seed: URL): string[] => {
  const patterns: string[] = []
  for (const [token] of list.matchAll(TOKENS)) {
    let path: string | undefined
    if (/^https?:/i.test(token)) {
      try {
        const url = new URL(token.replace(/[.,;:!?)'"`”’]+$/, ""))
        if (url.host.replace(/^www\./, "") === seed.host.replace(/^www\./, "")) path = url.pathname
      } catch {
        path = undefined
      }
    } else if (/^this\s/i.test(token)) path = seed.pathname
    else path = token.startsWith("/") ? token : `/${token.toLowerCase()}`
    const pattern = path === undefined ? undefined : pathPattern(path)
    if (pattern !== undefined && !patterns.includes(pattern)) patterns.push(pattern)
  }
  return patterns
}

interface Rule {
  readonly pattern: RegExp
  /** Applies a match to the draft and describes it, or returns undefined to leave the text unconsumed. */
  readonly apply: (draft: Draft, groups: ReadonlyArray<string>, seed: URL) => string | undefined
}

const set =
  <K extends keyof CrawlOptionsLike>(key: K, value: CrawlOptionsLike[K]) =>
  (draft: Draft): string => {
    draft[key] = value
    return `${key} = ${JSON.stringify(value)}`
  }

const addPaths =
  (key: "includePaths" | "excludePaths") =>
  (draft: Draft, groups: ReadonlyArray<string>, seed: URL): string | undefined => {
    const patterns = listPatterns(groups[0] ?? "", seed)
    if (patterns.length === 0) return undefined
    draft[key] = [...new Set([...(draft[key] ?? []), ...patterns])]
    return `${key} += ${patterns.join(", ")}`
  }

const numeric =
  (key: "limit" | "maxDiscoveryDepth", minimum: number) =>
  (draft: Draft, groups: ReadonlyArray<string>): string | undefined => {
    const value = toNumber(groups[0] ?? "")
    if (!Number.isSafeInteger(value) || value < minimum) return undefined
    draft[key] = value
    return `${key} = ${value}`
  }

const rule = (source: string, apply: Rule["apply"]): Rule => ({ pattern: new RegExp(source, "gi"), apply })

const DONT = "(?:don'?t|do\\s+not|never)"
const PAGES = "(?:pages?|urls?|links?|documents?|results?)"
const DEPTH_UNIT = "(?:levels?|hops?|clicks?|layers?)"
const SITES = "(?:links?|sites?|websites?|domains?|pages?|urls?)"

const RULES: ReadonlyArray<Rule> = [
  // sitemap
  rule(
    `\\b(?:ignore|skip|bypass|disregard|without|no|${DONT}\\s+(?:use|read|follow))\\s+(?:the\\s+|a\\s+|any\\s+)?sitemaps?(?:\\.xml)?\\b`,
    set("sitemap", "skip"),
  ),
  rule(
    `\\b(?:only|just|exclusively)\\s+(?:(?:use|crawl|follow|scrape)\\s+)?(?:the\\s+)?(?:${PAGES}\\s+)?(?:(?:from|in|listed\\s+in|on)\\s+)?(?:the\\s+)?sitemaps?\\b|\\bsitemaps?(?:\\.xml)?\\s+only\\b`,
    set("sitemap", "only"),
  ),
  rule(`\\b(?:use|include|follow|read)\\s+(?:the\\s+)?sitemaps?\\b`, set("sitemap", "include")),
  // query parameters
  rule(
    `\\b(?:ignore|strip|drop|remove|disregard|without)\\s+(?:the\\s+|all\\s+|any\\s+)?(?:(?:url\\s+)?(?:query|search)|url)[\\s-]+(?:parameters?|params?|strings?)\\b`,
    set("ignoreQueryParameters", true),
  ),
  // subdomains
  rule(
    `\\b(?:no|without|exclude|excluding|skip|ignore|${DONT}\\s+(?:include|crawl|follow|visit))\\s+(?:any\\s+|the\\s+)?subdomains?\\b`,
    set("allowSubdomains", false),
  ),
  rule(
    `\\b(?:include|including|allow|with|plus|also|crawl|follow|visit|across)\\s+(?:also\\s+)?(?:all\\s+|its\\s+|the\\s+|any\\s+)?subdomains?\\b|\\bsubdomains?\\s+(?:too|as\\s+well|included|allowed)\\b`,
    set("allowSubdomains", true),
  ),
  // external links
  rule(
    `\\b${DONT}\\s+(?:follow|crawl|visit|include)\\s+(?:any\\s+)?external\\s+${SITES}\\b|\\bno\\s+external\\s+${SITES}\\b|\\b(?:stay|remain|keep)\\s+(?:on|within|inside)\\s+(?:the\\s+|this\\s+|one\\s+)?(?:same\\s+)?(?:site|website|domain)\\b`,
    set("allowExternalLinks", false),
  ),
  rule(
    `\\b(?:follow|include|allow|crawl|visit)\\s+(?:the\\s+|any\\s+|all\\s+)?(?:external|outbound|outgoing)\\s+${SITES}\\b|\\bexternal\\s+links?\\s+(?:too|as\\s+well|allowed)\\b`,
    set("allowExternalLinks", true),
  ),
  // whole domain
  rule(
    `\\b(?:entire|whole|full|complete)\\s+(?:web\\s*)?(?:site|domain)\\b|\\beverything\\s+on\\s+the\\s+(?:web\\s*)?(?:site|domain)\\b`,
    set("crawlEntireDomain", true),
  ),
  // depth (before limits: "up to 2 levels deep" is not a page count)
  rule(
    `\\b(?:(?:up\\s+to|at\\s+most|no\\s+more\\s+than|not\\s+more\\s+than|max(?:imum)?(?:\\s+of)?|limit(?:ed)?\\s+to|only|just)\\s+)?${NUMBER}\\s+${DEPTH_UNIT}(?:\\s+(?:deep|down|away|of\\s+depth|from\\s+the\\s+(?:start|home\\s*page|seed|root|first\\s+page|starting\\s+page)))?\\b`,
    numeric("maxDiscoveryDepth", 0),
  ),
  rule(
    `\\b(?:max(?:imum)?\\s+)?(?:discovery\\s+|crawl\\s+|link\\s+)?depth(?:\\s+(?:of|to|is|at))?\\s*[:=]?\\s*${NUMBER}\\b|\\bno\\s+deeper\\s+than\\s+${NUMBER}(?:\\s+${DEPTH_UNIT})?\\b`,
    numeric("maxDiscoveryDepth", 0),
  ),
  rule(
    `\\b(?:only|just)\\s+(?:crawl\\s+|scrape\\s+)?(?:the\\s+)?(?:start(?:ing)?|first|seed|given|home|this)\\s*page\\b|\\b${DONT}\\s+follow\\s+(?:any\\s+)?links\\b`,
    set("maxDiscoveryDepth", 0),
  ),
  // page limit
  rule(
    `\\b(?:no\\s+more\\s+than|not\\s+more\\s+than|at\\s+most|up\\s+to|max(?:imum)?(?:\\s+of)?|limit(?:ed)?(?:\\s+it)?(?:\\s+(?:to|of|at))?|cap(?:ped)?\\s+at|a\\s+limit\\s+of|only|just|first|stop\\s+after|crawl|scrape|fetch|get|grab|collect|visit)\\s+(?:the\\s+first\\s+)?${NUMBER}\\s+${PAGES}\\b|\\b${NUMBER}\\s+${PAGES}\\s+(?:max(?:imum)?|at\\s+most|tops|only|or\\s+(?:less|fewer))\\b|\\blimit\\s*[:=]?\\s*${NUMBER}\\b`,
    numeric("limit", 1),
  ),
  // exclude paths (before includes: "pages under /x" after "skip" is an exclusion)
  rule(
    `\\b(?:skip|skipping|exclude|excluding|ignore|ignoring|avoid|omit|leave\\s+out|without|except(?:\\s+for)?|but\\s+not|no|${DONT}\\s+(?:crawl|include|scrape|visit|follow))\\s+(?:any\\s+|all\\s+)?(?:(?:pages?|urls?|links?)\\s+(?:under|in|within|from|matching|starting\\s+with)\\s+)?${LIST}`,
    addPaths("excludePaths"),
  ),
  // include paths
  rule(
    `\\b(?:only|just|exclusively)\\s+(?:(?:crawl|scrape|include|visit|follow|get|fetch)\\s+)?(?:(?:the\\s+)?(?:pages?|urls?|links?|content|things|documents?)\\s+(?:that\\s+are\\s+|which\\s+are\\s+)?(?:under|in|within|inside|below|beneath|from|starting\\s+with|beginning\\s+with|matching|at)\\s+)?${LIST}`,
    addPaths("includePaths"),
  ),
  rule(
    `\\b(?:restrict|limit|confine)\\s+(?:it\\s+|the\\s+crawl\\s+|crawling\\s+)?(?:to|within)\\s+(?:(?:the\\s+)?pages?\\s+(?:under|in|within)\\s+)?${LIST}|\\b(?:stay|remain)\\s+(?:in|within|inside|under)\\s+${LIST}`,
    addPaths("includePaths"),
  ),
  // Anchored after a delimiter: a list tried at every character of a long path would be quadratic.
  rule(`(?<=^|[\\s"'(,;])${LIST}\\s+only\\b`, addPaths("includePaths")),
  rule(
    `\\b(?:pages?|urls?|links?|everything|anything|content)\\s+(?:that\\s+are\\s+)?(?:under|in|within|inside|below|beneath|starting\\s+with)\\s+${LIST}`,
    addPaths("includePaths"),
  ),
]

/** Reads crawl options from `prompt`; relative phrasings ("this section", same-site URLs) resolve against `seed`. */
export const optionsFromPrompt = (prompt: string, seed: string): PromptOptions => {
  const seedUrl = new URL(seed)
  const draft: Draft = {}
  const understood: string[] = []
  let text = prompt.replace(/[’‘]/g, "'").replace(/\s+/g, " ")
  for (const { pattern, apply } of RULES) {
    text = text.replace(pattern, (match: string, ...rest: unknown[]) => {
      // Only the groups that took part in the match, so a rule with alternatives reads its one number or list first.
      const groups = rest.slice(0, -2).filter((group): group is string => typeof group === "string")
      const described = apply(draft, groups, seedUrl)
      if (described === undefined) return match
      understood.push(`"${match.trim()}" → ${described}`)
      // A separator, so that a later rule's list does not run across what was consumed.
      return " ; "
    })
  }
  return { options: draft, understood }
}
