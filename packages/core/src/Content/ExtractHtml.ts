/**
 * HTML → cleaned DOM → (main content) → markdown, links, images and metadata. Pure and synchronous: the scrape
 * service calls it once per page with the final URL as the base for relative references.
 */

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

export const extractHtml = (_html: string, _options: HtmlExtractionOptions): HtmlExtraction => {
  throw new Error("not implemented yet")
}
