/**
 * What a key may do: requests per window for each endpoint class, jobs running at once, credits a month. Written the
 * same way in `WEBDATA_RATE_LIMITS` (the defaults of every key) and in a keys file (one key's own):
 * `scrape=60/min,crawl=10/min,jobs=5,credits=100000`; a keys file may also use an object of the same fields.
 */
import { Either } from "effect"

/** The endpoint classes a rate applies to (see `EndpointClass.ts` for which route is which). */
export const ENDPOINT_CLASSES = [
  "scrape",
  "crawl",
  "batch",
  "map",
  "search",
  "extract",
  "agent",
  "parse",
  "interact",
  "monitor",
  "status",
] as const
export type EndpointClass = (typeof ENDPOINT_CLASSES)[number]

const UNITS = { s: 1_000, sec: 1_000, min: 60_000, h: 3_600_000, hour: 3_600_000, day: 86_400_000 } as const
export type RateUnit = keyof typeof UNITS

export interface Rate {
  readonly count: number
  readonly windowMs: number
  /** As written (`min`, `hour`, ...), for the 429 message. */
  readonly unit: RateUnit
}

export interface Limits {
  readonly rates: Partial<Record<EndpointClass, Rate>>
  /** Crawls, batches, extracts and agent runs of the key in progress at once. */
  readonly jobs?: number | undefined
  /** Credits a calendar month (UTC); past them, work-starting requests answer 402. */
  readonly credits?: number | undefined
  /** Tasks waiting in the whole queue past which new jobs are refused (429); only global (`WEBDATA_RATE_LIMITS`). */
  readonly queue?: number | undefined
}

export const NO_LIMITS: Limits = { rates: {} }

const isClass = (name: string): name is EndpointClass => (ENDPOINT_CLASSES as ReadonlyArray<string>).includes(name)
const isUnit = (name: string): name is RateUnit => Object.hasOwn(UNITS, name)

const positiveInteger = (field: string, text: string): Either.Either<number, string> => {
  const value = Number(text)
  return /^\d+$/.test(text.trim()) && Number.isSafeInteger(value) && value > 0
    ? Either.right(value)
    : Either.left(`${field}: "${text}" is not a positive integer`)
}

const parseRate = (field: string, text: string): Either.Either<Rate, string> => {
  const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/.exec(text)
  if (match === null || !isUnit(match[2] as string))
    return Either.left(`${field}: "${text}" is not a rate such as 60/min (units: ${Object.keys(UNITS).join(", ")})`)
  const unit = match[2] as RateUnit
  return Either.map(positiveInteger(field, match[1] as string), (count) => ({ count, windowMs: UNITS[unit], unit }))
}

/** One `name=value` (or object field) into `limits`; an error names the field and what is wrong. */
const addField = (limits: Limits, name: string, value: string): Either.Either<Limits, string> => {
  if (name === "jobs" || name === "credits" || name === "queue")
    return Either.map(positiveInteger(name, value), (n) => ({ ...limits, [name]: n }))
  if (isClass(name))
    return Either.map(parseRate(name, value), (rate) => ({ ...limits, rates: { ...limits.rates, [name]: rate } }))
  return Either.left(`unknown limit "${name}" (known: ${[...ENDPOINT_CLASSES, "jobs", "credits", "queue"].join(", ")})`)
}

const fold = (entries: ReadonlyArray<readonly [string, string]>): Either.Either<Limits, string> => {
  let limits: Limits = NO_LIMITS
  for (const [name, value] of entries) {
    const next = addField(limits, name.trim(), value.trim())
    if (Either.isLeft(next)) return next
    limits = next.right
  }
  return Either.right(limits)
}

/** `scrape=60/min,crawl=10/min,jobs=5`; empty text means no limits. */
export const parseLimits = (text: string): Either.Either<Limits, string> =>
  fold(
    text
      .split(",")
      .filter((part) => part.trim() !== "")
      .map((part) => {
        const at = part.indexOf("=")
        return at < 0 ? ([part, ""] as const) : ([part.slice(0, at), part.slice(at + 1)] as const)
      }),
  )

/** A keys file's `limits`: the same text, or an object `{ scrape: "60/min", jobs: 5 }`. */
export const limitsOf = (value: unknown): Either.Either<Limits, string> => {
  if (value === undefined || value === null) return Either.right(NO_LIMITS)
  if (typeof value === "string") return parseLimits(value)
  if (typeof value !== "object" || Array.isArray(value))
    return Either.left("limits must be a string such as scrape=60/min,jobs=5 or an object")
  return fold(Object.entries(value).map(([name, field]) => [name, String(field)] as const))
}

/** A key's own limits over the defaults, field by field. */
export const overlay = (defaults: Limits, own: Limits): Limits => ({
  rates: { ...defaults.rates, ...own.rates },
  jobs: own.jobs ?? defaults.jobs,
  credits: own.credits ?? defaults.credits,
  queue: defaults.queue,
})

/** Back to the text form (for the admin API's answers). */
export const formatLimits = (limits: Limits): string =>
  [
    ...Object.entries(limits.rates).map(([name, rate]) => `${name}=${rate.count}/${rate.unit}`),
    ...(["jobs", "credits", "queue"] as const).flatMap((name) =>
      limits[name] === undefined ? [] : [`${name}=${limits[name]}`],
    ),
  ].join(",")
