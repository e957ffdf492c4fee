/**
 * The `json` format without a model: the offline extractor fills the caller's schema from the page's structured data.
 * It runs where the document is built (a content thread on servers), since it parses the page's HTML once more.
 */
import type { Document } from "../Domain/Document.js"
import { prepareSchema } from "../Domain/JsonSchema.js"
import { extractOffline } from "../Extract/Offline/OfflineExtractor.js"
import type { JsonSchema } from "../Llm/Llm.js"
import { isHtml } from "./ContentTypes.js"

const NOTHING_FOUND =
  "The offline extractor found none of the schema's fields on the page (configure a language model to read free text)."

/** Sets `document.json` (null and a warning when nothing was found), `jsonMode` and `jsonSources`. */
export const addOfflineJson = (
  document: Document,
  schema: JsonSchema,
  page: { readonly url: string; readonly body: string; readonly contentType: string | undefined },
): void => {
  const prepared = prepareSchema(schema)
  const html = isHtml(page.contentType, page.body) ? page.body : ""
  const found = extractOffline(html, page.url, prepared.schema)
  const empty = Object.keys(found.value).length === 0
  document.json = empty ? null : prepared.unwrap(found.value)
  document.metadata = { ...document.metadata, jsonMode: "offline", jsonSources: found.sources }
  if (empty) document.warning = document.warning === undefined ? NOTHING_FOUND : `${document.warning} ${NOTHING_FOUND}`
}
