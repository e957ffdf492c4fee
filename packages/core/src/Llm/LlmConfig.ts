/**
 * The language model the engine uses, from settings or the environment (`WEBDATA_LLM=openai:gpt-4.1-mini`, see
 * docs/llm.md). Without one the engine runs with no `Llm` in its context (`Effect.serviceOption(Llm)` is `None`) and
 * the LLM formats fall back or answer `LLM_NOT_CONFIGURED`. A model string or setting that cannot work stops the
 * engine at start with one line saying what is accepted. The port's implementation and the provider's client are
 * loaded only when a model is configured.
 */
import { Config, Effect, Either, Layer, Option } from "effect"
import type { Llm } from "./Llm.js"
import {
  defaultContextTokens,
  defaultStructuredMode,
  type ModelSpec,
  parseModel,
  parseStructuredMode,
  type StructuredMode,
} from "./ModelSpec.js"

export interface LlmSettings {
  /** `provider:model`: `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`, `ollama:llama3.1`, `openai-chat:<model>`. */
  readonly model: string
  /** The provider's key (`Authorization: Bearer` for OpenAI and compatible servers, `x-api-key` for Anthropic). */
  readonly apiKey?: string | undefined
  /** The API's base URL; each provider has a default (see `defaultBaseUrl`). */
  readonly baseUrl?: string | undefined
  /** How values are asked for; default per provider (`defaultStructuredMode`). */
  readonly structured?: StructuredMode | undefined
  /** The model's context in tokens (input and answer); default by model name (`defaultContextTokens`). */
  readonly contextTokens?: number | undefined
  /** Time allowed to one call to the provider. Default 120 s. */
  readonly timeoutMs?: number | undefined
}

export interface ResolvedLlmSettings {
  readonly spec: ModelSpec
  readonly apiKey: string | undefined
  readonly baseUrl: string
  readonly structured: StructuredMode
  readonly contextTokens: number
  readonly timeoutMs: number
}

export const DEFAULT_TIMEOUT_MS = 120_000
export const MIN_CONTEXT_TOKENS = 2_048

const OPENAI_URL = "https://api.openai.com/v1"
const ANTHROPIC_URL = "https://api.anthropic.com"
const OLLAMA_URL = "http://127.0.0.1:11434/v1"

export const defaultBaseUrl = (spec: ModelSpec): string =>
  spec.provider === "anthropic" ? ANTHROPIC_URL : spec.provider === "ollama" ? OLLAMA_URL : OPENAI_URL

/** The environment variables of each provider's key and base URL. */
const providerEnv = {
  openai: { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  "openai-chat": { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  anthropic: { apiKey: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  ollama: { apiKey: undefined, baseUrl: "OLLAMA_BASE_URL" },
} as const

/**
 * One spelling of each base URL: no trailing slash; Ollama's address as its own tools write it
 * (`http://localhost:11434`) gains the `/v1` of its OpenAI API; Anthropic's loses the `/v1` its client adds itself.
 */
const normalizeBaseUrl = (spec: ModelSpec, url: string): Either.Either<string, string> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Either.left(`The base URL of ${spec.id} is not a URL: ${JSON.stringify(url)}`)
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return Either.left(`The base URL of ${spec.id} must be http or https: ${JSON.stringify(url)}`)
  const trimmed = url.replace(/\/+$/, "")
  if (spec.provider === "anthropic") return Either.right(trimmed.replace(/\/v1$/, ""))
  return Either.right(
    spec.provider === "ollama" && (parsed.pathname === "/" || parsed.pathname === "") ? `${trimmed}/v1` : trimmed,
  )
}

/** Settings checked and completed with the defaults, or a one-line message saying what is wrong. */
export const resolveSettings = (settings: LlmSettings): Either.Either<ResolvedLlmSettings, string> =>
  Either.gen(function* () {
    const spec = yield* parseModel(settings.model)
    const apiKey = settings.apiKey?.trim() || undefined
    const baseUrl = yield* normalizeBaseUrl(spec, settings.baseUrl?.trim() || defaultBaseUrl(spec))
    const keyVariable = providerEnv[spec.provider].apiKey
    if (
      apiKey === undefined &&
      keyVariable !== undefined &&
      baseUrl === defaultBaseUrl(spec) &&
      spec.provider !== "openai-chat"
    )
      return yield* Either.left(`${spec.id} needs an API key: set ${keyVariable}`)
    const contextTokens = settings.contextTokens ?? defaultContextTokens(spec)
    if (!Number.isInteger(contextTokens) || contextTokens < MIN_CONTEXT_TOKENS)
      return yield* Either.left(
        `The context of ${spec.id} (WEBDATA_LLM_CONTEXT_TOKENS) must be a whole number of tokens, at least ${MIN_CONTEXT_TOKENS}`,
      )
    const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      return yield* Either.left(`The timeout of ${spec.id} (WEBDATA_LLM_TIMEOUT_MS) must be more than 0 ms`)
    return {
      spec,
      apiKey,
      baseUrl,
      structured: settings.structured ?? defaultStructuredMode(spec.provider),
      contextTokens,
      timeoutMs,
    }
  })

/** The port for checked settings; loads the implementation and the provider's client as it is built. */
export const layerResolved = (settings: ResolvedLlmSettings): Layer.Layer<Llm> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const module = yield* Effect.promise(() => import("./LlmService.js"))
      yield* Effect.logInfo(
        `Language model ${settings.spec.id} at ${settings.baseUrl} (structured output: ${settings.structured}, ` +
          `context ${settings.contextTokens} tokens, timeout ${settings.timeoutMs} ms)`,
      )
      return module.layer(settings)
    }),
  )

