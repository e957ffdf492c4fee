/** `Retry-After` (RFC 9110): seconds or an HTTP date, as milliseconds from `now`; absent or unreadable gives undefined. */
export const retryAfterMs = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined || value.trim() === "") return undefined
  const seconds = Number(value.trim())
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
