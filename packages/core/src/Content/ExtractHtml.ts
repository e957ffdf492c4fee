/**
 * HTML → cleaned DOM → (main content) → markdown, links, images and metadata. Pure and synchronous: the scrape
 * service calls it once per page with the final URL as the base for relative references.
 */
import { removeArticleHeader } from "./ArticleHeader.js"
import { absolutizeUrls, pruneEmptyElements, replaceBase64Images } from "./Clean.js"
import { baseUrl, type Element, elementsByTag, innerHtml, isTag, type Page, parsePage } from "./Dom.js"
import { extractImages, extractLinks, IMAGE_TAGS, LINK_TAGS } from "./Links.js"
import { extractMainContent } from "./MainContent.js"
import { toMarkdown } from "./Markdown/ToMarkdown.js"
import { extractMetadata, METADATA_TAGS } from "./Metadata.js"
import { pageStats } from "./PageStats.js"
import { keepMatching, removeMatching } from "./Selectors.js"

const first = (value: string | Array<string> | undefined) => (Array.isArray(value) ? value[0] : value)

export { parsePage } from "./Dom.js"
export { toMarkdown } from "./Markdown/ToMarkdown.js"
export { InvalidSelectorError } from "./Selectors.js"

/** Page metadata: the named Firecrawl fields plus every `<meta name|property|itemprop>` under its raw key. */
export type PageMetadata = Record<string, string | Array<string>>

export interface HtmlExtractionOptions {
  /** The final URL of the page: base for relative links (a `<base href>` in the page wins). */
  readonly url: string
  readonly onlyMainContent: boolean
  readonly includeTags: ReadonlyArray<string>
  readonly excludeTags: ReadonlyArray<string>
  readonly removeBase64Images: boolean
  /** Which outputs to compute; metadata is always computed. */
  readonly formats: {
    readonly markdown: boolean
    readonly html: boolean
    readonly links: boolean
    readonly images: boolean
  }
}

export interface HtmlExtraction {
  readonly markdown?: string
  readonly html?: string
  readonly links?: Array<string>
  readonly images?: Array<string>
  readonly metadata: PageMetadata
}

/**
 * The body, unless the markup left content outside it: broken pages (two concatenated documents, stray elements
 * after `</body>`) make the parser put elements beside the body, and then the whole document is the content.
 */
const contentRoot = ({ root, body }: Page): Element => {
  let bodies = 0
  for (const child of root.children) {
    if (!isTag(child) || child.name === "head") continue
    if (child.name !== "body") return root
    bodies++
  }
  return bodies === 1 ? body : root
}

/** Throws `InvalidSelectorError` when an include/exclude selector cannot be parsed. */
export const extractHtml = (html: string, options: HtmlExtractionOptions): HtmlExtraction => {
  // Selectors may name any attribute and the html output shows them all; markdown alone needs only a few.
  const keepAttributes = options.formats.html || options.includeTags.length > 0 || options.excludeTags.length > 0
  const page = parsePage(html, { keepAttributes })
  // Metadata, links and images describe the whole page, before anything is removed: one walk finds their elements.
  const found = elementsByTag(
    page.root,
    new Set<string>([
      ...METADATA_TAGS,
      ...(options.formats.links ? LINK_TAGS : []),
      ...(options.formats.images ? IMAGE_TAGS : []),
    ]),
  )
  const base = baseUrl(found.get("base") ?? [], options.url)
  const metadata = extractMetadata(page.root, found, base)
  const links = options.formats.links ? extractLinks(found, base) : undefined
  const images = options.formats.images ? extractImages(found, base) : undefined
  if (!options.formats.markdown && !options.formats.html)
    return { metadata, ...(links ? { links } : {}), ...(images ? { images } : {}) }

  let body = contentRoot(page)
  if (options.includeTags.length > 0) body = keepMatching(page.document, options.includeTags)
  removeMatching(body, options.excludeTags)
  const stats = pageStats(body)
  // With includeTags the caller chose the content; main-content extraction would second-guess it.
  const content = options.onlyMainContent && options.includeTags.length === 0 ? extractMainContent(stats).root : body
  // Only a chosen article loses its header; a whole page (no article found, or onlyMainContent off) keeps it.
  if (content !== body) removeArticleHeader(content, first(metadata.title))
  const contentImages = absolutizeUrls(content, base)
  let cleanedHtml: string | undefined
  if (options.formats.html) {
    pruneEmptyElements(content)
    cleanedHtml = innerHtml(content).trim()
  }
  let markdown: string | undefined
  if (options.formats.markdown) {
    if (options.removeBase64Images) replaceBase64Images(contentImages)
    markdown = toMarkdown(content)
  }
  return {
    metadata,
    ...(markdown !== undefined ? { markdown } : {}),
    ...(cleanedHtml !== undefined ? { html: cleanedHtml } : {}),
    ...(links ? { links } : {}),
    ...(images ? { images } : {}),
  }
}