/** The port for `settings`; a setting that cannot work fails the layer with a one-line `Error`. */
export const layer = (settings: LlmSettings): Layer.Layer<Llm, Error> =>
  Either.match(resolveSettings(settings), {
    onLeft: (message) => Layer.fail(new Error(message)),
    onRight: layerResolved,
  })

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map((value) =>
      Option.filter(
        Option.map(value, (each) => each.trim()),
        (each) => each !== "",
      ),
    ),
  )

const positiveInteger = (name: string, text: string): Either.Either<number, string> => {
  const value = Number(text)
  return Number.isInteger(value) && value > 0
    ? Either.right(value)
    : Either.left(`${name} must be a whole number more than 0 (got ${JSON.stringify(text)})`)
}

/**
 * The model from the environment: `WEBDATA_LLM` (unset or empty: no model), the provider's key and base URL
 * (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`, `OLLAMA_BASE_URL`),
 * `WEBDATA_LLM_STRUCTURED`, `WEBDATA_LLM_CONTEXT_TOKENS` and `WEBDATA_LLM_TIMEOUT_MS`. A host provides the layer when
 * there is one: `Option.match(yield* layerConfig, …)`.
 */
export const layerConfig: Effect.Effect<Option.Option<Layer.Layer<Llm>>, Error> = Effect.gen(function* () {
  const model = yield* optionalString("WEBDATA_LLM")
  if (Option.isNone(model)) return Option.none()
  const spec = parseModel(model.value)
  if (Either.isLeft(spec)) return yield* Effect.fail(new Error(`WEBDATA_LLM: ${spec.left}`))
  const names = providerEnv[spec.right.provider]
  const apiKey = names.apiKey === undefined ? Option.none() : yield* optionalString(names.apiKey)
  const baseUrl = yield* optionalString(names.baseUrl)
  const structured = yield* optionalString("WEBDATA_LLM_STRUCTURED")
  const contextTokens = yield* optionalString("WEBDATA_LLM_CONTEXT_TOKENS")
  const timeoutMs = yield* optionalString("WEBDATA_LLM_TIMEOUT_MS")
  const settings = Either.gen(function* () {
    return {
      model: model.value,
      apiKey: Option.getOrUndefined(apiKey),
      baseUrl: Option.getOrUndefined(baseUrl),
      structured: Option.isSome(structured)
        ? yield* Either.mapLeft(
            parseStructuredMode(structured.value),
            (message) => `WEBDATA_LLM_STRUCTURED: ${message}`,
          )
        : undefined,
      contextTokens: Option.isSome(contextTokens)
        ? yield* positiveInteger("WEBDATA_LLM_CONTEXT_TOKENS", contextTokens.value)
        : undefined,
      timeoutMs: Option.isSome(timeoutMs)
        ? yield* positiveInteger("WEBDATA_LLM_TIMEOUT_MS", timeoutMs.value)
        : undefined,
    } satisfies LlmSettings
  }).pipe(Either.flatMap(resolveSettings))
  if (Either.isLeft(settings)) return yield* Effect.fail(new Error(settings.left))
  return Option.some(layerResolved(settings.right))
}).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(String(error)))))
