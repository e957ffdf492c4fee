/**
 * Crawl options from a `prompt` read by the language model, with a sample of the site's URLs (from map) so that it
 * writes path patterns that match the site as it is. What it answers is checked field by field like a request's
 * options (patterns must compile with the crawl's regex engine, numbers in range); a field that fails is dropped and
 * said so. The deterministic reader (`PromptOptions.ts`) serves when there is no model or the model fails.
 */
import { Effect, Either, Schema } from "effect"
import { crawlerOptionFields } from "../Domain/CrawlRequest.js"
import type { LlmError } from "../Errors.js"
import type { JsonSchema, LlmShape } from "../Llm/Llm.js"
import type { PromptOptions } from "./PromptOptions.js"

/** URLs of the site shown to the model. */
const SAMPLE_URLS = 150

const SYSTEM =
  "You turn a request about which pages of a website to crawl into crawler options. Give only the options the request implies; leave out everything else."

const OPTIONS_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    includePaths: {
      type: "array",
      items: { type: "string" },
      description: "Regular expressions; only URL paths matching one are crawled (e.g. ^/blog/.*)",
    },
    excludePaths: {
      type: "array",
      items: { type: "string" },
      description: "Regular expressions; URL paths matching one are skipped",
    },
    limit: { type: "integer", minimum: 1, description: "Pages to crawl at most" },
    maxDiscoveryDepth: { type: "integer", minimum: 0, description: "Link hops from the start page" },
    allowSubdomains: { type: "boolean" },
    allowExternalLinks: { type: "boolean" },
    crawlEntireDomain: { type: "boolean", description: "Also follow links outside the start URL's path" },
    ignoreQueryParameters: { type: "boolean" },
    sitemap: { type: "string", enum: ["include", "skip", "only"] },
  },
}

const KEYS = Object.keys(OPTIONS_SCHEMA.properties as object) as ReadonlyArray<keyof typeof crawlerOptionFields>

/** One field's value checked with the request's own schema for it. */
const checkField = (key: keyof typeof crawlerOptionFields, value: unknown): Either.Either<unknown, string> => {
  const field = crawlerOptionFields[key] as unknown as Schema.Schema.AnyNoContext
  return Schema.decodeUnknownEither(Schema.Struct({ [key]: field }))({ [key]: value }).pipe(
    Either.map((decoded) => (decoded as Record<string, unknown>)[key]),
    Either.mapLeft((error) => error.message.split("\n").slice(-1)[0] ?? error.message),
  )
}

export const modelOptionsFromPrompt = (
  model: LlmShape,
  prompt: string,
  url: string,
  siteUrls: ReadonlyArray<string>,
): Effect.Effect<PromptOptions, LlmError> =>
  Effect.map(
    model.generateObject({
      system: SYSTEM,
      prompt: [
        `Start URL: ${url}`,
        siteUrls.length > 0
          ? `Some URLs of the site:\n${siteUrls.slice(0, SAMPLE_URLS).join("\n")}`
          : "No URLs of the site are known.",
        `Request: ${prompt}`,
      ].join("\n\n"),
      schema: OPTIONS_SCHEMA,
      objectName: "crawler_options",
    }),
    ({ value }) => {
      const answer = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>
      const options: Record<string, unknown> = {}
      const understood: Array<string> = []
      for (const key of KEYS) {
        if (answer[key] === undefined || answer[key] === null) continue
        const checked = checkField(key, answer[key])
        if (Either.isRight(checked)) {
          options[key] = checked.right
          understood.push(`model → ${key}: ${JSON.stringify(checked.right)}`)
        } else understood.push(`model gave ${key} ${JSON.stringify(answer[key])}, dropped: ${checked.left}`)
      }
      return { options, understood } as PromptOptions
    },
  )
