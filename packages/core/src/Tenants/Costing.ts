/**
 * What a request costs in credits (docs/api.md, "Usage and costing"): a page is a credit, whatever produced it (a
 * scrape, a crawl's or a batch's page, a parsed file, a search result scraped), a map or a search request is a
 * credit, and language-model tokens cost a credit per started thousand. Failed pages cost nothing.
 */
export const CREDITS_PER_PAGE = 1
export const CREDITS_PER_REQUEST = 1
export const TOKENS_PER_CREDIT = 1_000

export const creditsForTokens = (tokens: number): number => (tokens <= 0 ? 0 : Math.ceil(tokens / TOKENS_PER_CREDIT))
