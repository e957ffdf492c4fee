/**
 * The tasks of an extract job. Each is one of three kinds, told apart by its key: a page to read (`page:`), a URL
 * with a trailing `/*` to expand into the pages under it through map (`expand:`), or a web search for pages when the
 * request gave only a prompt (`search:`). Expansion and search tasks end with the page tasks they found, admitted in
 * the same commit, so a job never completes before its pages are read.
 */
import { dedupKey, normalizeUrl } from "../Crawl/UrlKey.js"
import type { Document } from "../Domain/Document.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import type { ExtractSpec } from "../Jobs/JobSpec.js"
import type { NewTask, Task } from "../Jobs/JobStore.js"
import type { TokenUsage } from "../Llm/Llm.js"

const PAGE = "page:"
const EXPAND = "expand:"
const SEARCH = "search:"

export type ExtractTaskKind = "page" | "expand" | "search"

export const taskKind = (task: Task): ExtractTaskKind =>
  task.key.startsWith(EXPAND) ? "expand" : task.key.startsWith(SEARCH) ? "search" : "page"

const dedup = { ignoreQueryParameters: false, deduplicateSimilarURLs: true }

/** A page to read; the same page found twice (given and expanded) is read once. */
export const pageTask = (url: string): NewTask => {
  const normalized = normalizeUrl(url, dedup)
  return { url: normalized, key: `${PAGE}${dedupKey(normalized, dedup)}`, depth: 0, host: new URL(normalized).host }
}

/** The page task of a URL a page or a map gave, or none when it is no URL. */
export const pageTaskOf = (url: string): NewTask | undefined => {
  try {
    return pageTask(url)
  } catch {
    return undefined
  }
}

/** `https://example.com/blog/*`: the pages under `https://example.com/blog/`. */
export const isWildcard = (url: string): boolean => /\/\*$/.test(url.trim())

export const expandTask = (wildcard: string): NewTask => {
  const base = wildcard.trim().replace(/\*$/, "")
  return { url: base, key: `${EXPAND}${base}`, depth: 0, host: new URL(base).host }
}

/** A search for pages (the task's URL carries the query, for the job's errors). */
export const searchTask = (query: string): NewTask => ({
  url: `search:${query.slice(0, 500)}`,
  key: `${SEARCH}${query.slice(0, 500)}`,
  depth: 0,
  host: "search",
})

/** Where a URL list's page tasks go: one per URL, wildcards expanded. */
export const seedTasks = (urls: ReadonlyArray<string>): ReadonlyArray<NewTask> =>
  urls.map((url) => (isWildcard(url) ? expandTask(url) : pageTask(url)))

/** The prompt a page is read with: the request's system prompt ahead of its prompt. */
export const pagePrompt = (spec: ExtractSpec): string | undefined =>
  [spec.systemPrompt, spec.prompt].filter((part) => part !== undefined && part.trim() !== "").join("\n\n") || undefined

/** A page's scrape options: the request's, with the extraction as the one json format. */
export const pageScrapeOptions = (spec: ExtractSpec): ScrapeOptions => {
  const prompt = pagePrompt(spec)
  return {
    ...spec.scrapeOptions,
    formats: [
      {
        type: "json",
        ...(spec.schema !== undefined ? { schema: spec.schema } : {}),
        ...(prompt !== undefined ? { prompt } : {}),
      },
    ],
  }
}

/** What an extract keeps of a page it read: its value and where and how it came. */
export interface PageRecord {
  readonly url: string
  readonly sourceURL: string
  readonly value: unknown
  readonly mode: "model" | "offline"
  readonly usage: TokenUsage
}

export const pageRecord = (document: Document): PageRecord => {
  const usage = document.metadata.llmUsage as Partial<TokenUsage> | undefined
  return {
    url: document.metadata.url,
    sourceURL: document.metadata.sourceURL,
    value: document.json ?? null,
    mode: document.metadata.jsonMode === "offline" ? "offline" : "model",
    usage: { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 },
  }
}
