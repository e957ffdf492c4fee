/** The options that choose where work runs: in process (default) or on a server (`--api-url`). */
import { Options } from "@effect/cli"
import { Config, Effect, Option } from "effect"
import { layerLocal, layerRemote, type Scraper } from "../Scraper.js"

export const connection = {
  apiUrl: Options.text("api-url").pipe(
    Options.withFallbackConfig(Config.string("WEBDATA_API_URL")),
    Options.optional,
    Options.withDescription(
      "Call this webdata (or Firecrawl v2) server instead of scraping in process; env WEBDATA_API_URL",
    ),
  ),
  apiKey: Options.text("api-key").pipe(
    Options.withFallbackConfig(Config.string("WEBDATA_API_KEY")),
    Options.optional,
    Options.withDescription("API key for --api-url; env WEBDATA_API_KEY"),
  ),
}

export const withScraper = <A, E, R>(
  args: { readonly apiUrl: Option.Option<string>; readonly apiKey: Option.Option<string> },
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, Exclude<R, Scraper>> =>
  Effect.provide(
    effect,
    Option.match(args.apiUrl, {
      onNone: () => layerLocal,
      onSome: (url) => layerRemote(url, Option.getOrUndefined(args.apiKey)),
    }),
  )
