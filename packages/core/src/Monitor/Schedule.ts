/**
 * A monitor's schedule: Firecrawl's `{ cron?, text?, timezone? }` checked and turned into a five-field cron expression
 * in an IANA time zone (what a monitor's answer shows), and the next run of one.
 */
import { Cron, CronPattern } from "croner"

export interface ScheduleInput {
  readonly cron?: string | undefined
  readonly text?: string | undefined
  readonly timezone?: string | undefined
}

export interface Schedule {
  readonly cron: string
  readonly timezone: string
}

export type ScheduleResult =
  | { readonly ok: true; readonly schedule: Schedule }
  | { readonly ok: false; readonly message: string }

type Parsed = { readonly ok: true; readonly cron: string } | { readonly ok: false; readonly message: string }

const refuse = (message: string): { readonly ok: false; readonly message: string } => ({ ok: false, message })

/** Five fields and the portable syntax only: croner's extensions (`L`, `W`, `#`, `?`, `+`) mean nothing elsewhere. */
const PORTABLE = /^(?:[\d*,/-]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat)+$/i

const cronOptions = (timezone: string) => ({ mode: "5-part", timezone }) as const

const checkCron = (cron: string): Parsed => {
  const fields = cron.trim().split(/\s+/)
  if (fields.length !== 5)
    return refuse(
      `Invalid cron expression "${cron}": give five fields (minute hour day-of-month month day-of-week)` +
        (cron.trim().startsWith("@") ? `, or use \`text\` ("hourly", "daily", "weekly", "monthly")` : "") +
        ".",
    )
  if (!fields.every((field) => PORTABLE.test(field)))
    return refuse(
      `Invalid cron expression "${cron}": use numbers, *, ranges (1-5), lists (1,3), steps (*/15) and month or day names only.`,
    )
  const normalized = fields.join(" ")
  try {
    new Cron(normalized, cronOptions("UTC"))
  } catch (error) {
    return refuse(`Invalid cron expression "${cron}": ${error instanceof Error ? error.message : String(error)}.`)
  }
  return { ok: true, cron: normalized }
}

// --- Text forms ---------------------------------------------------------------------------------------------------

const ACCEPTED_FORMS = [
  '"every N minutes" (N dividing 60: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)',
  '"every 15 minutes starting at :07"',
  '"hourly" or "every hour" (optionally "at :15")',
  '"every N hours" (N dividing 24), optionally "starting at 1:30"',
  '"daily" or "every day" (at 00:00), "daily at 9", "daily at 9:00", "daily at 9am", "daily at 5:30 PM", "daily at 17:30"',
  '"weekdays at 9am"',
  '"weekly" (Mondays at 00:00), "weekly on friday at 9am", "every friday at 9am"',
  '"monthly" (the 1st at 00:00), "monthly on the 15th at 9am"',
].join("; ")

const unknownText = (text: string) =>
  refuse(`Unrecognized schedule text "${text}". Accepted forms: ${ACCEPTED_FORMS}; or give a five-field \`cron\`.`)

interface Time {
  readonly hour: number
  readonly minute: number
}

const TIME = String.raw`(noon|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)`
const DAY =
  "(sun(?:days?)?|mon(?:days?)?|tue(?:s|sdays?)?|wed(?:nesdays?)?|thu(?:rs?|rsdays?)?|fri(?:days?)?|sat(?:urdays?)?)"
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

/** `9`, `09:00`, `9am`, `5:30 pm`, `17:30`, `noon`, `midnight`; undefined when out of range. */
const parseTime = (value: string): Time | undefined => {
  if (value === "noon") return { hour: 12, minute: 0 }
  if (value === "midnight") return { hour: 0, minute: 0 }
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?$/.exec(value)
  if (match === null) return undefined
  const hour = Number(match[1])
  const minute = match[2] === undefined ? 0 : Number(match[2])
  if (minute > 59) return undefined
  const meridiem = match[3]?.[0]
  if (meridiem === undefined) return hour <= 23 ? { hour, minute } : undefined
  if (hour < 1 || hour > 12) return undefined
  return { hour: (hour % 12) + (meridiem === "p" ? 12 : 0), minute }
}

/** `start`, `start + step`, ... below `end`: `*` or `*\/step` when that is what they are, else the list. */
const stepped = (start: number, step: number, end: number): string => {
  if (step === 1) return "*"
  const values: Array<number> = []
  for (let value = start; value < end; value += step) values.push(value)
  return start === 0 && values.length > 1 ? `*/${step}` : values.join(",")
}

