/**
 * What a page sees of the visitor: a phone for `mobile`, and for `location` the locale (its first `languages` entry,
 * else the country's), time zone and `Accept-Language` of the country: the page's scripts read `navigator.language`
 * and `Intl`, the server the header.
 */
import type { RenderRequest } from "@webdata/core/engine"
import type { BrowserContextOptions } from "playwright-core"

/** A current iPhone in Safari. */
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  userAgent:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
}

/** A country's main locale and time zone (its capital's); countries not listed get English and UTC. */
const COUNTRIES: Record<string, readonly [locale: string, timezone: string]> = {
  us: ["en-US", "America/New_York"],
  gb: ["en-GB", "Europe/London"],
  ie: ["en-IE", "Europe/Dublin"],
  ca: ["en-CA", "America/Toronto"],
  au: ["en-AU", "Australia/Sydney"],
  nz: ["en-NZ", "Pacific/Auckland"],
  za: ["en-ZA", "Africa/Johannesburg"],
  in: ["en-IN", "Asia/Kolkata"],
  sg: ["en-SG", "Asia/Singapore"],
  de: ["de-DE", "Europe/Berlin"],
  at: ["de-AT", "Europe/Vienna"],
  ch: ["de-CH", "Europe/Zurich"],
  fr: ["fr-FR", "Europe/Paris"],
  be: ["nl-BE", "Europe/Brussels"],
  nl: ["nl-NL", "Europe/Amsterdam"],
  es: ["es-ES", "Europe/Madrid"],
  mx: ["es-MX", "America/Mexico_City"],
  ar: ["es-AR", "America/Argentina/Buenos_Aires"],
  it: ["it-IT", "Europe/Rome"],
  pt: ["pt-PT", "Europe/Lisbon"],
  br: ["pt-BR", "America/Sao_Paulo"],
  se: ["sv-SE", "Europe/Stockholm"],
  no: ["nb-NO", "Europe/Oslo"],
  dk: ["da-DK", "Europe/Copenhagen"],
  fi: ["fi-FI", "Europe/Helsinki"],
  pl: ["pl-PL", "Europe/Warsaw"],
  cz: ["cs-CZ", "Europe/Prague"],
  hu: ["hu-HU", "Europe/Budapest"],
  ro: ["ro-RO", "Europe/Bucharest"],
  gr: ["el-GR", "Europe/Athens"],
  tr: ["tr-TR", "Europe/Istanbul"],
  ua: ["uk-UA", "Europe/Kyiv"],
  ru: ["ru-RU", "Europe/Moscow"],
  il: ["he-IL", "Asia/Jerusalem"],
  sa: ["ar-SA", "Asia/Riyadh"],
  ae: ["ar-AE", "Asia/Dubai"],
  jp: ["ja-JP", "Asia/Tokyo"],
  kr: ["ko-KR", "Asia/Seoul"],
  cn: ["zh-CN", "Asia/Shanghai"],
  tw: ["zh-TW", "Asia/Taipei"],
  id: ["id-ID", "Asia/Jakarta"],
  th: ["th-TH", "Asia/Bangkok"],
  vn: ["vi-VN", "Asia/Ho_Chi_Minh"],
}

/** The context options that emulate the request's device and location (Chromium sends the locale as Accept-Language). */
export const emulationOf = (request: Pick<RenderRequest, "mobile" | "location">): BrowserContextOptions => {
  const device = request.mobile ? PHONE : {}
  const location = request.location
  if (location === undefined) return device
  // Firecrawl's US aliases ("us-generic", "us-whitelist") are the US.
  const country = (location.country ?? "us").toLowerCase().slice(0, 2)
  const [locale, timezoneId] = COUNTRIES[country] ?? ["en-US", "UTC"]
  const languages = location.languages !== undefined && location.languages.length > 0 ? location.languages : [locale]
  return { ...device, locale: languages[0]!, timezoneId }
}
