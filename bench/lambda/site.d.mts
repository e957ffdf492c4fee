/** Types of `site.mjs`, for the TypeScript that imports it (`bench/test/lambdaExample.test.ts`). */
export declare const ARTICLE_TITLE: string
export declare const BIG_MARKER: string
export declare const PDF_TEXT: string
export declare const TINY_PAGE: string
export declare const articlePage: () => string
export declare const makePdf: (text: string) => Buffer

export interface Site {
  readonly base: string
  readonly url: (path: string) => string
  readonly close: () => Promise<void>
}

export declare const startSite: () => Promise<Site>
