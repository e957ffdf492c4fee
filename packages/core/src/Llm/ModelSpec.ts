/**
 * What a model string (`provider:model`, as in `WEBDATA_LLM`) names, and the defaults that follow from it: how the
 * model is asked for structured output and how large its context is. Pure and small: the configuration reads it
 * before deciding to load any provider's client.
 */
import { Either } from "effect"

export const PROVIDERS = ["openai", "anthropic", "ollama", "openai-chat"] as const
export type Provider = (typeof PROVIDERS)[number]

/**
 * How a model is asked for a JSON value: `json-schema` (the provider's native structured output: OpenAI's
 * `text.format` / Chat Completions' `response_format`), `tool` (a forced tool call whose input is the value) or
 * `prompt` (the schema in the instructions, the answer read leniently).
 */
export const STRUCTURED_MODES = ["json-schema", "tool", "prompt"] as const
export type StructuredMode = (typeof STRUCTURED_MODES)[number]

export interface ModelSpec {
  readonly provider: Provider
  /** The provider's model name (`gpt-4.1-mini`, `claude-sonnet-4-5`, `llama3.1`, `meta-llama/Llama-3.1-8B`). */
  readonly model: string
  /** `provider:model` as configured. */
  readonly id: string
}

export const MODEL_FORMAT_HELP =
  `expected <provider>:<model> with provider one of ${PROVIDERS.join(", ")} ` +
  "(e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:llama3.1, openai-chat:<model>)"

const isProvider = (value: string): value is Provider => (PROVIDERS as ReadonlyArray<string>).includes(value)

/** The model a string names, or a one-line message saying what is accepted. */
export const parseModel = (value: string): Either.Either<ModelSpec, string> => {
  const text = value.trim()
  const colon = text.indexOf(":")
  const provider = colon === -1 ? "" : text.slice(0, colon).trim().toLowerCase()
  const model = colon === -1 ? "" : text.slice(colon + 1).trim()
  if (colon === -1 || model === "")
    return Either.left(`Model ${JSON.stringify(value)} is not <provider>:<model>; ${MODEL_FORMAT_HELP}`)
  if (!isProvider(provider))
    return Either.left(
      `Unknown model provider ${JSON.stringify(provider)} in ${JSON.stringify(value)}; ${MODEL_FORMAT_HELP}`,
    )
  return Either.right({ provider, model, id: `${provider}:${model}` })
}

export const parseStructuredMode = (value: string): Either.Either<StructuredMode, string> => {
  const mode = value.trim().toLowerCase()
  return (STRUCTURED_MODES as ReadonlyArray<string>).includes(mode)
    ? Either.right(mode as StructuredMode)
    : Either.left(`Structured output mode ${JSON.stringify(value)} is not one of ${STRUCTURED_MODES.join(", ")}`)
}

/**
 * OpenAI models and the OpenAI-compatible servers get native JSON Schema output; Anthropic a forced tool call (its
 * Messages API has no response format; `json-schema` means the same for it).
 */
export const defaultStructuredMode = (provider: Provider): StructuredMode =>
  provider === "anthropic" ? "tool" : "json-schema"

/** Known families by name, for any provider (OpenRouter's `anthropic/claude-…` included). */
const contextTable: ReadonlyArray<readonly [RegExp, number]> = [
  [/claude/, 200_000],
  // gpt-4.1 takes a million tokens; 128k keeps one request's cost in bounds unless the operator raises it.
  [/gpt-4\.1|gpt-4o|gpt-4-turbo|gpt-5|chatgpt|(^|\/)o[134](-|$)/, 128_000],
  [/gpt-4(-\d|$)/, 8_192],
  [/gpt-3\.5/, 16_385],
  [/gemini/, 128_000],
]

/**
 * The context the engine plans for (input and answer) when `WEBDATA_LLM_CONTEXT_TOKENS` does not say: Ollama's is
 * small unless its server was started with a larger `OLLAMA_CONTEXT_LENGTH`, and an unknown model behind an
 * OpenAI-compatible server gets a modest one.
 */
export const defaultContextTokens = (spec: ModelSpec): number => {
  if (spec.provider === "ollama") return 8_192
  const name = spec.model.toLowerCase()
  for (const [pattern, tokens] of contextTable) if (pattern.test(name)) return tokens
  switch (spec.provider) {
    case "openai":
      return 128_000
    case "anthropic":
      return 200_000
    case "openai-chat":
      return 16_384
  }
}

/** The most output tokens an Anthropic model takes in `max_tokens` (the Messages API requires the field). */
export const anthropicMaxOutputTokens = (model: string): number =>
  /claude-3-(haiku|opus|sonnet)/.test(model) ? 4_096 : /claude-3-5/.test(model) ? 8_192 : 16_384
