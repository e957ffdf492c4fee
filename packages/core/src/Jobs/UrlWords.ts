/**
 * A page's URL as words for the search index: its host without `www.` and its decoded path, every separator a space,
 * so that `docs.example.com/install-guide` is found by `docs`, `install` and `guide`. Every store indexes the same.
 */
const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/gu

export const urlWords = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return url.replace(SEPARATORS, " ").trim()
  let path = parsed.pathname
  try {
    path = decodeURIComponent(path)
  } catch {
    // A malformed escape: the path as it is.
  }
  return `${parsed.hostname.replace(/^www\./, "")} ${path}`.replace(SEPARATORS, " ").trim()
}
