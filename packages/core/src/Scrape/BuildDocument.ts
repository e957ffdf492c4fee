/** Turns a fetched (or cached) page into the Document of the requested formats. */
import { STATUS_CODES } from "node:http"
import { extractHtml } from "../Content/ExtractHtml.js"
import { textToMarkdown } from "../Content/TextToMarkdown.js"
import type { Document, DocumentMetadata } from "../Domain/Document.js"
import { hasFormat } from "../Domain/HasFormat.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { isHtml } from "./ContentTypes.js"

export interface PageContent {
  /** Final URL after redirects. */
  readonly url: string
  readonly statusCode: number
  readonly contentType: string | undefined
  readonly body: string
}

export interface Provenance {
  readonly sourceURL: string
  readonly scrapeId: string
  readonly cacheState: "hit" | "miss"
  /** The engine that fetched the page, for a fresh one. */
  readonly engine?: "http" | "browser"
  readonly cachedAt?: string
}

export const buildDocument = (options: ScrapeOptions, page: PageContent, provenance: Provenance): Document => {
  const wants = {
    markdown: hasFormat(options.formats, "markdown"),
    html: hasFormat(options.formats, "html"),
    links: hasFormat(options.formats, "links"),
    images: hasFormat(options.formats, "images"),
  }
  const base: DocumentMetadata = {
    sourceURL: provenance.sourceURL,
    url: page.url,
    statusCode: page.statusCode,
    scrapeId: provenance.scrapeId,
    proxyUsed: "basic",
    cacheState: provenance.cacheState,
    ...(provenance.engine !== undefined ? { engine: provenance.engine } : {}),
    ...(provenance.cachedAt !== undefined ? { cachedAt: provenance.cachedAt } : {}),
    ...(page.contentType !== undefined ? { contentType: page.contentType } : {}),
    ...(page.statusCode >= 400 ? { error: STATUS_CODES[page.statusCode] ?? `HTTP ${page.statusCode}` } : {}),
  }
  const document: Document = { metadata: base }
  if (isHtml(page.contentType, page.body)) {
    const extracted = extractHtml(page.body, {
      url: page.url,
      onlyMainContent: options.onlyMainContent,
      includeTags: options.includeTags ?? [],
      excludeTags: options.excludeTags ?? [],
      removeBase64Images: options.removeBase64Images,
      formats: wants,
    })
    // Page metadata first so that the pipeline's own fields (url, statusCode, ...) win over same-named meta tags.
    document.metadata = { ...extracted.metadata, ...base }
    if (wants.markdown) document.markdown = extracted.markdown ?? ""
    if (wants.html) document.html = extracted.html ?? ""
    if (wants.links) document.links = extracted.links ?? []
    if (wants.images) document.images = extracted.images ?? []
  } else {
    if (wants.markdown) document.markdown = textToMarkdown(page.body, page.contentType)
    if (wants.html) document.html = ""
    if (wants.links) document.links = []
    if (wants.images) document.images = []
  }
  if (hasFormat(options.formats, "rawHtml")) document.rawHtml = page.body
  return document
}
