/**
 * Dates and durations as pages write them. ISO 8601 strings are kept as written; human dates ("March 5, 2025",
 * "5th March 2025", "05.03.2025", "3/5/2025") become `YYYY-MM-DD`, with the time of day when one follows
 * ("…, 7:30 PM"). Durations ("PT1H30M", "1 hr 30 mins") become minutes or ISO 8601.
 */

/** Months by their first three letters. */
const MONTHS = new Map<string, number>(
  "jan feb mar apr may jun jul aug sep oct nov dec".split(" ").map((short, index) => [short, index + 1] as const),
)
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i
const MONTH_FIRST = new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "i")
const DAY_FIRST = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+(\\d{4})\\b`, "i")
const YEAR_FIRST = /\b(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})\b/
const DOTTED = /\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/
const SLASHED = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/
const TIME_OF_DAY =
  /^[\s,]*(?:at|@|from|-|–|·)?\s*(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\.?(?![a-z])|^[\s,]*(?:at|@|from|-|–|·)?\s*(\d{1,2}):(\d{2})\b/i

export interface FoundDate {
  /** `YYYY-MM-DD`. */
  readonly date: string
  /** `HH:MM`, when the text gives a time of day. */
  readonly time: string | undefined
  /** The text was an ISO 8601 date or date-time already. */
  readonly iso: boolean
}

const pad = (value: number): string => String(value).padStart(2, "0")

const dateOf = (year: number, month: number, day: number): string | undefined => {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? `${year}-${pad(month)}-${pad(day)}`
    : undefined
}

const timeAfter = (rest: string): string | undefined => {
  const match = TIME_OF_DAY.exec(rest.slice(0, 40))
  if (match === null) return undefined
  if (match[1] !== undefined) {
    const hour = Number(match[1]) % 12
    const minute = Number(match[2] ?? "0")
    return hour <= 11 && minute < 60
      ? `${pad(match[3]!.toLowerCase() === "p" ? hour + 12 : hour)}:${pad(minute)}`
      : undefined
  }
  const hour = Number(match[4])
  const minute = Number(match[5])
  return hour < 24 && minute < 60 ? `${pad(hour)}:${pad(minute)}` : undefined
}

/** The first date a text gives, or undefined. */
export const findDate = (text: string): FoundDate | undefined => {
  const trimmed = text.trim().slice(0, 200)
  const iso = ISO.exec(trimmed)
  if (iso !== null) {
    const date = dateOf(Number(iso[1]), Number(iso[2]), Number(iso[3]))
    return date === undefined
      ? undefined
      : { date, time: iso[4] === undefined ? undefined : `${iso[4]}:${iso[5]}`, iso: true }
  }
  const attempts: Array<readonly [RegExp, (match: RegExpExecArray) => string | undefined]> = [
    [MONTH_FIRST, (m) => dateOf(Number(m[3]), MONTHS.get(m[1]!.slice(0, 3).toLowerCase())!, Number(m[2]))],
    [DAY_FIRST, (m) => dateOf(Number(m[3]), MONTHS.get(m[2]!.slice(0, 3).toLowerCase())!, Number(m[1]))],
    [YEAR_FIRST, (m) => dateOf(Number(m[1]), Number(m[2]), Number(m[3]))],
    [DOTTED, (m) => dateOf(Number(m[3]), Number(m[2]), Number(m[1]))],
    // Slashes are month first (US) unless the first number cannot be a month.
    [
      SLASHED,
      (m) =>
        Number(m[1]) > 12
          ? dateOf(Number(m[3]), Number(m[2]), Number(m[1]))
          : dateOf(Number(m[3]), Number(m[1]), Number(m[2])),
    ],
  ]
  for (const [pattern, read] of attempts) {
    const match = pattern.exec(trimmed)
    const date = match === null ? undefined : read(match)
    if (match !== null && date !== undefined)
      return { date, time: timeAfter(trimmed.slice(match.index + match[0].length)), iso: false }
  }
  return undefined
}

const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i
const HUMAN_PART = /(\d+(?:[.,]\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b/gi
const SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 }
/** Words that may stand around the parts of a written duration. */
const FILLER = /\b(?:and|about|approx(?:imately)?|around|total|plus)\b|[\s,.~+()]/gi

/** A duration in seconds: ISO 8601, or written with units and nothing else ("1 hr 30 mins"). */
export const durationSeconds = (text: string): number | undefined => {
  const trimmed = text.trim()
  if (trimmed.length > 60) return undefined
  const iso = ISO_DURATION.exec(trimmed)
  if (iso !== null && trimmed.length > 1 && trimmed.toUpperCase() !== "PT") {
    const [years, months, weeks, days, hours, minutes, seconds] = iso.slice(1).map((part) => Number(part ?? "0"))
    return (
      years! * 31_536_000 +
      months! * 2_592_000 +
      weeks! * 604_800 +
      days! * 86_400 +
      hours! * 3_600 +
      minutes! * 60 +
      seconds!
    )
  }
  let total = 0
  let parts = 0
  const rest = trimmed.replace(HUMAN_PART, (_all, amount: string, unit: string) => {
    total += Number(amount.replace(",", ".")) * SECONDS[unit[0]!.toLowerCase()]!
    parts++
    return " "
  })
  return parts > 0 && rest.replace(FILLER, "") === "" ? total : undefined
}

/** Seconds as an ISO 8601 duration: 5400 → "PT1H30M". */
export const isoDuration = (seconds: number): string => {
  const days = Math.floor(seconds / 86_400)
  const hours = Math.floor((seconds % 86_400) / 3_600)
  const minutes = Math.floor((seconds % 3_600) / 60)
  const rest = Math.round(seconds % 60)
  const time = `${hours > 0 ? `${hours}H` : ""}${minutes > 0 ? `${minutes}M` : ""}${rest > 0 ? `${rest}S` : ""}`
  return `P${days > 0 ? `${days}D` : ""}${time === "" ? (days > 0 ? "" : "T0S") : `T${time}`}`
}
