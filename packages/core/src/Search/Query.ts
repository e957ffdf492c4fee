/**
 * What providers share when they map a `SearchQuery` to their parameters: categories and domains as search operators
 * (every provider here understands `site:`, `-site:` and `filetype:`), Google's `tbs` time filter as a range, and the
 * checks the results pass afterwards (a provider that ignores an operator cannot leak results past it).
 */
import type { SearchCategory, SearchHit, SearchQuery } from "./SearchProvider.js"

/** Sites of each category, as Firecrawl narrows them. `pdf` is a file type, not a set of sites. */
export const CATEGORY_SITES: Readonly<Record<Exclude<SearchCategory, "pdf">, ReadonlyArray<string>>> = {
  github: ["github.com"],
  research: [
    "arxiv.org",
    "scholar.google.com",
    "pubmed.ncbi.nlm.nih.gov",
    "researchgate.net",
    "nature.com",
    "science.org",
    "ieee.org",
    "acm.org",
    "springer.com",
    "wiley.com",
    "sciencedirect.com",
    "plos.org",
    "biorxiv.org",
    "medrxiv.org",
    "semanticscholar.org",
  ],
}

const normaliseHost = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^www\./, "")
    .replace(/\.$/, "")

/** Whether `host` is `domain` or one of its subdomains. */
export const onDomain = (host: string, domain: string): boolean => {
  const h = normaliseHost(host)
  const d = normaliseHost(domain)
  return h === d || h.endsWith(`.${d}`)
}

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).hostname
  } catch {
    return undefined
  }
}

const isPdf = (url: string): boolean => {
  try {
    return new URL(url).pathname.toLowerCase().endsWith(".pdf")
  } catch {
    return false
  }
}

/** The sites the query is narrowed to: `includeDomains` and the categories' sites (empty: any site). */
export const includedSites = (query: SearchQuery): ReadonlyArray<string> => [
  ...(query.includeDomains ?? []),
  ...(query.categories ?? []).flatMap((category) => (category === "pdf" ? [] : CATEGORY_SITES[category])),
]

const anyOf = (terms: ReadonlyArray<string>): string =>
  terms.length === 1 ? (terms[0] as string) : `(${terms.join(" OR ")})`

/** The query with its categories and domains as operators: `words (site:a OR site:b) -site:c filetype:pdf`. */
export const withOperators = (query: SearchQuery): string => {
  const sites = includedSites(query)
  const parts = [
    query.query.trim(),
    ...(sites.length > 0 ? [anyOf(sites.map((site) => `site:${site}`))] : []),
    ...(query.excludeDomains ?? []).map((domain) => `-site:${domain}`),
    ...((query.categories ?? []).includes("pdf") ? ["filetype:pdf"] : []),
  ]
  return parts.join(" ")
}

/**
 * Whether a result respects the query's domains and categories. With categories, a result must belong to one of them
 * (a site category's sites, or a PDF for `pdf`); with `includeDomains` it must also be on one of those.
 */
export const admits = (query: SearchQuery, hit: SearchHit): boolean => {
  const host = hostOf(hit.url)
  if (host === undefined) return false
  if ((query.excludeDomains ?? []).some((domain) => onDomain(host, domain))) return false
  const include = query.includeDomains ?? []
  if (include.length > 0 && !include.some((domain) => onDomain(host, domain))) return false
  const categories = query.categories ?? []
  return categories.length === 0 || categoryOf(hit.url, categories) !== undefined
}

/** The first of `categories` the URL belongs to. */
export const categoryOf = (url: string, categories: ReadonlyArray<SearchCategory>): SearchCategory | undefined => {
  const host = hostOf(url)
  if (host === undefined) return undefined
  return categories.find((category) =>
    category === "pdf" ? isPdf(url) : CATEGORY_SITES[category].some((site) => onDomain(host, site)),
  )
}

export type RecentUnit = "h" | "d" | "w" | "m" | "y"

/** A `tbs` value read: a recent period (`qdr:`) or a date range (`cdr:`), and whether to sort by date (`sbd:1`). */
export interface TimeFilter {
  readonly recent?: RecentUnit
  /** Start of a `cdr:` range (epoch ms, the first instant of that day in UTC). */
  readonly from?: number
  /** End of a `cdr:` range (epoch ms, the last instant of that day in UTC). */
  readonly to?: number
  readonly sortByDate: boolean
}

const DAY_MS = 86_400_000
const UNIT_MS: Readonly<Record<RecentUnit, number>> = {
  h: 3_600_000,
  d: DAY_MS,
  w: 7 * DAY_MS,
  m: 31 * DAY_MS,
  y: 366 * DAY_MS,
}

/** `MM/DD/YYYY` (Google's form; `M/D/YYYY` too) as the epoch ms of that day's start in UTC. */
const usDate = (value: string): number | undefined => {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value.trim())
  if (match === null) return undefined
  const [month, day, year] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const time = Date.UTC(year, month - 1, day)
  const date = new Date(time)
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? time : undefined
}

/** Reads `tbs`; undefined when it says nothing this understands (an unknown value filters nothing). */
export const parseTbs = (tbs: string | undefined): TimeFilter | undefined => {
  if (tbs === undefined || tbs.trim() === "") return undefined
  const fields = new Map(
    tbs.split(",").map((part) => {
      const at = part.indexOf(":")
      return at < 0 ? [part.trim(), ""] : [part.slice(0, at).trim(), part.slice(at + 1).trim()]
    }),
  )
  const qdr = fields.get("qdr")
  const recent = qdr !== undefined && /^[hdwmy]$/.test(qdr) ? (qdr as RecentUnit) : undefined
  const custom = fields.get("cdr") === "1"
  const min = custom ? usDate(fields.get("cd_min") ?? "") : undefined
  const max = custom ? usDate(fields.get("cd_max") ?? "") : undefined
  const sortByDate = fields.get("sbd") === "1"
  if (recent === undefined && min === undefined && max === undefined && !sortByDate) return undefined
  return {
    ...(recent !== undefined ? { recent } : {}),
    ...(min !== undefined ? { from: min } : {}),
    ...(max !== undefined ? { to: max + DAY_MS - 1 } : {}),
    sortByDate,
  }
}

/** The instants a time filter admits, given the present: `[from, to]`, either end open. */
export const timeWindow = (filter: TimeFilter, now: number): { readonly from?: number; readonly to?: number } => {
  const from = filter.recent !== undefined ? now - UNIT_MS[filter.recent] : filter.from
  return { ...(from !== undefined ? { from } : {}), ...(filter.to !== undefined ? { to: filter.to } : {}) }
}
