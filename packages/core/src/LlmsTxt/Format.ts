/**
 * The llms.txt file of a site (the llmstxt.org format) built from its scraped pages: a title, a one-line summary,
 * then the pages grouped into sections by the first segment of their path, one link line each. The full variant
 * carries each page's markdown. Pure, so a job's status can rebuild the file from its stored pages at any time.
 */
import { plainText } from "../Search/Snippet.js"

export interface LlmsPage {
  readonly url: string
  readonly title?: string | undefined
  /** The page's meta description. */
  readonly description?: string | undefined
  readonly markdown?: string | undefined
}

export interface LlmsSite {
  readonly title: string
  readonly summary: string
  /** Pages in the order they were taken (the start URL first); each with the description its line shows. */
  readonly pages: ReadonlyArray<LlmsPage & { readonly line: string }>
}

/** The heading of the section for pages at the root of the site. */
export const ROOT_SECTION = "Pages"

/** The longest description a line carries; longer ones are cut on a word boundary. */
const MAX_DESCRIPTION = 200

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/** Brackets and backslashes would end or break the link text. */
export const escapeLinkText = (text: string): string => oneLine(text).replace(/[\\[\]]/g, "\\$&")

/** Parentheses and whitespace would end the link target early. */
export const escapeLinkUrl = (url: string): string =>
  url.replace(/[()\s]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)

const bounded = (text: string): string => {
  if (text.length <= MAX_DESCRIPTION) return text
  const cut = text.slice(0, MAX_DESCRIPTION)
  const space = cut.lastIndexOf(" ")
  return `${(space > MAX_DESCRIPTION / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`
}

/** The first sentence of a text: up to the first `.`, `!` or `?` followed by a space or the end. */
export const firstSentence = (text: string): string => {
  const flat = oneLine(text)
  const match = /^.*?[.!?](?=\s|$)/.exec(flat)
  return bounded(match === null ? flat : match[0])
}

/**
 * A page's description without a model: its meta description, else the first sentence of its content (the
 * markdown read as plain text, headings and the title line left out), else nothing.
 */
export const offlineDescription = (page: LlmsPage): string => {
  const meta = oneLine(page.description ?? "")
  if (meta !== "") return bounded(meta)
  const body = (page.markdown ?? "")
    .split("\n")
    .filter((line) => !/^\s{0,3}#{1,6}\s/.test(line) && !/^\s*(?:[-=]\s*){3,}$/.test(line))
    .join("\n")
  return firstSentence(plainText(body))
}

/** A page's path segments, ignoring empty ones. */
const segments = (url: string): ReadonlyArray<string> => {
  try {
    return new URL(url).pathname.split("/").filter((segment) => segment !== "")
  } catch {
    return []
  }
}

/** `getting-started` → `Getting started`. */
const sectionTitle = (segment: string): string => {
  let decoded = segment
  try {
    decoded = decodeURIComponent(segment)
  } catch {
    // A malformed escape is shown as it is.
  }
  const words = oneLine(decoded.replace(/[-_+]+/g, " "))
  return words === "" ? segment : words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * The section a page belongs to: the first segment of its path when the page sits below it (`/docs/intro`), the
 * root section for the home page and pages directly under it (`/about`), which would otherwise each make a section.
 */
export const sectionOf = (url: string): string => {
  const parts = segments(url)
  return parts.length <= 1 ? ROOT_SECTION : sectionTitle(parts[0]!)
}

/** A page's title, falling back to its path, then its URL. */
export const pageTitle = (page: LlmsPage): string => {
  const title = oneLine(page.title ?? "")
  if (title !== "") return title
  const parts = segments(page.url)
  return parts.length === 0 ? page.url : sectionTitle(parts[parts.length - 1]!)
}

/** `- [title](url): description`, or `- [title](url):` without one. */
export const pageLine = (page: LlmsPage, description: string): string => {
  const text = oneLine(description)
  return `- [${escapeLinkText(pageTitle(page))}](${escapeLinkUrl(page.url)}):${text === "" ? "" : ` ${text}`}`
}

/** Sections in the order their first page was taken, the root section first. */
const grouped = <P extends LlmsPage>(pages: ReadonlyArray<P>): ReadonlyArray<readonly [string, ReadonlyArray<P>]> => {
  const sections = new Map<string, Array<P>>([[ROOT_SECTION, []]])
  for (const page of pages) {
    const name = sectionOf(page.url)
    const list = sections.get(name) ?? []
    list.push(page)
    sections.set(name, list)
  }
  return [...sections].filter(([, list]) => list.length > 0)
}

/** The llms.txt file. */
export const formatLlmsTxt = (site: LlmsSite): string => {
  const head = [`# ${oneLine(site.title)}`]
  const summary = oneLine(site.summary)
  if (summary !== "") head.push("", `> ${summary}`)
  const sections = grouped(site.pages).map(([name, list]) =>
    [`## ${name}`, "", ...list.map((page) => pageLine(page, page.line))].join("\n"),
  )
  return `${[head.join("\n"), ...sections].join("\n\n")}\n`
}

/** The llms-full.txt file: each page's markdown under its title and URL. */
export const formatLlmsFullTxt = (site: LlmsSite): string => {
  const head = [`# ${oneLine(site.title)}`]
  const summary = oneLine(site.summary)
  if (summary !== "") head.push("", `> ${summary}`)
  const pages = site.pages.map((page) =>
    [`## ${oneLine(pageTitle(page))}`, "", `Source: ${page.url}`, "", (page.markdown ?? "").trim()]
      .join("\n")
      .trimEnd(),
  )
  return `${[head.join("\n"), ...pages].join("\n\n")}\n`
}

/** The site's name: the start page's title, else its host. */
export const siteTitle = (startUrl: string, start: LlmsPage | undefined): string => {
  const title = oneLine(start?.title ?? "")
  if (title !== "") return title
  try {
    return new URL(startUrl).host
  } catch {
    return startUrl
  }
}