const divides = (n: number, total: number) => n >= 1 && n <= total && total % n === 0

/** `every N minutes [starting at :MM]`: cron's `*\/N` restarts every hour, so N must divide 60 to stay even. */
const everyMinutes = (n: number, offset: number | undefined, text: string): Parsed => {
  if (n > 0 && n % 60 === 0)
    return everyHours(n / 60, offset === undefined ? undefined : { hour: 0, minute: offset }, text)
  if (!divides(n, 60))
    return refuse(
      `Unsupported schedule text "${text}": every N minutes needs N dividing 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30) or a whole number of hours dividing 24; use \`cron\` for other schedules.`,
    )
  if (offset !== undefined && offset > 59) return unknownText(text)
  return { ok: true, cron: `${stepped((offset ?? 0) % n, n, 60)} * * * *` }
}

/** `every N hours [starting at HH:MM | :MM]`: N must divide 24 so that every day runs alike. */
const everyHours = (n: number, start: Time | undefined, text: string): Parsed => {
  if (!divides(n, 24))
    return refuse(
      `Unsupported schedule text "${text}": every N hours needs N dividing 24 (1, 2, 3, 4, 6, 8, 12, 24); use \`cron\` for other schedules.`,
    )
  const { hour, minute } = start ?? { hour: 0, minute: 0 }
  return { ok: true, cron: `${minute} ${stepped(hour % n, n, 24)} * * *` }
}

/** Each form: a pattern over the normalized text and what it becomes. */
const FORMS: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray, text: string) => Parsed]> = [
  [
    /^every (?:(\d+) )?(?:minutes?|mins?)(?: starting at :(\d{1,2}))?$/,
    (m, text) => everyMinutes(Number(m[1] ?? 1), m[2] === undefined ? undefined : Number(m[2]), text),
  ],
  [
    new RegExp(
      String.raw`^(?:hourly|every hour|every (\d+) (?:hours?|hrs?))(?: (?:starting )?at (?::(\d{1,2})|${TIME}))?$`,
    ),
    (m, text) => {
      const start =
        m[2] !== undefined ? { hour: 0, minute: Number(m[2]) } : m[3] !== undefined ? parseTime(m[3]) : undefined
      if ((m[3] !== undefined && start === undefined) || (start !== undefined && start.minute > 59))
        return unknownText(text)
      return everyHours(Number(m[1] ?? 1), start, text)
    },
  ],
  [new RegExp(`^(?:daily|every day)(?: at ${TIME})?$`), (m) => timed(m[1], "* * *")],
  [new RegExp(`^(?:on )?(?:weekdays|every weekday)(?: at ${TIME})?$`), (m) => timed(m[1], "* * 1-5")],
  [
    new RegExp(`^(?:(?:weekly|every week)(?: on ${DAY})?|every ${DAY})(?: at ${TIME})?$`),
    (m) => {
      const named = m[1] ?? m[2]
      return timed(m[3], `* * ${named === undefined ? 1 : WEEKDAYS.findIndex((day) => named.startsWith(day))}`)
    },
  ],
  [
    new RegExp(String.raw`^(?:monthly|every month)(?: on the (\d{1,2})(?:st|nd|rd|th)?)?(?: at ${TIME})?$`),
    (m, text) => {
      const day = Number(m[1] ?? 1)
      return day < 1 || day > 31 ? unknownText(text) : timed(m[2], `${day} * *`)
    },
  ],
]

/** `days` (the last three fields) at `time`, midnight when there is none. */
const timed = (time: string | undefined, days: string): Parsed => {
  if (time === undefined) return { ok: true, cron: `0 0 ${days}` }
  const parsed = parseTime(time)
  return parsed === undefined
    ? refuse(`Invalid time "${time}" in the schedule text.`)
    : { ok: true, cron: `${parsed.minute} ${parsed.hour} ${days}` }
}

const fromText = (text: string): Parsed => {
  const normalized = text.trim().toLowerCase().replace(/\s+/g, " ")
  for (const [pattern, translate] of FORMS) {
    const match = pattern.exec(normalized)
    if (match !== null) return translate(match, normalized)
  }
  return unknownText(text)
}

// --- Time zone and interval ---------------------------------------------------------------------------------------

/**
 * An IANA zone as given, in its canonical case when that is only a matter of case: ICU's canonical names are the old
 * ones (`Asia/Kolkata` resolves to `Asia/Calcutta`), which the caller would not recognize.
 */
