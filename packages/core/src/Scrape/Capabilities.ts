/**
 * What this build can do. Options that need an engine or a feature it lacks are refused up front with a 400 and a
 * code, instead of being ignored (Firecrawl's self-hosters' top complaint is silent no-ops).
 */

import type { FormatType } from "../Domain/Formats.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { RequestError } from "../Errors.js"

/** Formats the plain-HTTP pipeline produces. */
export const SUPPORTED_FORMATS: ReadonlySet<FormatType> = new Set(["markdown", "html", "rawHtml", "links", "images"])

const unsupported = (code: string, message: string) => new RequestError({ reason: "Unsupported", code, message })

/** The first option of the request this build cannot honour, as a 400 error; undefined when all can be honoured. */
export const unsupportedOption = (options: ScrapeOptions): RequestError | undefined => {
  const format = options.formats.find((f) => !SUPPORTED_FORMATS.has(f.type))
  if (format !== undefined)
    return unsupported(
      "SCRAPE_UNSUPPORTED_FORMAT",
      `The ${format.type} format is not supported yet. Supported formats: ${[...SUPPORTED_FORMATS].join(", ")}.`,
    )
  if (options.actions !== undefined && options.actions.length > 0)
    return unsupported(
      "SCRAPE_ACTIONS_NOT_SUPPORTED",
      "Actions are not supported yet: they need the browser engine, which is not available in this build. Remove `actions` to scrape over plain HTTP.",
    )
  const browserOption =
    options.waitFor > 0
      ? "waitFor"
      : options.mobile
        ? "mobile"
        : options.location !== undefined
          ? "location"
          : options.profile !== undefined
            ? "profile"
            : undefined
  if (browserOption !== undefined)
    return unsupported(
      "SCRAPE_BROWSER_REQUIRED",
      `The \`${browserOption}\` option needs the browser engine, which is not available in this build.`,
    )
  if (options.proxy === "stealth" || options.proxy === "enhanced")
    return unsupported(
      "SCRAPE_PROXY_NOT_AVAILABLE",
      `The ${options.proxy} proxy is not available; use proxy "basic" or "auto".`,
    )
  if (options.onlyCleanContent)
    return unsupported(
      "SCRAPE_LLM_REQUIRED",
      "`onlyCleanContent` needs a language model, which is not available in this build.",
    )
  if (options.redactPII !== undefined && options.redactPII !== false)
    return unsupported("SCRAPE_REDACT_PII_NOT_SUPPORTED", "`redactPII` is not supported yet.")
  return undefined
}
