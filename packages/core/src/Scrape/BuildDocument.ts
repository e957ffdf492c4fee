/** Turns a fetched (or cached) page into the Document of the requested formats. */
import { STATUS_CODES } from "node:http"
import { extractHtml } from "../Content/ExtractHtml.js"
import { textToMarkdown } from "../Content/TextToMarkdown.js"
import type { Document, DocumentMetadata } from "../Domain/Document.js"
import { hasFormat } from "../Domain/HasFormat.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { JsonSchema } from "../Llm/Llm.js"
import type { FileKind } from "../Parse/FileKind.js"
import type { ParsedFile } from "../Parse/FileParser.js"
import { isHtml } from "./ContentTypes.js"
import { addOfflineJson } from "./OfflineJson.js"
import { pdfOutputOf } from "./PdfOutput.js"

export interface PageContent {
  /** Final URL after redirects. */
  readonly url: string
  readonly statusCode: number
  readonly contentType: string | undefined
  /** The decoded body; for a parsed file, its pages' HTML joined. */
  readonly body: string
  /** A file the parsers read (PDF, office, ...): its content as HTML pages. */
  readonly file?: FileContent | undefined
}

export interface FileContent extends ParsedFile {
  readonly kind: FileKind
  /** `parsers: []`: the body is the PDF itself as base64, which the document returns as is. */
  readonly base64?: boolean | undefined
}

export interface Provenance {
  readonly sourceURL: string
  readonly scrapeId: string
  readonly cacheState: "hit" | "miss"
  /** The engine that fetched the page, for a fresh one. */
  readonly engine?: "http" | "browser"
  readonly cachedAt?: string
}

/** Work a build does besides the formats. */
export interface BuildExtras {
  /** Fill the `json` format with the offline extractor against this schema (no model is configured). */
  readonly offlineJson?: JsonSchema | undefined
}

export const buildDocument = (
  options: ScrapeOptions,
  page: PageContent,
  provenance: Provenance,
  extras: BuildExtras = {},
): Document => {
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
  if (page.file !== undefined) buildFromFile(document, options, page, page.file, wants)
  else if (isHtml(page.contentType, page.body)) {
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
  if (extras.offlineJson !== undefined) addOfflineJson(document, extras.offlineJson, page)
  return document
}

/** Firecrawl's page break in the markdown of a PDF with `pageMarkers`. */
const pageMarker = (pageNumber: number) => `\n\n---\n\n<!-- page ${pageNumber} -->\n\n`

const METADATA_KEYS: Record<string, string> = { author: "author", subject: "description", keywords: "keywords" }

/**
 * A parsed file's document: each page through the content pipeline (the whole file is its content, so main-content
 * pruning is off), joined; `parsers: []` (PDF) gives the file's bytes as base64 instead, as Firecrawl does.
 */
const buildFromFile = (
  document: Document,
  options: ScrapeOptions,
  page: PageContent,
  file: FileContent,
  wants: { readonly markdown: boolean; readonly html: boolean; readonly links: boolean; readonly images: boolean },
) => {
  if (file.base64 === true) {
    if (wants.markdown) document.markdown = page.body
    if (wants.html) document.html = page.body
    return
  }
  const output = pdfOutputOf(options.parsers)
  const extracted = file.pages.map((html) =>
    extractHtml(html, {
      url: page.url,
      onlyMainContent: false,
      includeTags: options.includeTags ?? [],
      excludeTags: options.excludeTags ?? [],
      removeBase64Images: options.removeBase64Images,
      formats: { ...wants, markdown: wants.markdown || output.pages },
    }),
  )
  const markdowns = extracted.map((each) => each.markdown?.trim() ?? "")
  const properties = Object.fromEntries(
    Object.entries(file.properties ?? {}).map(([key, value]) => [METADATA_KEYS[key] ?? key, value]),
  )
  document.metadata = {
    ...properties,
    ...(file.title !== undefined ? { title: file.title } : {}),
    ...document.metadata,
    ...(file.numPages !== undefined ? { numPages: file.numPages } : {}),
    ...(file.totalPages !== undefined ? { totalPages: file.totalPages } : {}),
  }
  if (wants.markdown)
    document.markdown =
      file.kind === "pdf" && output.pageMarkers
        ? markdowns.reduce(
            (all, markdown, index) => (index === 0 ? markdown : `${all}${pageMarker(index + 1)}${markdown}`),
            "",
          )
        : markdowns.filter((markdown) => markdown !== "").join("\n\n")
  if (wants.html) document.html = extracted.map((each) => each.html ?? "").join("\n")
  if (wants.links) document.links = [...new Set(extracted.flatMap((each) => each.links ?? []))]
  if (wants.images) document.images = [...new Set(extracted.flatMap((each) => each.images ?? []))]
  if (file.kind === "pdf" && output.pages)
    document.pages = markdowns.map((markdown, index) => ({ pageNumber: index + 1, markdown }))
}
