/** Playwright's failures as scrape errors, by what Chromium's network error says. */
import { ScrapeError } from "@webdata/core/engine"

const REASONS: ReadonlyArray<readonly [RegExp, ScrapeError["reason"]]> = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/, "DnsResolution"],
  [
    /ERR_CONNECTION_(REFUSED|RESET|CLOSED|FAILED)|ERR_EMPTY_RESPONSE|ERR_ADDRESS_UNREACHABLE|ERR_TUNNEL_CONNECTION_FAILED/,
    "Connection",
  ],
  [/ERR_CERT_|ERR_SSL_|certificate|SSL routines|TLS/i, "Tls"],
  [/ERR_TOO_MANY_REDIRECTS/, "TooManyRedirects"],
]

/** A Playwright failure as a scrape error. */
export const scrapeErrorOf = (error: unknown, url: string): ScrapeError => {
  if (error instanceof ScrapeError) return error
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error)
  if (error instanceof Error && error.name === "TimeoutError")
    return new ScrapeError({ reason: "Timeout", url, message: `The browser timed out loading ${url}: ${message}` })
  if (/Download is starting/.test(message))
    return new ScrapeError({
      reason: "UnsupportedContent",
      url,
      message: `${url} is a file download (Content-Disposition: attachment), not a page the browser shows.`,
    })
  if (/crash/i.test(message))
    return new ScrapeError({
      reason: "EngineFailed",
      url,
      message: `The page ${url} crashed the browser's renderer (it ran out of memory, or Chromium failed): ${message}`,
    })
  const reason = REASONS.find(([pattern]) => pattern.test(message))?.[1] ?? "EngineFailed"
  return new ScrapeError({ reason, url, message: `The browser could not load ${url}: ${message}` })
}
