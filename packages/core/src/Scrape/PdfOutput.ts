/** What the `parsers` scrape option asks of a PDF: how to read it, and what the document shows of its pages. */
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { PdfSettings } from "../Parse/FileParser.js"

type Parsers = ScrapeOptions["parsers"]

const pdfParserOf = (parsers: Parsers) => parsers?.find((parser) => parser.type === "pdf")

/** Whether PDFs are parsed at all: `parsers: []` (no `pdf`) returns the file itself as base64. */
export const parsesPdf = (parsers: Parsers): boolean => parsers === undefined || pdfParserOf(parsers) !== undefined

/** How PDFs are read: mode (default `auto`) and page cap. */
export const pdfSettingsOf = (parsers: Parsers): PdfSettings => {
  const parser = pdfParserOf(parsers)
  return { mode: parser?.mode ?? "auto", maxPages: parser?.maxPages }
}

/** `pages` (or its old name `pageMarkdown`) and `pageMarkers`. */
export const pdfOutputOf = (parsers: Parsers): { readonly pages: boolean; readonly pageMarkers: boolean } => {
  const parser = pdfParserOf(parsers)
  return { pages: parser?.pages ?? parser?.pageMarkdown ?? false, pageMarkers: parser?.pageMarkers ?? false }
}

/**
 * Part of the cache key: the same URL read with other PDF settings is another document. The default reading (`auto`,
 * every page), however it is asked for, adds nothing: most URLs are not PDFs.
 */
export const pdfCacheSuffix = (parsers: Parsers): string => {
  if (!parsesPdf(parsers)) return " pdf:raw"
  const settings = pdfSettingsOf(parsers)
  return settings.mode === "auto" && settings.maxPages === undefined
    ? ""
    : ` pdf:${settings.mode}:${settings.maxPages ?? ""}`
}
