/**
 * The tasks of a check's job. Every task key starts with the index of its target in the check's spec, so that one job
 * runs every target of a monitor and each task knows its target:
 * - `<i> <dedup key>`: a page to scrape and compare (a scrape target's URL, a crawl target's page, a new search
 *   result);
 * - `<i> search`: a search target's queries, which expand into result tasks;
 * - `<i> seen <url>`: a search result an earlier check already reported (recorded without a fetch).
 */
import { dedupKey, normalizeUrl } from "../Crawl/UrlKey.js"
import { DEFAULT_MONITOR_CRAWL_LIMIT, type MonitorCrawlOptions, type MonitorTarget } from "../Domain/MonitorRequest.js"
import { withScheme } from "../Domain/Url.js"
import type { MonitorSpec } from "../Jobs/JobSpec.js"
import type { NewTask, Task } from "../Jobs/JobStore.js"

/** Results a search target reports per check unless it says otherwise. */
export const DEFAULT_SEARCH_RESULTS = 10

export type TaskRole = "page" | "search" | "seen"

export interface TaskTarget {
  readonly index: number
  readonly target: MonitorTarget
  readonly role: TaskRole
}

const SEARCH_HOST = "search"

/** The dedup options of a target's pages: a crawl's own, else Firecrawl's crawl defaults. */
const dedupOf = (target: MonitorTarget) => ({
  ignoreQueryParameters: target.type === "crawl" ? (target.crawlOptions?.ignoreQueryParameters ?? false) : false,
  deduplicateSimilarURLs: target.type === "crawl" ? (target.crawlOptions?.deduplicateSimilarURLs ?? true) : true,
})

/** The task of a page of target `index` (throws on a URL that is not absolute, like `normalizeUrl`). */
export const pageTask = (index: number, target: MonitorTarget, url: string, depth: number): NewTask => {
  const options = dedupOf(target)
  const normalized = normalizeUrl(withScheme(url), options)
  return {
    url: normalized,
    key: `${index} ${dedupKey(normalized, options)}`,
    depth,
    host: new URL(normalized).host,
  }
}

export const seenTask = (index: number, url: string): NewTask => ({
  url,
  key: `${index} seen ${url}`,
  depth: 1,
  host: SEARCH_HOST,
})

const seedsOf = (target: MonitorTarget, index: number): ReadonlyArray<NewTask> => {
  if (target.type === "scrape") return target.urls.map((url) => pageTask(index, target, url, 0))
  if (target.type === "crawl") return [pageTask(index, target, target.url, 0)]
  return [{ url: `search:${index}`, key: `${index} search`, depth: 0, host: SEARCH_HOST }]
}

/** The seeds of a check: each scrape target's URLs, each crawl target's start, each search target's queries. */
export const seedTasks = (spec: MonitorSpec): ReadonlyArray<NewTask> => spec.targets.flatMap(seedsOf)

/** Tasks a target may have at most: its pages (a search: its query task and its results). */
export const targetTaskLimit = (target: MonitorTarget): number =>
  target.type === "scrape"
    ? target.urls.length
    : target.type === "crawl"
      ? crawlLimit(target.crawlOptions)
      : 1 + (target.maxResults ?? DEFAULT_SEARCH_RESULTS)

/** Tasks a check may hold at most. */
export const taskLimit = (spec: MonitorSpec): number =>
  spec.targets.reduce((sum, target) => sum + targetTaskLimit(target), 0)

export const crawlLimit = (options: MonitorCrawlOptions | undefined): number =>
  options?.limit ?? DEFAULT_MONITOR_CRAWL_LIMIT

/** The target a task belongs to, and what the task is; undefined for a key this module did not make. */
export const targetOfTask = (spec: MonitorSpec, task: Pick<Task, "key">): TaskTarget | undefined => {
  const space = task.key.indexOf(" ")
  const index = Number(task.key.slice(0, space))
  const target = spec.targets[index]
  if (space < 0 || !Number.isInteger(index) || target === undefined) return undefined
  const rest = task.key.slice(space + 1)
  const role: TaskRole = rest === "search" ? "search" : rest.startsWith("seen ") ? "seen" : "page"
  return { index, target, role }
}

/** A target's id (every stored target has one; the index stands in otherwise). */
export const targetIdOf = (target: MonitorTarget, index: number): string => target.id ?? String(index)
