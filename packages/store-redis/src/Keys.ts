/**
 * The key layout: every key of a store is its prefix followed by one of these names. The Lua scripts get the same
 * table (`luaKeys`), so the layout is written once. Only a single Redis (or a primary with replicas) is supported:
 * the scripts compute keys as they go, which Redis Cluster does not allow.
 */

/** Name → suffix after the prefix; a name ending in `:` is followed by an id. */
export const layout = {
  /** `job:<id>`, a hash of the job's fields; `job:<id>:<part>` for each of `JobPart`. */
  job: "job:",
  /** `task:<id>`, a hash of the task's fields. */
  task: "task:",
  /** `delivery:<id>`, a hash of a webhook delivery waiting in its job's outbox. */
  delivery: "delivery:",
  /** Every job by `createdAt` (ties by id): `listJobs`. */
  jobsCreated: "jobs:created",
  /** Every job by `expiresAt`: what `purgeExpired` deletes. */
  jobsExpiry: "jobs:expiry",
  /** The `scraping` jobs by lease turn (0: never served): the jobs `leaseTasks` looks at, in order. */
  scraping: "jobs:scraping",
  /** The counter the lease turns come from. */
  turn: "jobs:turn",
  /** The jobs that have deliveries waiting, by when their oldest one may next be leased. */
  outbox: "outbox",
  /** Politeness gates by the instant they open. */
  gates: "gates",
  /** `scrape:<id>`, a hash of a stored scrape; `scrapes` orders them by `expiresAt`. */
  scrape: "scrape:",
  scrapes: "scrapes",
  /** `cache:<key>`, a hash of a cached page; `cacheTimes` orders them by `cachedAt`. */
  cache: "cache:",
  cacheTimes: "cache-times",
  /** The browser profiles, one hash field per owner and name. */
  profiles: "profiles",
  /** Search index: page id by owner and URL, the id counter, `index:page:<id>` hashes. */
  indexIds: "index:ids",
  indexNext: "index:next",
  indexPage: "index:page:",
  /** `index:term:<word>`: the pages holding the word, scored by its packed field frequencies (`SearchTerms`). */
  indexTerm: "index:term:",
  /** Every indexed word (scores all 0, so ordered by the word): prefix expansion. */
  indexTerms: "index:terms",
  /** The pages by `scrapedAt`, all of them and per owner (`index:owner:<owner or "">`). */
  indexTime: "index:time",
  indexOwner: "index:owner:",
  /** The summed length of each field over every page, for BM25's average lengths. */
  indexStats: "index:stats",
  /**
   * Records (`putRecord`): `record:<ref>`, a hash of the record's fields, where its ref is `<kind's byte length>:<kind>:
   * <id>` (one string for the pair, whatever the kind holds). Sorted sets list them by `createdAt`: those of a kind
   * (`records:kind:<kind>`, members ids), of a kind and owner (`records:owner:<ref of kind and owner>`,
   * `records:keyless:<kind>` for a null owner, members ids) and a parent's children of every kind
   * (`records:children:<parent>`, members refs); `records:due:<kind>` orders a kind's by `dueAt`, `records:expiry`
   * every record with an `expiresAt` by it (members refs).
   */
  record: "record:",
  recordsKind: "records:kind:",
  recordsOwner: "records:owner:",
  recordsKeyless: "records:keyless:",
  recordsChildren: "records:children:",
  recordsDue: "records:due:",
  recordsExpiry: "records:expiry",
  /** `counter:<name>`, an integer (`addToCounter`); `counters` orders the names by `expiresAt`, for the purge. */
  counter: "counter:",
  counters: "counters",
  /** The pub/sub channel of the `news`. */
  news: "news",
} as const

export type KeyName = keyof typeof layout

/** The keys a job owns besides its hash, as `job:<id>:<part>`. */
export const jobParts = [
  /** Open tasks (pending or leased) by due time: `notBefore` while pending, the lease's end while leased. */
  "open",
  /** Leased tasks by the lease's end: live leases for `maxConcurrency`, holders for `leaseHolders`. */
  "leases",
  /** Every dedup key the job admitted. */
  "keys",
  /** Every task id, in admission order: what `purgeExpired` deletes. */
  "tasks",
  /** Documents by seq. */
  "docs",
  "errors",
  /** Robots-blocked URLs: a set for dedup, a list for first-seen order. */
  "robots",
  "robots-order",
  /** The ids of the job's waiting webhook deliveries, oldest first. */
  "outbox",
] as const

export type JobPart = (typeof jobParts)[number]

/** The keys of the store with prefix `prefix`. */
export const keys = (prefix: string) => ({
  named: (name: KeyName): string => prefix + layout[name],
  job: (id: string): string => `${prefix}${layout.job}${id}`,
  jobPart: (id: string, part: JobPart): string => `${prefix}${layout.job}${id}:${part}`,
  scrape: (id: string): string => `${prefix}${layout.scrape}${id}`,
  cache: (key: string): string => `${prefix}${layout.cache}${key}`,
  counter: (name: string): string => `${prefix}${layout.counter}${name}`,
})

/** Lua: `K.<name>` is the full key (or key stem) of each name, for the prefix in `ARGV[1]`; `JOB_PARTS` lists parts. */
export const luaKeys = [
  "local P = ARGV[1]",
  `local K = {${Object.entries(layout)
    .map(([name, suffix]) => `${name} = P .. ${JSON.stringify(suffix)}`)
    .join(", ")}}`,
  `local JOB_PARTS = {${jobParts.map((part) => JSON.stringify(part)).join(", ")}}`,
  "local function part(jobId, name) return K.job .. jobId .. ':' .. name end",
].join("\n")
