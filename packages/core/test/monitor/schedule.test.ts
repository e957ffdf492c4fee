/** Monitor schedules: cron and text forms checked and turned into cron, and their next runs across clock changes. */
import { describe, expect, it } from "@effect/vitest"
import { nextRun, parseSchedule, type Schedule, type ScheduleInput } from "../../src/Monitor/Schedule.js"

const FIVE_MINUTES = 5 * 60_000

const accepted = (input: ScheduleInput): Schedule => {
  const result = parseSchedule(input, FIVE_MINUTES)
  if (!result.ok) throw new Error(`refused: ${result.message}`)
  return result.schedule
}

const refused = (input: ScheduleInput, minIntervalMs = FIVE_MINUTES): string => {
  const result = parseSchedule(input, minIntervalMs)
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.schedule)}`)
  return result.message
}

/** `YYYY-MM-DD HH:mm` on the wall clock of `timezone`. */
const local = (ms: number | undefined, timezone: string): string => {
  if (ms === undefined) return "never"
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

/** The first `count` runs after `from`. */
const runs = (schedule: Schedule, from: string, count: number): Array<number> => {
  const out: Array<number> = []
  let after = Date.parse(from)
  for (let i = 0; i < count; i++) {
    const next = nextRun(schedule, after)
    if (next === undefined) break
    out.push(next)
    after = next
  }
  return out
}

describe("text forms", () => {
  it("turns Firecrawl's documented examples into cron", () => {
    const cases: Record<string, string> = {
      "every 30 minutes": "*/30 * * * *",
      "every 15 minutes starting at :07": "7,22,37,52 * * * *",
      hourly: "0 * * * *",
      "every 2 hours": "0 */2 * * *",
      daily: "0 0 * * *",
      "daily at 9:00": "0 9 * * *",
      "daily at 9am": "0 9 * * *",
      "daily at 5:30 PM": "30 17 * * *",
      weekly: "0 0 * * 1",
    }
    for (const [text, cron] of Object.entries(cases)) expect(accepted({ text }).cron, text).toBe(cron)
  })

  it("reads variants: spelling, case, spaces, 12- and 24-hour times, days and months", () => {
    const cases: Record<string, string> = {
      "  Every 5 Minutes ": "*/5 * * * *",
      "every 10 mins": "*/10 * * * *",
      "every 20 minutes starting at :45": "5,25,45 * * * *",
      "every 60 minutes": "0 * * * *",
      "every 120 minutes": "0 */2 * * *",
      "every hour": "0 * * * *",
      "every hour at :15": "15 * * * *",
      "every 1 hour": "0 * * * *",
      "every 6 hours": "0 */6 * * *",
      "every 3 hours starting at :20": "20 */3 * * *",
      "every 12 hours starting at 8:30": "30 8,20 * * *",
      "every 24 hours": "0 0 * * *",
      "every day": "0 0 * * *",
      "every day at 9": "0 9 * * *",
      "DAILY AT 17:30": "30 17 * * *",
      "daily at 09:05": "5 9 * * *",
      "daily at 12am": "0 0 * * *",
      "daily at 12pm": "0 12 * * *",
      "daily at 5:30 p.m.": "30 17 * * *",
      "daily at noon": "0 12 * * *",
      "weekdays at 9am": "0 9 * * 1-5",
      "every weekday": "0 0 * * 1-5",
      "every week": "0 0 * * 1",
      "weekly on friday at 9am": "0 9 * * 5",
      "weekly on sun": "0 0 * * 0",
      "every friday at 9am": "0 9 * * 5",
      "every tuesday at 17:00": "0 17 * * 2",
      "every thursdays": "0 0 * * 4",
      monthly: "0 0 1 * *",
      "every month": "0 0 1 * *",
      "monthly on the 15th at 9am": "0 9 15 * *",
      "monthly on the 1st": "0 0 1 * *",
    }
    for (const [text, cron] of Object.entries(cases)) expect(accepted({ text }).cron, text).toBe(cron)
  })

  it("refuses intervals cron cannot keep even, saying which are accepted", () => {
    expect(refused({ text: "every 7 minutes" })).toContain("N dividing 60")
    expect(refused({ text: "every 90 minutes" })).toContain("N dividing 60")
    expect(refused({ text: "every 5 hours" })).toContain("N dividing 24")
    expect(refused({ text: "every 0 minutes" })).toContain("N dividing 60")
  })

  it("refuses times that do not exist", () => {
    expect(refused({ text: "daily at 25:00" })).toContain('Invalid time "25:00"')
    expect(refused({ text: "daily at 9:60" })).toContain("Invalid time")
    expect(refused({ text: "daily at 13pm" })).toContain("Invalid time")
    expect(refused({ text: "every 15 minutes starting at :75" })).toContain("Unrecognized schedule text")
  })

  it("answers unknown text with the accepted forms", () => {
    for (const text of ["every 5 days", "sometimes", "monthly on the 32nd", "every funday", ""]) {
      const message = refused({ text })
      expect(message, text).toContain("Unrecognized schedule text")
      expect(message).toContain('"every N minutes"')
      expect(message).toContain('"weekly on friday at 9am"')
      expect(message).toContain("`cron`")
    }
  })
})

describe("cron", () => {
  it("accepts five fields, with names, and normalizes the spaces", () => {
    expect(accepted({ cron: "*/5 * * * *" })).toEqual({ cron: "*/5 * * * *", timezone: "UTC" })
    expect(accepted({ cron: " 0  9 * *   MON-FRI " }).cron).toBe("0 9 * * MON-FRI")
    expect(accepted({ cron: "0 0 1 jan,jul *" }).cron).toBe("0 0 1 jan,jul *")
  })

  it("refuses invalid expressions, six fields (seconds) and nicknames", () => {
    expect(refused({ cron: "61 * * * *" })).toContain('Invalid cron expression "61 * * * *"')
    expect(refused({ cron: "not a cron at all" })).toContain("Invalid cron expression")
    expect(refused({ cron: "0 0 0 * * *" })).toContain("five fields")
    expect(refused({ cron: "0 0 * *" })).toContain("five fields")
    expect(refused({ cron: "@daily" })).toContain("use `text`")
    expect(refused({ cron: "@hourly" })).toContain("five fields")
  })

  it("refuses syntax other crons do not read (croner's L, W, # and ?)", () => {
    for (const cron of ["0 0 L * *", "0 0 15W * *", "0 0 * * MON#2", "0 0 ? * *", "0 0 * * +MON"])
      expect(refused({ cron }), cron).toContain("use numbers, *, ranges")
  })

  it("refuses a schedule that never runs", () => {
    expect(refused({ cron: "0 0 30 2 *" })).toContain("never runs")
    expect(refused({ cron: "0 0 31 4,6,9,11 *" })).toContain("never runs")
  })

  it("accepts a leap day", () => {
    expect(accepted({ cron: "0 12 29 2 *" }).cron).toBe("0 12 29 2 *")
  })
})

describe("one of cron and text", () => {
  it("needs exactly one", () => {
    expect(refused({})).toBe("Provide either `cron` or `text`.")
    expect(refused({ cron: "0 * * * *", text: "hourly" })).toBe("Provide either `cron` or `text`, not both.")
  })
})

describe("time zone", () => {
  it("defaults to UTC and keeps IANA zones as the caller wrote them", () => {
    expect(accepted({ text: "daily" }).timezone).toBe("UTC")
    expect(accepted({ text: "daily", timezone: "Europe/Paris" }).timezone).toBe("Europe/Paris")
    // ICU's canonical name is Asia/Calcutta; the caller's is kept.
    expect(accepted({ text: "daily", timezone: "Asia/Kolkata" }).timezone).toBe("Asia/Kolkata")
    expect(accepted({ text: "daily", timezone: "america/new_york" }).timezone).toBe("America/New_York")
  })

  it("refuses what is not a zone", () => {
    for (const timezone of ["Mars/Olympus_Mons", "", "+01:00", "CET+1"])
      expect(refused({ text: "daily", timezone }), timezone).toContain("Invalid timezone")
  })
})

describe("minimum interval", () => {
  it("refuses runs closer than the minimum, saying by how much", () => {
    expect(refused({ cron: "*/2 * * * *" })).toBe(
      'The schedule "*/2 * * * *" runs every 2 minutes; the minimum interval is 5 minutes.',
    )
    // Once an hour only, but still a minute apart.
    expect(refused({ cron: "0,1 * * * *" })).toContain("runs every 1 minute;")
    expect(refused({ text: "every minute" })).toContain("runs every 1 minute;")
    expect(refused({ cron: "0,30 * * * *" }, 60 * 60_000)).toContain(
      "runs every 30 minutes; the minimum interval is 60 minutes",
    )
  })

  it("accepts the minimum itself", () => {
    expect(accepted({ cron: "*/5 * * * *" }).cron).toBe("*/5 * * * *")
    expect(accepted({ text: "every 5 minutes" }).cron).toBe("*/5 * * * *")
  })

  it("looks across midnight only between days that both run", () => {
    // 23:59 then 00:00 the next day.
    expect(refused({ cron: "0,59 0,23 * * *" })).toContain("runs every 1 minute;")
    expect(refused({ cron: "0,59 0,23 * * 1,2" })).toContain("runs every 1 minute;")
    // Monday 23:58, then the next Monday.
    expect(accepted({ cron: "0,58 0,23 * * 1" }).cron).toBe("0,58 0,23 * * 1")
    // The last of the month and the first of the next.
    expect(refused({ cron: "0,59 0,23 1,31 * *" })).toContain("runs every 1 minute;")
  })
})

describe("next run", () => {
  it("is strictly after the given time", () => {
    const daily = { cron: "0 9 * * *", timezone: "UTC" }
    expect(nextRun(daily, Date.parse("2025-01-01T08:59:59.999Z"))).toBe(Date.parse("2025-01-01T09:00:00Z"))
    expect(nextRun(daily, Date.parse("2025-01-01T09:00:00Z"))).toBe(Date.parse("2025-01-02T09:00:00Z"))
    expect(nextRun(daily, Date.parse("2025-01-01T09:00:00.500Z"))).toBe(Date.parse("2025-01-02T09:00:00Z"))
  })

  it("is undefined for a date that never comes", () => {
    expect(nextRun({ cron: "0 0 30 2 *", timezone: "UTC" }, Date.parse("2025-01-01T00:00:00Z"))).toBeUndefined()
  })

  it("keeps a daily 9am at 9:00 local across the spring and autumn clock changes (Paris)", () => {
    const schedule = accepted({ text: "daily at 9am", timezone: "Europe/Paris" })
    const spring = runs(schedule, "2025-03-28T12:00:00Z", 3)
    expect(spring.map((ms) => local(ms, "Europe/Paris"))).toEqual([
      "2025-03-29 09:00",
      "2025-03-30 09:00",
      "2025-03-31 09:00",
    ])
    // 08:00Z in winter time (UTC+1), 07:00Z in summer time (UTC+2).
    expect(spring.map((ms) => new Date(ms).toISOString())).toEqual([
      "2025-03-29T08:00:00.000Z",
      "2025-03-30T07:00:00.000Z",
      "2025-03-31T07:00:00.000Z",
    ])
    const autumn = runs(schedule, "2025-10-25T00:00:00Z", 2)
    expect(autumn.map((ms) => new Date(ms).toISOString())).toEqual([
      "2025-10-25T07:00:00.000Z",
      "2025-10-26T08:00:00.000Z",
    ])
  })

  it("keeps a daily 9am at 9:00 local across the clock changes (New York)", () => {
    const schedule = accepted({ text: "daily at 9:00", timezone: "America/New_York" })
    expect(runs(schedule, "2025-03-08T00:00:00Z", 2).map((ms) => new Date(ms).toISOString())).toEqual([
      "2025-03-08T14:00:00.000Z",
      "2025-03-09T13:00:00.000Z",
    ])
    expect(runs(schedule, "2025-11-01T00:00:00Z", 2).map((ms) => new Date(ms).toISOString())).toEqual([
      "2025-11-01T13:00:00.000Z",
      "2025-11-02T14:00:00.000Z",
    ])
    for (const ms of runs(schedule, "2025-03-01T00:00:00Z", 300))
      expect(local(ms, "America/New_York")).toMatch(/ 09:00$/)
  })

  it("runs a time the spring change skips once, when the clock jumps, and a time the autumn change repeats once", () => {
    const schedule = { cron: "30 2 * * *", timezone: "Europe/Paris" }
    // 02:30 does not exist on 30 March: the run is at 03:00 summer time.
    expect(local(nextRun(schedule, Date.parse("2025-03-29T12:00:00Z")), "Europe/Paris")).toBe("2025-03-30 03:00")
    // 02:30 happens twice on 26 October: one run, at the first.
    expect(runs(schedule, "2025-10-25T12:00:00Z", 2).map((ms) => new Date(ms).toISOString())).toEqual([
      "2025-10-26T00:30:00.000Z",
      "2025-10-27T01:30:00.000Z",
    ])
  })

  it("runs hourly schedules every real hour across the clock changes", () => {
    const schedule = accepted({ text: "hourly", timezone: "Europe/Paris" })
    const spring = runs(schedule, "2025-03-29T23:30:00Z", 4)
    const autumn = runs(schedule, "2025-10-25T23:30:00Z", 4)
    for (const times of [spring, autumn])
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(60 * 60_000)
  })

  it("after a long downtime, is the next run in the future: missed runs are not replayed", () => {
    const schedule = accepted({ text: "daily at 9am", timezone: "Europe/Paris" })
    const lastRun = Date.parse("2025-06-01T07:00:00Z")
    const now = lastRun + 10 * 24 * 60 * 60_000 + 3 * 60 * 60_000
    const next = nextRun(schedule, now)!
    expect(next).toBeGreaterThan(now)
    expect(next - now).toBeLessThanOrEqual(24 * 60 * 60_000)
    expect(local(next, "Europe/Paris")).toBe("2025-06-12 09:00")
  })
})
