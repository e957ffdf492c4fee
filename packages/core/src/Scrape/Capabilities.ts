/**
 * What this build can do. Options that need an engine or a feature it lacks are refused up front with a 400 and a
 * code, instead of being ignored (Firecrawl's self-hosters' top complaint is silent no-ops).
 */

import { Effect, Option } from "effect"
import type { FormatType } from "../Domain/Formats.js"
import type { ScrapeOptions } from "../Domain/ScrapeOptions.js"
import { BrowserEngine } from "../Engines/Browser.js"
import { RequestError } from "../Errors.js"
import { Llm } from "../Llm/Llm.js"

/**
 * Formats the plain-HTTP pipeline produces. `summary` and `json` use the language model when there is one, else the
 * offline extractors (a `json` format without a schema needs the model).
 */
export const SUPPORTED_FORMATS: ReadonlySet<FormatType> = new Set([
  "markdown",
  "html",
  "rawHtml",
  "links",
  "images",
  "summary",
  "json",
  "changeTracking",
])

const unsupported = (code: string, message: string) => new RequestError({ reason: "Unsupported", code, message })

/** The engines an engine has besides plain HTTP. */
export interface Engines {
  readonly browser: boolean
  /** A language model is configured. */
  readonly llm: boolean
}

/** The engines in the context (services built after the optional browser engine and model read it here). */
export const availableEngines: Effect.Effect<Engines> = Effect.zipWith(
  Effect.serviceOption(BrowserEngine),
  Effect.serviceOption(Llm),
  (browser, llm) => ({ browser: Option.isSome(browser), llm: Option.isSome(llm) }),
)

/** How to configure a model, for every answer that needs one. */
export const LLM_HOW_TO =
  "Set WEBDATA_LLM (for example openai:gpt-4.1-mini with OPENAI_API_KEY, anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY, or ollama:llama3.1 for a local Ollama), or pass `llm` to the engine."

/** The 400 of a request that needs a language model where none is configured. */
export const llmNotConfigured = (what: string): RequestError =>
  new RequestError({
    reason: "Unsupported",
    code: "LLM_NOT_CONFIGURED",
    message: `${what} needs a language model, and none is configured. ${LLM_HOW_TO}`,
  })

const WITHOUT_BROWSER = "this engine does not have (it comes with the @webdata/browser package and Chromium)."

/** Formats only the browser engine produces. */
const BROWSER_FORMATS: ReadonlySet<FormatType> = new Set(["screenshot"])

/** Options only a browser can honour, and that make a scrape use it when there is one. */
export const browserOptionOf = (
  options: Pick<ScrapeOptions, "waitFor" | "formats" | "actions" | "mobile" | "location" | "profile">,
): string | undefined =>
  options.formats.find((format) => BROWSER_FORMATS.has(format.type))?.type ??
  (options.actions !== undefined && options.actions.length > 0
    ? "actions"
    : options.waitFor > 0
      ? "waitFor"
      : options.mobile
        ? "mobile"
        : options.location !== undefined
          ? "location"
          : options.profile !== undefined
            ? "profile"
            : undefined)

/** The first option of the request this engine cannot honour, as a 400 error; undefined when all can be honoured. */
export const unsupportedOption = (options: ScrapeOptions, engines: Engines): RequestError | undefined => {
  const format = options.formats.find(
    (f) => !SUPPORTED_FORMATS.has(f.type) && !(engines.browser && BROWSER_FORMATS.has(f.type)),
  )
  if (format !== undefined)
    return unsupported(
      "SCRAPE_UNSUPPORTED_FORMAT",
      BROWSER_FORMATS.has(format.type)
        ? `The ${format.type} format needs the browser engine, which ${WITHOUT_BROWSER}`
        : `The ${format.type} format is not supported yet. Supported formats: ${[
            ...SUPPORTED_FORMATS,
            ...(engines.browser ? BROWSER_FORMATS : []),
          ].join(", ")}.`,
    )
  if (!engines.browser && options.actions !== undefined && options.actions.length > 0)
    return unsupported(
      "SCRAPE_ACTIONS_NOT_SUPPORTED",
      `Actions need the browser engine, which ${WITHOUT_BROWSER} Remove \`actions\` to scrape over plain HTTP.`,
    )
  const needsBrowser = browserOptionOf(options)
  if (needsBrowser !== undefined && !engines.browser)
    return unsupported(
      "SCRAPE_BROWSER_REQUIRED",
      `The \`${needsBrowser}\` option needs the browser engine, which ${WITHOUT_BROWSER}`,
    )
  if (options.proxy === "stealth" || options.proxy === "enhanced")
    return unsupported(
      "SCRAPE_PROXY_NOT_AVAILABLE",
      `The ${options.proxy} proxy is not available; use proxy "basic" or "auto".`,
    )
  if (!engines.llm) {
    const json = options.formats.find((f) => f.type === "json")
    if (json !== undefined && json.type === "json" && json.schema === undefined)
      return llmNotConfigured(
        "The json format without a `schema` (only a prompt) — with a schema, the offline extractor fills it from the page's structured data —",
      )
    if (options.onlyCleanContent) return llmNotConfigured("`onlyCleanContent`")
    const tracking = options.formats.find((f) => f.type === "changeTracking")
    if (
      tracking?.type === "changeTracking" &&
      (tracking.modes ?? []).includes("json") &&
      tracking.schema === undefined &&
      !options.formats.some((f) => f.type === "json" && f.schema !== undefined)
    )
      return llmNotConfigured("changeTracking's json mode without a `schema`")
  }
  if (options.redactPII !== undefined && options.redactPII !== false)
    return unsupported("SCRAPE_REDACT_PII_NOT_SUPPORTED", "`redactPII` is not supported yet.")
  return undefined
}
