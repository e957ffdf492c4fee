/**
 * Which endpoint class a request counts against: reads (GET) and cancels (DELETE) are `status`; a POST counts against
 * the class its path starts with (`/v2/batch/scrape` is `batch`, `/v2/crawl/params-preview` is `crawl`).
 */
import type { EndpointClass } from "./Limits.js"

const byPrefix: ReadonlyArray<readonly [string, EndpointClass]> = [
  ["/v2/batch/scrape", "batch"],
  ["/v2/scrape", "scrape"],
  ["/v2/crawl", "crawl"],
  ["/v2/map", "map"],
  ["/v2/search", "search"],
  ["/v2/extract", "extract"],
  // Firecrawl's v1 routes run the same services.
  ["/v1/batch/scrape", "batch"],
  ["/v1/scrape", "scrape"],
  ["/v1/crawl", "crawl"],
  ["/v1/map", "map"],
  ["/v1/search", "search"],
  ["/v1/extract", "extract"],
  // A generation maps and reads a site, as a small crawl does.
  ["/v1/llmstxt", "crawl"],
  ["/v2/agent", "agent"],
  ["/v2/parse", "parse"],
  ["/v2/interact", "interact"],
  ["/v2/browser", "interact"],
  ["/v2/monitor", "monitor"],
]

/** The classes whose POST starts a job that runs on the workers (counted by the `jobs` limit and the queue limit). */
export const JOB_CLASSES: ReadonlySet<EndpointClass> = new Set(["crawl", "batch", "extract", "agent"])

export const endpointClassOf = (method: string, pathname: string): EndpointClass => {
  if (method !== "POST") return "status"
  // `/v2/scrape/{id}/interact` drives a session: an interact request, not a scrape.
  if (/^\/v2\/scrape\/[^/]+\/interact/.test(pathname)) return "interact"
  if (pathname.startsWith("/v2/crawl/params-preview")) return "crawl"
  for (const [prefix, name] of byPrefix) if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return name
  return "status"
}
