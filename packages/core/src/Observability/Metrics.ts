/**
 * The engine's metrics, in Effect's registry (one per process, shared by every layer built in it). `GET /metrics`
 * renders them (`Prometheus.ts`); an OpenTelemetry exporter reads the same registry.
 */
import { type Effect, Metric, MetricBoundaries, MetricLabel } from "effect"

/** Requests answered, by route template, method and status class (`2xx`, `4xx`, ...). */
export const httpRequests = Metric.counter("webdata_http_requests_total", {
  description: "HTTP requests answered, by route template, method and status class",
  incremental: true,
})

/** Request latency in seconds, from the request's arrival to its response's head. */
export const httpDuration = Metric.histogram(
  "webdata_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]),
  "HTTP request latency in seconds, by route template, method and status class",
)

/** Pages scraped (a scrape, a crawl's or a batch's page): `rate()` of it is the pages per second. */
export const pagesScraped = Metric.counter("webdata_pages_scraped_total", {
  description: "Pages scraped, by where the content came from (cache or fetch)",
  incremental: true,
})

/** Reads of the scrape cache that could be answered from it, by result. */
export const cacheReads = Metric.counter("webdata_scrape_cache_reads_total", {
  description: "Scrape cache reads, by result (hit or miss)",
  incremental: true,
})

/** Sampled from the store when the metrics are read. */
export const jobsRunning = Metric.gauge("webdata_jobs_running", {
  description: "Jobs in the store that are running (status scraping), by kind",
})
export const dueTasks = Metric.gauge("webdata_queue_due_tasks", {
  description: "Tasks of running jobs that a worker could lease now (the queue depth)",
})

/** Sampled from the browser engine when the metrics are read (absent without one). */
export const browserPages = Metric.gauge("webdata_browser_pages_open", {
  description: "Pages (each in its own browser context) open in the browser pool",
})
export const browserSessions = Metric.gauge("webdata_browser_sessions_open", {
  description: "Interactive browser sessions open",
})

/** `metric` with these labels. */
export const labelled = <Type, In, Out>(
  metric: Metric.Metric<Type, In, Out>,
  labels: Readonly<Record<string, string>>,
): Metric.Metric<Type, In, Out> =>
  Metric.taggedWithLabels(
    metric,
    Object.entries(labels).map(([key, value]) => MetricLabel.make(key, value)),
  )

/** One read of the scrape cache. */
export const cacheRead = (hit: boolean): Effect.Effect<void> =>
  Metric.increment(labelled(cacheReads, { result: hit ? "hit" : "miss" }))

/** One page scraped. */
export const pageScraped = (source: "cache" | "fetch"): Effect.Effect<void> =>
  Metric.increment(labelled(pagesScraped, { source }))
