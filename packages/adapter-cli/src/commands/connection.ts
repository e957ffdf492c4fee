/** The options that choose where work runs: in process (default) or on a server (`--api-url`). */
import { Options } from "@effect/cli"
import { Config, type Effect } from "effect"
import { type Connection, withClient } from "../Connection.js"
import type { Scraper } from "../Scraper.js"

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
  args: Connection,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, Exclude<R, Scraper>> => withClient(args, () => import("../ScraperLayers.js"), effect)
