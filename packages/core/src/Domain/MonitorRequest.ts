/**
 * The monitor requests of `/v2/monitor` (Firecrawl's `MonitorCreateRequest` and `MonitorUpdateRequest`): a schedule,
 * targets (URLs to scrape, a site to crawl, web searches), where to send what changed, and how to judge it. webdata's
 * own addition is `judgeRules`: keywords and RE2 patterns that judge changes without a language model.
 */
import { Schema } from "effect"
import { compilePatterns } from "../Crawl/LinkFilter.js"
import { crawlerOptionFields } from "./CrawlRequest.js"
import { Integration, ScrapeOptions } from "./ScrapeOptions.js"
import { TargetUrl } from "./Url.js"

/** A crawl target's default page bound: a monitor looks at a site again and again, so its default is small. */
export const DEFAULT_MONITOR_CRAWL_LIMIT = 100
export const DEFAULT_RETENTION_DAYS = 30
export const MONITOR_EVENTS = ["monitor.page", "monitor.check.completed"] as const

export const MonitorScheduleInput = Schema.Struct({
  cron: Schema.optional(Schema.String.pipe(Schema.maxLength(256))),
  text: Schema.optional(Schema.String.pipe(Schema.maxLength(256))),
  timezone: Schema.optional(Schema.String.pipe(Schema.maxLength(64))),
}).annotations({ identifier: "MonitorSchedule" })
export type MonitorScheduleInput = typeof MonitorScheduleInput.Type

const WebhookUrl = Schema.String.pipe(
  Schema.filter((input) => {
    const url = URL.parse(input)
    return url === null
      ? "Invalid webhook URL"
      : url.protocol === "http:" || url.protocol === "https:" || "Webhook URL must use http or https"
  }),
)

export const MonitorWebhook = Schema.Struct({
  url: WebhookUrl,
  headers: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
      Schema.filter(
        (headers) =>
          !Object.keys(headers).some((name) => name.toLowerCase() === "x-firecrawl-signature") ||
          "The following headers are not allowed: X-Firecrawl-Signature",
      ),
    ),
  ),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  events: Schema.optional(Schema.Array(Schema.Literal(...MONITOR_EVENTS))),
}).annotations({ identifier: "MonitorWebhook" })
export type MonitorWebhook = typeof MonitorWebhook.Type

const Email = Schema.String.pipe(
  Schema.maxLength(254),
  Schema.filter(
    (address) => /^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/.test(address) || `Invalid email address: ${address}`,
  ),
)

export const MonitorNotification = Schema.Struct({
  email: Schema.optional(
    Schema.Struct({
      enabled: Schema.optional(Schema.Boolean),
      recipients: Schema.optional(Schema.Array(Email).pipe(Schema.maxItems(25))),
      includeDiffs: Schema.optional(Schema.Boolean),
    }),
  ),
}).annotations({ identifier: "MonitorNotification" })
export type MonitorNotification = typeof MonitorNotification.Type

const TargetId = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(64),
  Schema.pattern(/^[A-Za-z0-9_-]+$/, { message: () => "A target id may hold letters, digits, - and _ only" }),
)

export const ScrapeTarget = Schema.Struct({
  id: Schema.optional(TargetId),
  type: Schema.Literal("scrape"),
  urls: Schema.Array(TargetUrl).pipe(Schema.minItems(1), Schema.maxItems(1000)),
  scrapeOptions: Schema.optional(ScrapeOptions),
})

export const MonitorCrawlOptions = Schema.Struct({
  ...crawlerOptionFields,
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), {
    default: () => DEFAULT_MONITOR_CRAWL_LIMIT,
  }),
})
export type MonitorCrawlOptions = typeof MonitorCrawlOptions.Type

export const CrawlTarget = Schema.Struct({
  id: Schema.optional(TargetId),
  type: Schema.Literal("crawl"),
  url: TargetUrl,
  crawlOptions: Schema.optional(MonitorCrawlOptions),
  scrapeOptions: Schema.optional(ScrapeOptions),
})

