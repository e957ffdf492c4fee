/** Which responses the engine can turn into documents, by content type (no parser loaded to decide). */
const HTML_TYPES = /\b(text\/html|application\/xhtml\+xml)\b/i
const TEXT_TYPES =
  /^(text\/|application\/(json|[\w.+-]+\+json|xml|[\w.+-]+\+xml|javascript|x-javascript|ecmascript|csv|x-ndjson|ld\+json|yaml|x-yaml|toml))/i

/** Whether the content type (or, without one, the body) says HTML. */
export const isHtml = (contentType: string | undefined, body: string): boolean =>
  contentType === undefined || contentType === "" ? /^\s*</.test(body.slice(0, 512)) : HTML_TYPES.test(contentType)

/** Whether the engine can make a document of this content type at all. */
export const isTextual = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "" || HTML_TYPES.test(contentType) || TEXT_TYPES.test(contentType)
