/**
 * Which search providers the engine uses, in order (a fallback chain): from `EngineOptions.search` or from
 * `WEBDATA_SEARCH` (`local`, the embedded default; `searxng`, `brave`, `duckduckgo`, `serper`), with each provider's
 * own settings (`SEARXNG_URL`, `BRAVE_API_KEY`, `SERPER_API_KEY`). A named provider without its settings stops
 * start-up with one line saying what is missing.
 */
import { Config, ConfigError, Effect, Layer, Option } from "effect"
import { LocalIndex } from "./LocalIndex.js"
import * as Brave from "./Providers/Brave.js"
import * as DuckDuckGo from "./Providers/DuckDuckGo.js"
import * as Searxng from "./Providers/Searxng.js"
import * as Serper from "./Providers/Serper.js"
import { chain } from "./SearchChain.js"
import { SearchProvider, type SearchProviderShape } from "./SearchProvider.js"

const PROVIDER_NAMES = ["local", "searxng", "brave", "duckduckgo", "serper"]

/** One provider of the chain: a name (no settings needed), a provider with its settings, or one of your own. */
export type SearchProviderSetting =
  | "local"
  | "duckduckgo"
  | { readonly provider: "searxng"; readonly url: string }
  | { readonly provider: "brave"; readonly apiKey: string; readonly baseUrl?: string }
  | { readonly provider: "serper"; readonly apiKey: string; readonly baseUrl?: string }
  | { readonly provider: "duckduckgo"; readonly baseUrl?: string; readonly minIntervalMs?: number }
  | SearchProviderShape

const isCustom = (setting: SearchProviderSetting): setting is SearchProviderShape =>
  typeof setting === "object" && "search" in setting

/** The providers of the settings; `local` is the engine's own index. Throws on a setting that cannot work. */
const providerOf = (setting: SearchProviderSetting, local: SearchProviderShape): SearchProviderShape => {
  if (isCustom(setting)) return setting
  if (setting === "local") return local
  if (setting === "duckduckgo") return DuckDuckGo.make({})
  switch (setting.provider) {
    case "searxng":
      return Searxng.make({ baseUrl: setting.url })
    case "brave":
      return Brave.make({
        apiKey: setting.apiKey,
        ...(setting.baseUrl !== undefined ? { baseUrl: setting.baseUrl } : {}),
      })
    case "serper":
      return Serper.make({
        apiKey: setting.apiKey,
        ...(setting.baseUrl !== undefined ? { baseUrl: setting.baseUrl } : {}),
      })
    case "duckduckgo":
      return DuckDuckGo.make(setting)
  }
}

/** Whether the chain of `settings` searches the local index (the default chain does). */
export const searchesLocal = (settings: ReadonlyArray<SearchProviderSetting> = ["local"]): boolean =>
  settings.length === 0 || settings.includes("local")

/** The chain of `settings` (default: the local index alone). */
export const layer = (
  settings: ReadonlyArray<SearchProviderSetting> = ["local"],
): Layer.Layer<SearchProvider, never, LocalIndex> =>
  Layer.effect(
    SearchProvider,
    Effect.map(LocalIndex, (index) =>
      chain(
        (settings.length > 0 ? settings : ["local" as const]).map((setting) => providerOf(setting, index.provider)),
      ),
    ),
  )

/** Reads one `WEBDATA_SEARCH` name with its settings from the environment, or says what is missing. */
const settingFromEnv = (name: string): Effect.Effect<SearchProviderSetting, ConfigError.ConfigError> => {
  const required = (variable: string) =>
    Config.nonEmptyString(variable).pipe(
      Effect.map((value) => value.trim()),
      Effect.mapError(() =>
        ConfigError.MissingData([variable], `WEBDATA_SEARCH names ${name}, which needs ${variable} to be set`),
      ),
    )
  const optional = (variable: string) => Config.option(Config.nonEmptyString(variable))
  const withBase = <A extends object>(base: A, url: Option.Option<string>) =>
    Option.isSome(url) ? { ...base, baseUrl: url.value } : base
  switch (name) {
    case "local":
      return Effect.succeed("local")
    case "searxng":
      return Effect.map(required("SEARXNG_URL"), (url) => ({ provider: "searxng" as const, url }))
    case "brave":
      return Effect.map(Effect.all([required("BRAVE_API_KEY"), optional("BRAVE_API_URL")]), ([apiKey, url]) =>
        withBase({ provider: "brave" as const, apiKey }, url),
      )
    case "serper":
      return Effect.map(Effect.all([required("SERPER_API_KEY"), optional("SERPER_API_URL")]), ([apiKey, url]) =>
        withBase({ provider: "serper" as const, apiKey }, url),
      )
    case "duckduckgo":
      return Effect.map(optional("DUCKDUCKGO_URL"), (url) => withBase({ provider: "duckduckgo" as const }, url))
    default:
      return Effect.fail(
        ConfigError.InvalidData(
          ["WEBDATA_SEARCH"],
          `WEBDATA_SEARCH: unknown provider "${name}"; use a comma list of ${PROVIDER_NAMES.join(", ")}`,
        ),
      )
  }
}

/** The settings `WEBDATA_SEARCH` gives (default `local`). */
export const settingsConfig: Effect.Effect<
  ReadonlyArray<SearchProviderSetting>,
  ConfigError.ConfigError
> = Effect.flatMap(Config.string("WEBDATA_SEARCH").pipe(Config.withDefault("local")), (value) => {
  const names = value
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "")
  return Effect.forEach(names.length > 0 ? names : ["local"], settingFromEnv)
})

/** The chain configured from the environment. */
export const layerConfig: Layer.Layer<SearchProvider, ConfigError.ConfigError, LocalIndex> = Layer.unwrapEffect(
  Effect.map(settingsConfig, layer),
)