const checkTimezone = (timezone: string): string | undefined => {
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: timezone }).resolvedOptions().timeZone
    return resolved.toLowerCase() === timezone.toLowerCase() ? resolved : timezone
  } catch {
    return undefined
  }
}

const indexes = (flags: ReadonlyArray<number>): Array<number> =>
  flags.flatMap((flag, index) => (flag !== 0 ? [index] : []))

/** Matching days are enumerated from here, over this many years (a leap-day pattern still shows two of them). */
const DAYS_FROM = Date.UTC(2000, 0, 1)
const DAYS_YEARS = 8
const DAY_MINUTES = 24 * 60

/** The fewest days between two matching days of the cron's day fields, within the horizon; undefined if below two. */
const closestDays = (fields: ReadonlyArray<string>): number | undefined => {
  const days = new Cron(`0 0 ${fields.slice(2).join(" ")}`, cronOptions("UTC"))
  const end = Date.UTC(2000 + DAYS_YEARS, 0, 1)
  let closest: number | undefined
  let previous: Date | null = days.nextRun(new Date(DAYS_FROM - 1))
  while (previous !== null && closest !== 1) {
    const next: Date | null = days.nextRun(previous)
    if (next === null || next.getTime() >= end) break
    const apart = Math.round((next.getTime() - previous.getTime()) / 86_400_000)
    closest = closest === undefined ? apart : Math.min(closest, apart)
    previous = next
  }
  return closest
}

/**
 * The fewest minutes between two consecutive runs, on the wall clock: within a day from the hour and minute fields,
 * and across midnight from the closest two matching days. A clock change can shorten one gap a year, which does not
 * matter for load.
 */
const smallestGap = (cron: string, atMost: number): number | undefined => {
  const pattern = new CronPattern(cron, undefined, { mode: "5-part" })
  const minutes = indexes(pattern.minute)
  const times = indexes(pattern.hour).flatMap((hour) => minutes.map((minute) => hour * 60 + minute))
  let gap: number | undefined
  for (let i = 1; i < times.length; i++) gap = Math.min(gap ?? Number.POSITIVE_INFINITY, times[i]! - times[i - 1]!)
  const overnight = DAY_MINUTES - times[times.length - 1]! + times[0]!
  // Only a schedule whose first and last runs of a day are close to midnight needs its days looked at.
  if (overnight >= atMost || (gap !== undefined && overnight >= gap)) return gap
  const days = closestDays(cron.split(" "))
  if (days === undefined) return gap
  const across = (days - 1) * DAY_MINUTES + overnight
  return gap === undefined ? across : Math.min(gap, across)
}

const minutesText = (minutes: number) => (minutes === 1 ? "1 minute" : `${minutes} minutes`)

/**
 * Checks a monitor's schedule: exactly one of `cron` (five fields) and `text` (the forms of `ACCEPTED_FORMS`), in
 * `timezone` (an IANA zone, default UTC), with no two runs closer than `minIntervalMs`.
 */
export const parseSchedule = (input: ScheduleInput, minIntervalMs: number): ScheduleResult => {
  if (input.cron !== undefined && input.text !== undefined) return refuse("Provide either `cron` or `text`, not both.")
  const timezone = checkTimezone((input.timezone ?? "UTC").trim())
  if (timezone === undefined)
    return refuse(`Invalid timezone "${input.timezone}": use an IANA zone like "Europe/Paris".`)
  const parsed =
    input.cron !== undefined
      ? checkCron(input.cron)
      : input.text !== undefined
        ? fromText(input.text)
        : refuse("Provide either `cron` or `text`.")
  if (!parsed.ok) return parsed
  const schedule = { cron: parsed.cron, timezone }
  if (nextRun(schedule, DAYS_FROM) === undefined)
    return refuse(`The schedule "${parsed.cron}" never runs (no such date).`)
  const minimum = Math.ceil(minIntervalMs / 60_000)
  const gap = smallestGap(parsed.cron, minimum)
  if (gap !== undefined && gap < minimum)
    return refuse(
      `The schedule "${parsed.cron}" runs every ${minutesText(gap)}; the minimum interval is ${minutesText(minimum)}.`,
    )
  return { ok: true, schedule }
}

/** The schedule's first run strictly after `after` (epoch ms), undefined if it never runs again. */
export const nextRun = (schedule: Schedule, after: number): number | undefined =>
  new Cron(schedule.cron, cronOptions(schedule.timezone)).nextRun(new Date(after))?.getTime()
