/**
 * The tasks of an llms.txt job: first the site's map (`map:`), which ends with the page tasks of the URLs the file
 * will list, admitted in the same commit; then one page task each (`page:`, as an extract's). A page keeps what its
 * line needs: title, description, and its markdown when the full text was asked for.
 */
import { Schema } from "effect"
import { type Document, firstOf } from "../Domain/Document.js"
import type { Format } from "../Domain/Formats.js"
import { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { pageTaskOf } from "../Extract/ExtractTasks.js"
import type { LlmsTxtSpec } from "../Jobs/JobSpec.js"
import type { NewTask, Task } from "../Jobs/JobStore.js"
import { NO_USAGE, type TokenUsage } from "../Llm/Llm.js"
import { offlineDescription } from "./Format.js"

const MAP = "map:"

/** The map of the site: what it finds becomes the page tasks. */
export const siteTask = (url: string): NewTask => ({ url, key: `${MAP}${url}`, depth: 0, host: new URL(url).host })

export const isSiteTask = (task: Task): boolean => task.key.startsWith(MAP)

/** The pages the file lists: the start page first, then the map's links in its order, each once, `maxUrls` at most. */
export const sitePageTasks = (start: string, links: ReadonlyArray<string>, maxUrls: number): ReadonlyArray<NewTask> => {
  const tasks = new Map<string, NewTask>()
  for (const url of [start, ...links]) {
    if (tasks.size >= maxUrls) break
    const task = pageTaskOf(url)
    if (task !== undefined && !tasks.has(task.key)) tasks.set(task.key, task)
  }
  return [...tasks.values()]
}

const DESCRIPTION_PROMPT =
  "Describe in one sentence of at most 30 words what this page offers a reader, for a site index such as llms.txt. " +
  "No marketing language, and do not start with 'This page'."

const descriptionFormat: Format = {
  type: "json",
  prompt: DESCRIPTION_PROMPT,
  schema: { type: "object", properties: { description: { type: "string" } }, required: ["description"] },
}

/** A page's scrape: its main content as markdown, and with a model its description. */
export const pageScrapeOptions = (describe: LlmsTxtSpec["describe"], cache: boolean): ScrapeOptions =>
  Schema.decodeSync(ScrapeOptions)({
    formats: describe === "model" ? ["markdown", descriptionFormat] : ["markdown"],
    onlyMainContent: true,
    ...(cache ? {} : { maxAge: 0 }),
  })

/** What an llms.txt job keeps of a page it read. */
export interface LlmsPageRecord {
  /** Where the page ended up (after redirects): the URL its line links. */
  readonly url: string
  /** The URL its task asked for (the start page is known by it). */
  readonly sourceURL: string
  readonly title: string
  /** The description its line shows. */
  readonly line: string
  /** Only when the full text was asked for. */
  readonly markdown?: string
  readonly usage: TokenUsage
}

const modelDescription = (document: Document): string | undefined => {
  const json = document.json as { readonly description?: unknown } | undefined
  return typeof json?.description === "string" && json.description.trim() !== "" ? json.description : undefined
}

export const llmsPageRecord = (spec: LlmsTxtSpec, document: Document): LlmsPageRecord => {
  const { metadata } = document
  const title = firstOf(metadata.title) ?? ""
  const description = firstOf(metadata.description)
  const usage = metadata.llmUsage as Partial<TokenUsage> | undefined
  return {
    url: metadata.url,
    sourceURL: metadata.sourceURL,
    title,
    line:
      modelDescription(document) ??
      offlineDescription({ url: metadata.sourceURL, title, description, markdown: document.markdown }),
    ...(spec.showFullText ? { markdown: document.markdown ?? "" } : {}),
    usage:
      usage === undefined ? NO_USAGE : { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 },
  }
}