export const SEARCH_WINDOWS = ["5m", "15m", "1h", "6h", "24h", "7d"] as const

const Domains = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253))).pipe(Schema.maxItems(50))

export const SearchTarget = Schema.Struct({
  id: Schema.optional(TargetId),
  type: Schema.Literal("search"),
  queries: Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256))).pipe(
    Schema.minItems(1),
    Schema.maxItems(12),
  ),
  searchWindow: Schema.optional(Schema.Literal(...SEARCH_WINDOWS)),
  maxResults: Schema.optional(Schema.Int.pipe(Schema.between(1, 50))),
  includeDomains: Schema.optional(Domains),
  excludeDomains: Schema.optional(Domains),
})

export const MonitorTarget = Schema.Union(ScrapeTarget, CrawlTarget, SearchTarget).annotations({
  identifier: "MonitorTarget",
})
export type MonitorTarget = typeof MonitorTarget.Type
export type MonitorTargetInput = typeof MonitorTarget.Encoded

/** Without a model, changes are judged by these: meaningful when an added or removed line matches one. */
export const JudgeRules = Schema.Struct({
  keywords: Schema.optional(
    Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))).pipe(Schema.maxItems(100)),
  ),
  patterns: Schema.optional(
    Schema.Array(Schema.String).pipe(
      Schema.filter((patterns) => {
        const compiled = compilePatterns(patterns)
        return (
          Array.isArray(compiled) || `Invalid judge pattern ${JSON.stringify(compiled.invalid)}: ${compiled.message}`
        )
      }),
    ),
  ),
}).annotations({ identifier: "MonitorJudgeRules" })
export type JudgeRules = typeof JudgeRules.Type

const Targets = Schema.Array(MonitorTarget).pipe(Schema.minItems(1), Schema.maxItems(50))
const Goal = Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))

const monitorFields = {
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)),
  schedule: MonitorScheduleInput,
  webhook: Schema.optional(MonitorWebhook),
  notification: Schema.optional(MonitorNotification),
  targets: Targets,
  retentionDays: Schema.optional(Schema.Int.pipe(Schema.between(1, 365))),
  goal: Schema.optional(Goal),
  judgeEnabled: Schema.optional(Schema.Boolean),
  judgeRules: Schema.optional(JudgeRules),
  // Clients tag every body (the SDK sends `origin`).
  origin: Schema.optional(Schema.String),
  integration: Schema.optional(Integration),
}

export const MonitorCreateRequest = Schema.Struct(monitorFields).annotations({ identifier: "MonitorCreateRequest" })
export type MonitorCreateRequest = typeof MonitorCreateRequest.Type

export const MonitorUpdateRequest = Schema.Struct({
  name: Schema.optional(monitorFields.name),
  schedule: Schema.optional(MonitorScheduleInput),
  webhook: Schema.optional(Schema.NullOr(MonitorWebhook)),
  notification: Schema.optional(Schema.NullOr(MonitorNotification)),
  targets: Schema.optional(Targets),
  retentionDays: Schema.optional(Schema.Int.pipe(Schema.between(1, 365))),
  goal: Schema.optional(Goal),
  judgeEnabled: Schema.optional(Schema.Boolean),
  judgeRules: Schema.optional(Schema.NullOr(JudgeRules)),
  status: Schema.optional(Schema.Literal("active", "paused")),
  origin: Schema.optional(Schema.String),
  integration: Schema.optional(Integration),
}).pipe(
  Schema.filter(
    ({ origin: _, integration: __, ...update }) =>
      Object.keys(update).length > 0 || "Include at least one field to update",
  ),
  Schema.annotations({ identifier: "MonitorUpdateRequest" }),
)
export type MonitorUpdateRequest = typeof MonitorUpdateRequest.Type
